/**
 * One change to a persona's queue: take the lock, bring the state up to date with the log
 * (the only source of truth: a decision another process made a moment ago is read here,
 * under the lock), let the caller append records, write them with one synced append,
 * release.
 *
 * Bringing the state up to date replays the whole log the first time a thread changes it,
 * and afterwards only the records appended since (tail.ts), after checking that the record
 * it stopped at is still in place. Where the log is (a file, or the persona's persistence
 * backend) is the storage's business (storage.ts); the lock is always the file beside it.
 *
 * Records a change appends are applied to the in-memory state at once, through the same
 * reducer a later reader uses, and are written even when the change then fails: an
 * `expired` record found on the way to a refused `accept` stays written, as it should.
 */
import { mkdirSync } from 'node:fs';
import { kernelError } from '../../kernel/errors.ts';
import { withExclusiveLock } from '../persistence/state/exclusive-lock.ts';
import { encodeRecord, type ReviewRecord } from './log-file.ts';
import { displayName, reviewLock, type ReviewPaths } from './paths.ts';
import { MAX_TIME, RECORD_TYPES, REVIEW_SCHEMA_VERSION } from './records.ts';
import { reduce, type QueueState } from './state.ts';
import { fileReviewStorage, type ReplayCache, type ReviewStorage } from './storage.ts';

export { displayName } from './paths.ts';
export type { ReplayCache } from './storage.ts';

export interface ReviewSession {
  readonly paths: ReviewPaths;
  /** Where the records and long-term memory are: the persona's persistence backend (storage.ts). */
  readonly storage: ReviewStorage;
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

/**
 * One cache per log per thread: changes are synchronous and never nested, so two queue
 * objects for one persona in one thread can share it (worker threads have their own).
 */
const caches = new Map<string, ReplayCache>();

/** Drops this thread's cursor for a log whose file was replaced (a seal): the next change reads it afresh. */
export function forgetReplayCache(location: string): void {
  caches.delete(location);
}

function cacheFor(location: string): ReplayCache {
  let cache = caches.get(location);
  if (!cache) caches.set(location, (cache = {}));
  return cache;
}

export function assertLogicalTime(now: number, what = 'now'): void {
  if (!Number.isSafeInteger(now) || now < 0 || now > MAX_TIME) {
    throw kernelError('RTC_ERR_REVIEW_INVALID', `${what} must be a logical time in epoch milliseconds (an integer from 0), got ${String(now)}`, {
      details: { [what]: now },
    });
  }
}

/** `storage` defaults to the files of the jsonl-fs layout; the cache to this thread's one for that log. */
export function withReviewSession<T>(
  paths: ReviewPaths,
  now: number,
  fn: (session: ReviewSession) => T,
  lockWaitMs?: number,
  cache?: ReplayCache,
  storage: ReviewStorage = fileReviewStorage(paths),
): T {
  assertLogicalTime(now);
  mkdirSync(paths.reviewDir, { recursive: true });
  const replay = cache ?? cacheFor(storage.location);
  return withExclusiveLock(
    paths.lock,
    reviewLock(paths, lockWaitMs),
    () => {
      const log = storage.open(replay);
      const { state } = log;
      let pending: string[] = [];
      const appended: ReviewRecord[] = [];
      const session: ReviewSession = {
        paths,
        storage,
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
          log.write(lines);
        },
      };
      if (log.torn) {
        // A torn tail is a write cut short by a crash, so no caller was ever told it
        // happened: it is saved aside, cut off, and the repair itself is recorded.
        const repair = log.cutTorn(state.lastSeq + 1);
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
        log.keep(replay);
        throw error;
      }
      session.flush();
      log.keep(replay);
      return result;
    },
  );
}

export { sha256Digest } from '../trace-store/content-store.ts';
