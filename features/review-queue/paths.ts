/**
 * Where a persona's review queue lives, and the shape of proposal ids.
 *
 *   <state>/<persona>/review/proposals.jsonl   the append-only proposal log
 *   <state>/<persona>/review/proposals.lock    held for the milliseconds of one change
 *   <state>/<persona>/review/blobs/<hex>       proposed file contents, stored by sha256
 *   <state>/<persona>/brain/memory/long-term.md  grows only by applied memory promotions
 */
import type { LockUse } from '../persistence/state/exclusive-lock.ts';
import path from 'node:path';
import { PERSONA_ID_PATTERN } from '../../kernel/ids.ts';
import { kernelError } from '../../kernel/errors.ts';
import { personaPaths, workspaceDir } from '../persona-layout/layout.ts';

export const PROPOSAL_LOG_RELATIVE = path.join('review', 'proposals.jsonl');
export const LONG_TERM_MEMORY_RELATIVE = 'brain/memory/long-term.md';
export const BLOBS_RELATIVE = 'review/blobs';
/** The persona's prepared workspace, relative to its folder (features/persona-layout/layout.ts workspaceDir): where `workspace:PATH` evidence lies. */
export const WORKSPACE_EVIDENCE_DIR = path.posix.relative('/p', workspaceDir(personaPaths('/', 'p')).split(path.sep).join('/'));

/** The persona id rule (kernel/ids.ts), re-exported for the review queue's modules. */
export { PERSONA_ID_PATTERN };

/** `P-<persona>-<n>`: the persona id rule inside a proposal id. */
const PROPOSAL_ID = new RegExp(`^P-(${PERSONA_ID_PATTERN.source.slice(1, -1)})-([1-9][0-9]{0,15})$`);

export interface ReviewPaths {
  personaDir: string;
  persona: string;
  reviewDir: string;
  log: string;
  lock: string;
  blobs: string;
  longTerm: string;
}

export function assertReviewPersonaId(persona: string): void {
  if (!PERSONA_ID_PATTERN.test(persona)) {
    throw kernelError('RTC_ERR_REVIEW_INVALID', `persona id "${persona}" must be lowercase letters, digits, "-" and "_" (it names the state directory)`, {
      details: { persona },
    });
  }
}

/** The persona directory is `<state>/<persona-id>`: its last segment is the persona id. */
export function reviewPaths(personaDir: string): ReviewPaths {
  const absolute = path.resolve(personaDir);
  const persona = path.basename(absolute);
  assertReviewPersonaId(persona);
  const reviewDir = path.join(absolute, 'review');
  return {
    personaDir: absolute,
    persona,
    reviewDir,
    log: path.join(absolute, PROPOSAL_LOG_RELATIVE),
    lock: path.join(reviewDir, 'proposals.lock'),
    blobs: path.join(absolute, BLOBS_RELATIVE),
    longTerm: path.join(absolute, LONG_TERM_MEMORY_RELATIVE),
  };
}

/** A name for messages: the log's path relative to the state directory, never a host path. */
/** The review queue's lock as the one exclusive lock takes it (features/persistence/state/exclusive-lock.ts). */
export function reviewLock(paths: ReviewPaths, waitMs?: number): LockUse {
  return { shown: displayName(paths), what: 'the review lock', code: 'RTC_ERR_REVIEW_LOCKED', ...(waitMs !== undefined ? { waitMs } : {}) };
}

export function displayName(paths: ReviewPaths): string {
  return path.join(paths.persona, 'review', path.basename(paths.log));
}

/** `P-<persona>-<n>`: the n-th proposal the persona's queue took (refusals take no number). */
export function proposalId(persona: string, number: number): string {
  return `P-${persona}-${number}`;
}

export function parseProposalId(id: string): { persona: string; number: number } | undefined {
  const match = PROPOSAL_ID.exec(id);
  if (!match) return undefined;
  return { persona: match[1]!, number: Number(match[2]) };
}
