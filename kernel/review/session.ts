/**
 * One change to a persona's queue: take the lock, bring the state up to date with the log
 * (the only source of truth: a decision another process made a moment ago is read here,
 * under the lock), let the caller append records, write them with one synced append,
 * release.
 *
 * Bringing the state up to date replays the whole log the first time a thread changes it,
 * and afterwards only the records appended since (tail.ts), after checking that the record
 * it stopped at is still in place.
 *
 * Records a change appends are applied to the in-memory state at once, through the same
 * reducer a later reader uses, and are written even when the change then fails: an
 * `expired` record found on the way to a refused `accept` stays written, as it should.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { kernelError } from '../errors.ts';
import { cutTornTail } from '../events/repair.ts';
import type { TornTail } from '../events/scan.ts';
import { withExclusiveLock } from './lock.ts';
import { appendDurably, encodeRecord, readProposalLog, type ReviewRecord } from './log-file.ts';
import type { ReviewPaths } from './paths.ts';
import { MAX_TIME, RECORD_TYPES, REVIEW_SCHEMA_VERSION } from './records.ts';
import { reduce, type QueueState } from './state.ts';
import { cursorStatus, lineDigest, lineDigestAt, replayTail, type LogCursor } from './tail.ts';

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

/** Where the last change in this thread left a log. */
export interface ReplayCache {
  cursor?: LogCursor;
}

/**
 * One cache per log per thread: changes are synchronous and never nested, so two queue
 * objects for one persona in one thread can share it (worker threads have their own).
 */
const caches = new Map<string, ReplayCache>();

function cacheFor(log: string): ReplayCache {
  let cache = caches.get(log);
  if (!cache) caches.set(log, (cache = {}));
  return cache;
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

/** The log replayed up to now: from the cache's cursor when it is still good, else whole. */
function catchUp(paths: ReviewPaths, cache: ReplayCache): { cursor: LogCursor; torn?: TornTail } {
  const cached = cache.cursor;
  // The cursor's state is about to change: until this change completes, nobody else may use it.
  delete cache.cursor;
  if (cached) {
    const status = cursorStatus(paths.log, cached);
    if (status === 'valid') return { cursor: cached, ...replayTail(paths.log, cached, displayName(paths)) };
    if (status === 'rewritten') {
      throw kernelError('RTC_ERR_REVIEW_LOG_CORRUPT', `${displayName(paths)}:${cached.lines} (seq ${cached.state.lastSeq}): the record this process read there has changed; the log was rewritten in place`, {
        details: { file: displayName(paths), line: cached.lines, seq: cached.state.lastSeq },
      });
    }
  }
  const read = readProposalLog(paths.log, paths.persona, displayName(paths));
  const lastLineDigest = read.lines === 0 ? '' : lineDigestAt(paths.log, read.lastLineStart, read.end);
  const cursor: LogCursor = { ino: 0, end: read.end, lastLineStart: read.lastLineStart, lines: read.lines, lastLineDigest, state: read.state };
  return { cursor, ...(read.torn ? { torn: read.torn } : {}) };
}

export function withReviewSession<T>(paths: ReviewPaths, now: number, fn: (session: ReviewSession) => T, lockWaitMs?: number, cache: ReplayCache = cacheFor(paths.log)): T {
  assertLogicalTime(now);
  mkdirSync(paths.reviewDir, { recursive: true });
  return withExclusiveLock(
    paths.lock,
    displayName(paths),
    () => {
      const { cursor, torn } = catchUp(paths, cache);
      const { state } = cursor;
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
          const lines = pending;
          pending = [];
          const bytes = Buffer.from(lines.join(''), 'utf8');
          appendDurably(paths.log, bytes);
          cursor.end += bytes.length;
          cursor.lastLineStart = cursor.end - Buffer.byteLength(lines.at(-1)!, 'utf8');
          cursor.lastLineDigest = lineDigest(lines.at(-1)!);
          cursor.lines += lines.length;
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
        keep(cache, cursor, paths.log);
        throw error;
      }
      session.flush();
      keep(cache, cursor, paths.log);
      return result;
    },
    lockWaitMs,
  );
}

/** The state matches the file exactly (everything appended was written), so the next change may start from here. */
function keep(cache: ReplayCache, cursor: LogCursor, log: string): void {
  if (cursor.lines === 0) return;
  cursor.ino = statSync(log).ino;
  cache.cursor = cursor;
}

export function sha256Digest(bytes: Buffer | string): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}
