/**
 * The one durable writer: the steps every store shares, written once. An append that is
 * synced before it returns (and a new file's directory entry too), a whole-file replace
 * through a temp file, fsync, rename and (by default) a directory fsync, in this thread or in
 * Node's thread pool, and the two primitives under them (write all, fsync and close; fsync a
 * directory). The event log's seal, the history's segments and index, the trace store, the
 * review queue's log and the storage bindings all write through these.
 */
import { openRegular } from './safe-read.ts';
import { close, closeSync, existsSync, fsync, fsyncSync, mkdirSync, open, openSync, rename, renameSync, write, writeSync, constants } from 'node:fs';
import path from 'node:path';

export function appendFileDurably(file: string, data: string | Buffer): void {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  const dir = path.dirname(file);
  const created = !existsSync(file);
  mkdirSync(dir, { recursive: true });
  const fd = openRegular(file, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT, 0o644)!;
  writeAllSyncClose(fd, bytes);
  if (created) syncDirectory(dir);
}

export interface ReplaceOptions {
  /**
   * 'always' (the default) fsyncs the directory after the rename, so the new version survives
   * a power loss. 'when-new' skips it when the file already existed: for state rewritten every
   * cycle (brain.json) where the previous complete version after a power loss is acceptable.
   */
  directorySync?: 'always' | 'when-new';
  /** the temp file's name (default `<file>.<pid>.tmp`): a name a later open looks for (the seal's) */
  tmp?: string;
}

/** The steps both replacements share: the bytes, the folder (created if missing), the temp file's name. */
function replacement(file: string, data: string | Buffer, options: ReplaceOptions): { bytes: Buffer; dir: string; tmp: string } {
  const dir = path.dirname(file);
  // The folder almost always exists (brain.json, every cycle): a stat, not a mkdir and a stat.
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true });
  return { bytes: typeof data === 'string' ? Buffer.from(data, 'utf8') : data, dir, tmp: options.tmp ?? `${file}.${process.pid}.tmp` };
}

/**
 * Whether the directory is fsynced after the rename (asked before it). The directory fsync
 * makes the rename itself durable. With 'when-new' over an existing entry it is skipped (one
 * fsync less per cycle): the rename is complete in the OS when it returns, so a kill -9 of
 * this process finds the new file; only a power or OS crash can lose a rename not yet written
 * back, and then the entry still names the old, complete file (the new bytes were fsynced
 * before the rename), never half of one.
 */
function syncsDirectory(file: string, options: ReplaceOptions): boolean {
  return options.directorySync !== 'when-new' || !existsSync(file);
}

export function replaceFileDurably(file: string, data: string | Buffer, options: ReplaceOptions = {}): void {
  const { bytes, dir, tmp } = replacement(file, data, options);
  writeAllSyncClose(openSync(tmp, 'w', 0o644), bytes);
  const syncDir = syncsDirectory(file, options);
  renameSync(tmp, file);
  if (syncDir) syncDirectory(dir);
}

/** A node:fs callback as a promise. */
function settle<T>(start: (done: (error: NodeJS.ErrnoException | null, value?: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => start((error, value) => (error ? reject(error) : resolve(value as T))));
}

/**
 * replaceFileDurably with the open, write, fsync, close and rename in Node's thread pool, so
 * a persona's fsync does not hold the main thread (and the other personas' cycles). The
 * callback-style node:fs functions are used, not fs/promises, so the bench's cycle census,
 * which wraps node:fs, sees these parts too.
 */
export async function replaceFileDurablyAsync(file: string, data: string | Buffer, options: ReplaceOptions = {}): Promise<void> {
  const { bytes, dir, tmp } = replacement(file, data, options);
  const fd = await settle<number>((done) => open(tmp, 'w', 0o644, done));
  try {
    let written = 0;
    while (written < bytes.length) {
      const from = written;
      written += await settle<number>((done) => write(fd, bytes, from, bytes.length - from, null, done));
    }
    await settle((done) => fsync(fd, done));
  } finally {
    await settle((done) => close(fd, done));
  }
  const syncDir = syncsDirectory(file, options);
  await settle((done) => rename(tmp, file, done));
  if (syncDir) syncDirectory(dir);
}

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

/** Makes a new directory entry durable (a created file survives power loss, not just kill -9). */
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
