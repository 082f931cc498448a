/**
 * Reading and appending the proposal log. The file format, canonical JSON, hashing and the
 * line scanner are the event log's own (kernel/events): one envelope per line, each hash
 * chained to the one before, so the same code checks both logs. What the review queue adds
 * is the meaning of each record (state.ts) and the rule that a writer holds the lock.
 */
import { statSync } from 'node:fs';
import { kernelError } from '../../kernel/errors.ts';
import { canonicalJson } from '../../kernel/events/canonical.ts';
import { envelopeLine, GENESIS_HASH, hashInput, sha256 } from '../../kernel/events/envelope.ts';
import { describeProblem, scanEventLog, type TornTail } from '../../kernel/events/scan.ts';
import { redactRecord } from '../../kernel/redact/index.ts';
import { emptyQueueState, ImpossibleRecord, reduce, type QueueState } from './state.ts';
import { stateBeforeOpen } from './log-history.ts';

/** One record as written and as read back. */
export interface ReviewRecord {
  seq: number;
  type: string;
  payload: Record<string, unknown>;
  hash: string;
}

export interface ReadLog {
  state: QueueState;
  /** Bytes after the last newline: a write cut short by a crash (never an acknowledged record). */
  torn?: TornTail;
  /** Where the replay stopped: end of the last complete line, where that line starts, how many lines. */
  end: number;
  lastLineStart: number;
  lines: number;
}

/**
 * Replays the whole log. Throws RTC_ERR_REVIEW_LOG_CORRUPT, naming file, line and seq, at the
 * first line that is not a valid envelope, breaks the chain, or records something the
 * queue's state does not allow. A missing file is an empty queue.
 */
export function readProposalLog(file: string, persona: string, displayName: string = file): ReadLog {
  // After a seal the open segment starts with a header: the state before it comes from the
  // review checkpoint (or every sealed segment), so a change replays only the open segment.
  const state = stateBeforeOpen(file, persona, displayName);
  let torn: TornTail | undefined;
  let lastLineStart = 0;
  let lines = 0;
  for (const item of scanEventLog(file)) {
    if (item.kind === 'problem') {
      const problem = { ...item.problem, file: displayName };
      throw kernelError('RTC_ERR_REVIEW_LOG_CORRUPT', describeProblem(problem), { details: { ...problem } });
    }
    if (item.kind === 'torn') {
      torn = item.torn;
      break;
    }
    try {
      reduce(state, { seq: item.event.seq, type: item.event.type, hash: item.event.hash, payload: item.event.payload });
    } catch (error) {
      if (!(error instanceof ImpossibleRecord)) throw error;
      throw kernelError('RTC_ERR_REVIEW_LOG_CORRUPT', `${displayName}:${item.line} (seq ${item.event.seq}): ${error.message}`, {
        details: { file: displayName, line: item.line, seq: item.event.seq, what: error.message },
      });
    }
    lastLineStart = item.offset;
    lines = item.line;
  }
  const end = torn ? torn.offset : sizeOf(file);
  return { state, end, lastLineStart, lines, ...(torn ? { torn } : {}) };
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
}

/**
 * The line for the next record, chained to `state`, and the record as a reader will see
 * it. The payload is redacted before it is hashed, as the event log does.
 */
export function encodeRecord(state: QueueState, type: string, payload: Record<string, unknown>, at: number): { line: string; record: ReviewRecord } {
  const payloadJson = canonicalJson(redactRecord(payload));
  const seq = state.lastSeq + 1;
  const hash = sha256(hashInput(seq, type, payloadJson, state.lastHash));
  const line = envelopeLine(seq, type, payloadJson, state.lastHash, hash, new Date(at).toISOString());
  return { line, record: { seq, type, hash, payload: JSON.parse(payloadJson) as Record<string, unknown> } };
}

