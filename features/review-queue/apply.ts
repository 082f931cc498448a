/**
 * Accepted proposals take effect here, at a cycle boundary: the loop calls applyAccepted()
 * at the start of each cycle, and it never waits for a decision (an undecided proposal is
 * simply not applied yet).
 *
 * A memory promotion appends its text to `brain/memory/long-term.md` (the file, or the
 * entry of that name in the persona's persistence backend), the only way it grows. The append is announced first (`proposal_applying`, synced, with the offset
 * and the block's digest) and recorded after (`proposal_applied`, with who accepted it), so
 * a crash in between is finished on the next call rather than repeated or lost. Before it
 * appends, the file must be exactly as the last promotion left it: a change made behind the
 * queue's back stops application with RTC_ERR_REVIEW_MEMORY_DRIFT.
 *
 * Skill drafts and profile or plugin changes touch ratified state that is loaded only at
 * start, so applying them records what would change (`awaiting-operator`): an operator
 * installs the skill or writes the file from its blob and restarts the persona.
 */
import { kernelError } from '../../kernel/errors.ts';
import { readBlob, blobRelativePath } from './blobs.ts';
import { expireDueIn, iso } from './operations.ts';
import { LONG_TERM_MEMORY_RELATIVE } from './paths.ts';
import { RECORD_TYPES, REVIEW_SCHEMA_VERSION, type AppliedEffect, type FileChangeContent, type MemoryPromotionContent, type SkillDraftContent } from './records.ts';
import { sha256Digest, type ReviewSession } from './session.ts';
import { unappliedAccepted, type Proposal, type Transition } from './state.ts';
import { checkRatification, type RatifyContext } from './ratify.ts';

export interface ApplyOutcome {
  /** Proposals applied (or, for restart-bound kinds, recorded as awaiting an operator) by this call. */
  applied: Proposal[];
  /** Proposals this call found past their expiry and recorded as expired. */
  expired: Proposal[];
  /** Accepted proposals not applied because their decision is not ratified (ratify.ts), with why. */
  held: { id: string; reason: string }[];
}

/** The bytes one promotion adds to long-term.md. A function of the proposal, its acceptance and the offset only. */
export function memoryBlock(proposal: Proposal, accepted: Transition, offset: number): Buffer {
  const text = (proposal.content as MemoryPromotionContent).text;
  const header = `<!-- ${proposal.id}: accepted by ${accepted.by} at ${iso(accepted.at)} -->\n`;
  return Buffer.from(`${offset > 0 ? '\n' : ''}${header}${text}${text.endsWith('\n') ? '' : '\n'}`, 'utf8');
}

function drift(what: string, details: Record<string, unknown>): never {
  throw kernelError('RTC_ERR_REVIEW_MEMORY_DRIFT', `${LONG_TERM_MEMORY_RELATIVE} changed outside the review queue: ${what}; restore it, or propose the change, before more promotions apply`, {
    details: { file: LONG_TERM_MEMORY_RELATIVE, ...details },
  });
}

function applyMemory(session: ReviewSession, proposal: Proposal, accepted: Transition): AppliedEffect {
  // long-term.md through the persona's persistence backend (storage.ts): a file, or a store entry.
  const current = session.storage.readLongTerm();
  const intent = session.state.applying.get(proposal.id);
  let offset: number;
  let block: Buffer;
  if (intent) {
    // An earlier call announced this block and stopped (a crash): finish what it started.
    offset = intent.offset;
    block = memoryBlock(proposal, accepted, offset);
    if (sha256Digest(block) !== intent.block_sha256) {
      throw kernelError('RTC_ERR_REVIEW_LOG_CORRUPT', `${proposal.id}: the announced long-term memory block (seq ${intent.seq}) is not the block this kernel writes for it`, { internal: true });
    }
    if (current.length < offset || sha256Digest(current.subarray(0, offset)) !== intent.before_sha256) {
      drift(`its first ${offset} bytes are not what they were when ${proposal.id} was announced (seq ${intent.seq})`, { id: proposal.id });
    }
    const written = current.subarray(offset);
    if (written.length > block.length || !block.subarray(0, written.length).equals(written)) {
      drift(`after offset ${offset} it holds something other than the block of ${proposal.id}`, { id: proposal.id });
    }
    if (written.length < block.length) session.storage.appendLongTerm(block.subarray(written.length));
  } else {
    const last = session.state.longTerm;
    if (last && (current.length !== last.size || sha256Digest(current) !== last.sha256)) {
      drift(`it is ${current.length} bytes (${sha256Digest(current).slice(0, 19)}…) but ${last.id} left it ${last.size} bytes (${last.sha256.slice(0, 19)}…, seq ${last.seq})`, {
        expected_size: last.size,
        actual_size: current.length,
      });
    }
    offset = current.length;
    block = memoryBlock(proposal, accepted, offset);
    session.append(RECORD_TYPES.applying, {
      schema_version: REVIEW_SCHEMA_VERSION,
      id: proposal.id,
      at: session.now,
      file: LONG_TERM_MEMORY_RELATIVE,
      offset,
      before_sha256: sha256Digest(current),
      block_sha256: sha256Digest(block),
      block_bytes: block.length,
    });
    session.flush();
    session.storage.appendLongTerm(block);
  }
  const after = Buffer.concat([current.subarray(0, offset), block]);
  return { status: 'applied', file: LONG_TERM_MEMORY_RELATIVE, offset, bytes: block.length, size_after: after.length, sha256_after: sha256Digest(after) };
}

