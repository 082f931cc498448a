/**
 * Cutting off a torn last line, without losing it: the bytes are first saved beside the log
 * as `events.jsonl.torn-<seq>` and synced, and only then is the log truncated. Nothing
 * else in a log is ever rewritten.
 */
import { closeSync, fsyncSync, ftruncateSync, openSync, readFileSync } from 'node:fs';
import { syncDirectory, writeAllSyncClose } from '../storage/durable-files.ts';
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
