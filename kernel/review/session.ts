/**
 * One change to a persona's queue: take the lock, replay the log (the only source of
 * truth: nothing is cached across changes, so a decision made by another process a moment
 * ago is seen), let the caller append records, write them with one synced append, release.
 *
 * Records a change appends are applied to the in-memory state at once, through the same
 * reducer a later reader uses, and are written even when the change then fails: an
 * `expired` record found on the way to a refused `accept` stays written, as it should.
 */
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { kernelError } from '../errors.ts';
import { cutTornTail } from '../events/repair.ts';
import { withExclusiveLock } from './lock.ts';
import { appendDurably, encodeRecord, readProposalLog, type ReviewRecord } from './log-file.ts';
import type { ReviewPaths } from './paths.ts';
import { MAX_TIME, RECORD_TYPES, REVIEW_SCHEMA_VERSION } from './records.ts';
import { reduce, type QueueState } from './state.ts';

export interface ReviewSession {
  readonly paths: ReviewPaths;
  readonly state: QueueState;
  /** The logical time of this change, in epoch milliseconds. */
  readonly now: number;
  /** Queues one record (written at flush() or when the change ends) and applies it to `state`. */
  append(type: string, payload: Record<string, unknown>): ReviewRecord;
  /** Writes and syncs every queued record now (before touching a file the records describe). */
  flush(): void;
  /** Every record this change appended, in order. */
  readonly appended: readonly ReviewRecord[];
}

export function assertLogicalTime(now: number, what = 'now'): void {
  if (!Number.isSafeInteger(now) || now < 0 || now > MAX_TIME) {
    throw kernelError('RTC_ERR_REVIEW_INVALID', `${what} must be a logical time in epoch milliseconds (an integer from 0), got ${String(now)}`, {
      details: { [what]: now },
    });
  }
}

/** A name for messages: the log's path relative to the state directory, never a host path. */
export function displayName(paths: ReviewPaths): string {
  return path.join(paths.persona, 'review', path.basename(paths.log));
}

export function withReviewSession<T>(paths: ReviewPaths, now: number, fn: (session: ReviewSession) => T, lockWaitMs?: number): T {
  assertLogicalTime(now);
  mkdirSync(paths.reviewDir, { recursive: true });
  return withExclusiveLock(
    paths.lock,
    displayName(paths),
    () => {
      const { state, torn } = readProposalLog(paths.log, paths.persona, displayName(paths));
      let pending: string[] = [];
      const appended: ReviewRecord[] = [];
      const session: ReviewSession = {
        paths,
        state,
        now,
        appended,
        append(type, payload) {
          const { line, record } = encodeRecord(state, type, payload, now);
          reduce(state, record);
          pending.push(line);
          appended.push(record);
          return record;
        },
        flush() {
          if (pending.length === 0) return;
          const text = pending.join('');
          pending = [];
          appendDurably(paths.log, text);
        },
      };
      if (torn) {
        // A torn tail is a write cut short by a crash, so no caller was ever told it
        // happened: it is saved aside, cut off, and the repair itself is recorded.
        const repair = cutTornTail(paths.log, torn, state.lastSeq + 1);
        session.append(RECORD_TYPES.repaired, {
          schema_version: REVIEW_SCHEMA_VERSION,
          reason: 'torn last line',
          at: now,
          line: repair.line,
          offset: repair.offset,
          removed_bytes: repair.removedBytes,
          saved_as: repair.savedAs,
        });
      }
      let result: T;
      try {
        result = fn(session);
      } catch (error) {
        session.flush();
        throw error;
      }
      session.flush();
      return result;
    },
    lockWaitMs,
  );
}

export function sha256Digest(bytes: Buffer | string): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}
