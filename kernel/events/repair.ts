/**
 * Cutting off a torn last line, without losing it: the bytes are first saved beside the log
 * as `events.jsonl.torn-<seq>` and synced, and only then is the log truncated. Nothing
 * else in a log is ever rewritten.
 */
import { closeSync, fsyncSync, ftruncateSync, openSync, readFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import type { TornTail } from './scan.ts';

export interface Repair {
  /** File name of the saved bytes, beside the log (a name, not a host path). */
  savedAs: string;
  removedBytes: number;
  /** Where the torn line began; the log's new length. */
  offset: number;
  line: number;
}

export function cutTornTail(file: string, torn: TornTail, seq: number): Repair {
  const savedAs = saveEvidence(file, torn.bytes, seq);
  const fd = openSync(file, 'r+');
  try {
    ftruncateSync(fd, torn.offset);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return { savedAs, removedBytes: torn.bytes.length, offset: torn.offset, line: torn.line };
}

/** Writes the bytes to a new file (never over an old one, unless it holds the same bytes: a repair cut short). */
function saveEvidence(file: string, bytes: Buffer, seq: number): string {
  const base = `${path.basename(file)}.torn-${seq}`;
  for (let attempt = 1; ; attempt++) {
    const name = attempt === 1 ? base : `${base}.${attempt}`;
    const target = path.join(path.dirname(file), name);
    let fd: number;
    try {
      fd = openSync(target, 'wx');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (readFileSync(target).equals(bytes)) return name;
      continue;
    }
    writeAllSyncClose(fd, bytes);
    syncDirectory(path.dirname(file));
    return name;
  }
}

/** Makes a new directory entry durable (a created file survives power loss, not just kill -9). */
/** Writes every byte to `fd`, fsyncs it and closes it (closing even when a write fails). */
export function writeAllSyncClose(fd: number, bytes: Uint8Array): void {
  try {
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export function syncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // Some file systems refuse fsync on a directory; the data itself is already synced.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
