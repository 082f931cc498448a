/**
 * A write lock for an append-only record file (the JSONL ledger), held only for the few
 * milliseconds of one committed change, so the kernel and a `runtimectl ledger` command can
 * both write the same file without interleaving records. It is a file created with O_EXCL holding the holder's pid.
 *
 * A lock whose holder is gone (a crash mid-change) is taken over. Because a change never
 * spans an await, a lock carrying this process's own pid is always a leftover from an
 * earlier process that had the same pid (common in containers, where the kernel is pid 1).
 */
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { kernelError } from '../errors.ts';

const WAIT_LIMIT_MS = 10_000;
const sleeper = new Int32Array(new SharedArrayBuffer(4));

function holderPid(lockFile: string): number | undefined {
  try {
    const pid = Number(readFileSync(lockFile, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function withFileLock<T>(lockFile: string, displayName: string, fn: () => T): T {
  // Wall-clock time bounds only how long we wait; it never enters the ledger.
  const deadline = Date.now() + WAIT_LIMIT_MS;
  for (;;) {
    try {
      const fd = openSync(lockFile, 'wx');
      try {
        writeSync(fd, String(process.pid));
      } finally {
        closeSync(fd);
      }
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const pid = holderPid(lockFile);
      if (pid !== undefined && !isAlive(pid)) {
        try {
          unlinkSync(lockFile);
        } catch {
          // another waiter removed it first
        }
        continue;
      }
      if (Date.now() > deadline) {
        throw kernelError('RTC_ERR_LEDGER_LOCKED', `${displayName}: the write lock has been held by pid ${pid ?? '?'} for over ${WAIT_LIMIT_MS / 1000}s`, {
          details: { file: displayName, pid },
        });
      }
      Atomics.wait(sleeper, 0, 0, 2);
    }
  }
  try {
    return fn();
  } finally {
    try {
      unlinkSync(lockFile);
    } catch {
      // already gone: nothing to release
    }
  }
}