function awaitingOperator(session: ReviewSession, proposal: Proposal): AppliedEffect {
  if (proposal.kind === 'skill-draft') {
    const { skill, package: pkg } = proposal.content as SkillDraftContent;
    // The command that does it: installs from the package, verified against the digest this proposal recorded.
    const command = (ref: string) => `install skill ${skill} from its gate evidence package (runtimectl skills install ${ref} --digest ${pkg.digest} --persona ${session.state.persona}), select it in the profile, then restart the persona`;
    const action = command(pkg.ref).length <= 1000 ? command(pkg.ref) : command('PACKAGE');
    return { status: 'awaiting-operator', action, skill, package: pkg };
  }
  const { path, content_digest } = proposal.content as FileChangeContent;
  readBlob(session.paths.personaDir, content_digest);
  const blob = blobRelativePath(content_digest);
  return {
    status: 'awaiting-operator',
    action: `write ${blob} to ${path} and restart the persona (ratified ${proposal.kind === 'profile-change' ? 'profiles' : 'plugins'} load only at start)`,
    path,
    content_digest,
    blob,
  };
}

/**
 * Expires what is due, then applies every accepted, unapplied proposal in acceptance order.
 * With `ratify` (the loop always passes it), a proposal whose acceptance is not ratified by a
 * trusted operator, or whose evidence no longer matches, is held: not applied, and an
 * operator alert says why (once per decision and reason). It is checked again at every
 * boundary, so a held proposal is applied once the reason goes (its operator's key trusted,
 * its evidence restored). Without `ratify` this is the bare state machine.
 */
export function applyAcceptedIn(session: ReviewSession, ratify?: RatifyContext): ApplyOutcome {
  const expired = expireDueIn(session);
  const applied: Proposal[] = [];
  const held: ApplyOutcome['held'] = [];
  for (const proposal of unappliedAccepted(session.state)) {
    const accepted = proposal.decision!;
    if (ratify) {
      const verdict = checkRatification(proposal, ratify);
      if (!verdict.ok) {
        held.push({ id: proposal.id, reason: verdict.reason });
        // Once per decision and reason: a held proposal is not re-alerted every cycle, but a new
        // reason (the trust list became unreadable, the evidence moved) is said again.
        const message = `${proposal.id} was recorded as accepted by ${accepted.by} but is not applied: ${verdict.reason}`.slice(0, 1000);
        if (proposal.held?.reason !== message) {
          session.append(RECORD_TYPES.alert, {
            schema_version: REVIEW_SCHEMA_VERSION,
            alert: 'decision_not_ratified',
            persona: session.state.persona,
            at: session.now,
            message,
            id: proposal.id,
            decision_seq: accepted.seq,
          });
        }
        continue;
      }
    }
    const effect = proposal.kind === 'memory-promotion' ? applyMemory(session, proposal, accepted) : awaitingOperator(session, proposal);
    session.append(RECORD_TYPES.applied, {
      schema_version: REVIEW_SCHEMA_VERSION,
      id: proposal.id,
      kind: proposal.kind,
      at: session.now,
      accepted_by: accepted.by,
      accepted_at: accepted.at,
      effect,
    });
    applied.push(proposal);
  }
  return { applied, expired, held };
}
