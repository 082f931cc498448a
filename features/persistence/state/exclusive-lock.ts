/**
 * The kernel's one short-held lock: a file created with O_EXCL holding `pid thread nonce`,
 * held only for the milliseconds of one change (no change spans an await), so the loop and
 * any number of CLI commands can change one record file (the review queue, a JSONL ledger
 * through the storage binding) without two of them interleaving or deciding the same thing.
 * (The persona's long-held writer lock, writer-lock.ts, is a different thing: it names the
 * kernel that runs the persona, with the start time of its process.)
 *
 * A lock whose holder is gone (a crash mid-change) is taken over, but only under a second
 * O_EXCL file (`.break`) and only if the lock still holds exactly the content that was seen
 * to be stale: without that, two waiters that both saw a dead holder could each remove the
 * lock and one of them would remove the other's fresh lock (the race a pid-only lock has).
 * A lock carrying this process's pid and this thread's id is a leftover of an earlier
 * process with the same pid (pid 1 in a container); one from another thread of this process
 * is judged by its age.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { threadId } from 'node:worker_threads';
import { kernelError, type ErrorCode } from '../../../kernel/errors.ts';

export const DEFAULT_LOCK_WAIT_MS = 5_000;

/** Whose lock it is, as its refusals say: the file shown, what the lock is called, their code, how long to wait. */
export interface LockUse {
  /** the locked file as the user knows it */
  shown: string;
  /** e.g. `the review lock`, `the write lock` */
  what: string;
  code: ErrorCode;
  waitMs?: number;
}
/** A lock (or break marker) older than this whose holder cannot be checked is abandoned. */
const ABANDONED_AFTER_MS = 10_000;

const sleeper = new Int32Array(new SharedArrayBuffer(4));
/** Locks this thread holds: taking one twice would be a bug, not a wait. */
const held = new Set<string>();

interface Holder {
  content: string;
  pid?: number;
  thread?: number;
  ageMs: number;
}

function tryCreate(file: string, content: string): boolean {
  let fd: number;
  try {
    fd = openSync(file, 'wx', 0o644);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    writeSync(fd, content);
  } finally {
    closeSync(fd);
  }
  return true;
}

function readHolder(file: string): Holder | undefined {
  try {
    const content = readFileSync(file, 'utf8');
    // Wall-clock time decides only whether a lock is abandoned; it never enters a record.
    const ageMs = Date.now() - statSync(file).mtimeMs;
    const [pid, thread] = content.trim().split(' ').map(Number);
    return {
      content,
      ageMs,
      ...(Number.isInteger(pid) && pid! > 0 ? { pid } : {}),
      ...(Number.isInteger(thread) && thread! >= 0 ? { thread } : {}),
    };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function isStale(holder: Holder): boolean {
  if (holder.pid === undefined) return holder.ageMs > ABANDONED_AFTER_MS;
  if (holder.pid !== process.pid) return !isAlive(holder.pid);
  if (holder.thread === threadId) return true;
  return holder.ageMs > ABANDONED_AFTER_MS;
}

/** Removes the lock if it still holds `staleContent`; one breaker at a time. */
function breakStale(lockFile: string, staleContent: string): void {
  const marker = `${lockFile}.break`;
  if (!tryCreate(marker, `${process.pid} ${threadId}\n`)) {
    const other = readHolder(marker);
    if (other && other.ageMs > ABANDONED_AFTER_MS) unlinkQuietly(marker);
    return;
  }
  try {
    // Nobody can replace the lock file while it exists, and other breakers wait on the
    // marker, so the content read here is still the file unlinked next.
    if (readHolder(lockFile)?.content === staleContent) unlinkQuietly(lockFile);
  } finally {
    unlinkQuietly(marker);
  }
}

function unlinkQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/** Runs `fn` holding the lock on `lockFile`; `fn` must not await (the lock is released when it returns). */
export function withExclusiveLock<T>(lockFile: string, use: LockUse, fn: () => T): T {
  const { shown: displayName, what, code } = use;
  const waitMs = use.waitMs ?? DEFAULT_LOCK_WAIT_MS;
  if (held.has(lockFile)) {
    throw kernelError(code, `${displayName}: ${what} is already held by this thread (a nested change)`, { internal: true });
  }
  const token = `${process.pid} ${threadId} ${randomBytes(8).toString('hex')}\n`;
  const deadline = Date.now() + waitMs;
  for (;;) {
    if (tryCreate(lockFile, token)) break;
    const holder = readHolder(lockFile);
    if (holder === undefined) continue;
    if (isStale(holder)) {
      breakStale(lockFile, holder.content);
      continue;
    }
    if (Date.now() >= deadline) {
      throw kernelError(code, `${displayName}: ${what} has been held by pid ${holder.pid ?? '?'} for over ${waitMs} ms; try again`, {
        details: { file: displayName, pid: holder.pid },
      });
    }
    Atomics.wait(sleeper, 0, 0, 2);
  }
  held.add(lockFile);
  try {
    return fn();
  } finally {
    held.delete(lockFile);
    // Only our own lock is removed: a lock someone else holds is never touched.
    if (readHolder(lockFile)?.content === token) unlinkQuietly(lockFile);
  }
}
