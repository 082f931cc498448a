/**
 * Who holds a persona's writer lock, as its record beside the lock says (`writer.lock.json`:
 * pid, start time from /proc/<pid>/stat, host, purpose), and whether that process still runs.
 * Apart from the lock itself (writer-lock.ts, which loads the native SQLite driver) so that
 * what only reads the record (the tool relay's pointer check in `mcp serve`'s first moments)
 * loads nothing else.
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { WriterHolder } from '../../../kernel/contracts/persistence.ts';
import { processStartTime } from '../../../sandboxes/subprocess/os-sandbox/process-tree.ts';

export const WRITER_HOLDER_FILE = 'writer.lock.json';

/** Linux's USER_HZ, the unit of /proc/<pid>/stat start times (100 on every Linux ABI). */
const CLOCK_TICKS_PER_SECOND = 100;

/** Field 22 of /proc/<pid>/stat, or null where there is no /proc (or no such process): the OS sandbox's reading of it. */
export function processStartTicks(pid: number): number | null {
  return processStartTime(pid) ?? null;
}

function bootTimeMs(): number | null {
  try {
    const line = /^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'));
    return line ? Number(line[1]) * 1000 : null;
  } catch {
    return null;
  }
}

/** This process as a holder record. */
export function selfHolder(purpose: string, now = new Date()): WriterHolder {
  const ticks = processStartTicks(process.pid);
  const boot = bootTimeMs();
  const startedMs = ticks !== null && boot !== null ? boot + (ticks * 1000) / CLOCK_TICKS_PER_SECOND : Date.now() - process.uptime() * 1000;
  return { pid: process.pid, started_at: new Date(Math.floor(startedMs)).toISOString(), start_ticks: ticks, host: os.hostname(), purpose, since: now.toISOString() };
}

/** True when the record names a process that is running now (same pid and start time, on this host). */
export function holderIsRunning(holder: WriterHolder): boolean {
  if (holder.host !== os.hostname()) return false;
  const ticks = processStartTicks(holder.pid);
  if (ticks === null) return false;
  return holder.start_ticks === null || ticks === holder.start_ticks;
}

/** The holder record beside the lock (information only: the fcntl lock alone decides). */
export function readWriterHolder(personaDir: string): WriterHolder | undefined {
  try {
    const value = JSON.parse(readFileSync(path.join(personaDir, WRITER_HOLDER_FILE), 'utf8')) as Partial<WriterHolder>;
    if (typeof value.pid !== 'number' || typeof value.started_at !== 'string') return undefined;
    return { pid: value.pid, started_at: value.started_at, start_ticks: typeof value.start_ticks === 'number' ? value.start_ticks : null, host: String(value.host ?? ''), purpose: String(value.purpose ?? ''), since: String(value.since ?? '') };
  } catch {
    return undefined;
  }
}
