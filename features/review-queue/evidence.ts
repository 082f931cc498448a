/**
 * What a piece of evidence's digest is now, so a proposal's `{ref, digest}` can be checked
 * (ratify.ts). A ref is one of:
 *   - an event of the persona's log: `events#<seq>`, `logs/events.jsonl#<seq>` or
 *     `persistence.db#events/<seq>`: the digest is `sha256:<the event's hash>`;
 *   - a file of the persona: a path relative to the persona folder (a gate evidence package is
 *     named by its manifest.json), which must stay inside that folder through every link: the
 *     digest is the sha256 of its bytes;
 *   - an absolute path, which only an operator's own tools record (the gate's package, wherever
 *     the operator put it): the submission paths open to a persona refuse it (below).
 * Anything else cannot be checked (undefined), and a proposal resting on it is not ratified.
 *
 * Submission (`submissionEvidence`) is stricter, because its answer goes back to whoever
 * proposed, possibly an agent: only the persona's own files and events. An absolute path, a
 * `..`, a link out of the persona folder (to /proc, to the operator's folder, anywhere) and a
 * file that does not exist all get the same one-line refusal, so the answer says nothing about
 * what lies outside.
 */
import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { kernelError } from '../../kernel/errors.ts';
import type { EventEnvelope } from '../../kernel/events/envelope.ts';
import { readFileCapped } from '../../kernel/storage/safe-read.ts';
import { WORKSPACE_EVIDENCE_DIR } from './paths.ts';
import { DIGEST_PATTERN, isSafeRelativePath, type EvidenceRef } from './records.ts';

const EVENT_REF = /^(?:events|logs\/events\.jsonl|persistence\.db#events)[#/]([1-9]\d*)$/;

/** Evidence files are read whole to be hashed: far above any real one. */
const MAX_EVIDENCE_BYTES = 256 * 1024 * 1024;

/** `workspace:PATH`: a path relative to the persona's prepared workspace (an agent's working folder). */
export const WORKSPACE_REF_PREFIX = 'workspace:';

export interface EvidenceSources {
  personaDir: string;
  /** the persona's events (through its backend), for event refs */
  events?: () => Iterable<EventEnvelope>;
  /** the events after a seq, reading only the segments that hold them (a backend's readAfter): preferred when given */
  eventsAfter?: (afterSeq: number) => Iterable<EventEnvelope>;
}

export function eventSeqOfRef(ref: string): number | undefined {
  const match = EVENT_REF.exec(ref);
  return match ? Number(match[1]) : undefined;
}

function eventDigest(seq: number, sources: EvidenceSources): string | undefined {
  try {
    if (sources.eventsAfter) {
      for (const event of sources.eventsAfter(seq - 1)) return event.seq === seq ? `sha256:${event.hash}` : undefined;
      return undefined;
    }
    if (!sources.events) return undefined;
    for (const event of sources.events()) if (event.seq === seq) return `sha256:${event.hash}`;
  } catch {
    return undefined;
  }
  return undefined;
}

function fileDigest(file: string, within?: string): string | undefined {
  try {
    const bytes = readFileCapped(file, { maxBytes: MAX_EVIDENCE_BYTES, ...(within === undefined ? {} : { within }) });
    return bytes === undefined ? undefined : `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
  } catch {
    return undefined;
  }
}

export function evidenceDigest(ref: string, sources: EvidenceSources): string | undefined {
  const seq = eventSeqOfRef(ref);
  if (seq !== undefined) return eventDigest(seq, sources);
  if (ref.includes('\0')) return undefined;
  if (path.isAbsolute(ref)) return fileDigest(ref);
  // A relative ref is the persona's: it is read only where it lies inside the persona folder.
  return fileDigest(path.join(sources.personaDir, ref), sources.personaDir);
}

/** The one answer for every ref that is not a file or event of the persona (missing, absolute, escaping alike). */
export function notThePersonas(ref: string): string {
  // No colon after the ref: `"…passwd": x` would read as a secret assignment to the event log's scrub.
  return `evidence ${JSON.stringify(ref.length > 200 ? `${ref.slice(0, 199)}…` : ref)} is not a file or event of the persona (evidence is a path relative to the persona folder without "..", ${WORKSPACE_REF_PREFIX}PATH in its workspace, or events#SEQ)`;
}

/**
 * A ref as it will be recorded: `workspace:PATH` becomes the persona-relative path of that
 * file; anything else is kept as given. Undefined when it cannot name a file of the persona.
 */
export function recordedRef(ref: string): string | undefined {
  if (eventSeqOfRef(ref) !== undefined) return ref;
  const rel = ref.startsWith(WORKSPACE_REF_PREFIX) ? path.posix.join(WORKSPACE_EVIDENCE_DIR, ref.slice(WORKSPACE_REF_PREFIX.length)) : ref;
  if (!isSafeRelativePath(rel)) return undefined;
  return rel;
}

/** True when `file`, through every link, lies inside `dir` (both must exist). */
function realInside(file: string, dir: string): boolean {
  let real: string;
  let root: string;
  try {
    real = realpathSync(file);
    root = realpathSync(dir);
  } catch {
    return false;
  }
  const rel = path.relative(root, real);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}

/**
 * The evidence of a submission, checked and digested: each ref must be an event of the
 * persona's log or a regular file inside its folder (`workspace:PATH` is resolved to the
 * persona-relative path that is recorded); a digest given must be the one it has now, a digest
 * left out is taken now. Throws RTC_ERR_REVIEW_EVIDENCE with one line; every ref that is not
 * the persona's gets the same line (notThePersonas).
 */
export function submissionEvidence(refs: readonly { ref: string; digest?: string | undefined }[], sources: EvidenceSources & { maxBytes?: number }): EvidenceRef[] {
  return refs.map(({ ref, digest }) => {
    const refuse = (line: string): never => {
      throw kernelError('RTC_ERR_REVIEW_EVIDENCE', line, { details: { ref } });
    };
    if (digest !== undefined && !DIGEST_PATTERN.test(digest)) {
      throw kernelError('RTC_ERR_REVIEW_INVALID', `evidence ${JSON.stringify(ref.slice(0, 200))}: digest ${JSON.stringify(digest.slice(0, 80))} is not sha256:<64 lower-case hex digits>`, { details: { ref } });
    }
    const recorded = recordedRef(ref) ?? refuse(notThePersonas(ref));
    let actual: string | undefined;
    const seq = eventSeqOfRef(recorded);
    if (seq !== undefined) actual = eventDigest(seq, sources);
    else {
      const file = path.join(sources.personaDir, recorded);
      if (!realInside(file, sources.personaDir)) refuse(notThePersonas(ref));
      try {
        const bytes = readFileCapped(file, { maxBytes: sources.maxBytes ?? MAX_EVIDENCE_BYTES, within: sources.personaDir, shown: recorded });
        actual = bytes === undefined ? undefined : `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
      } catch (error) {
        // Inside the persona folder, what is wrong may be said: a folder, a FIFO, too large.
        refuse(`evidence ${recorded}: ${(error as Error).message.replace(/^[^:]*: /, '')}`);
      }
    }
    if (actual === undefined) refuse(notThePersonas(ref));
    if (digest !== undefined && digest !== actual) refuse(`evidence ${recorded}: its digest is ${actual}, not ${digest}`);
    return { ref: recorded, digest: actual! };
  });
}
