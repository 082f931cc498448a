/**
 * replaceFileDurably (kernel/persistence/storage.ts) with `directorySync: 'when-new'`, done
 * off the main thread: temp file, write, fsync, rename, and a directory fsync only when the
 * file is new. Same steps, same bytes, same crash guarantees (old or new file, never half of
 * one; the new one once the promise resolves, against kill -9).
 *
 * Why: brain.json is rewritten every cycle, and its fsync on the main thread (about 0.6 ms
 * here) stops every other persona of the process while the disk works. Through libuv's pool
 * the personas' brain writes overlap each other and the next personas' CPU.
 *
 * The callback-style node:fs functions are used (not fs/promises) so the bench's cycle
 * census, which wraps node:fs, sees these parts too and its raw floor can do the same.
 */
import { close, existsSync, fsync, mkdirSync, open, rename, write } from 'node:fs';
import path from 'node:path';
import { syncDirectory } from '../../kernel/events/repair.ts';

function openAsync(file: string): Promise<number> {
  return new Promise((resolve, reject) => open(file, 'w', 0o644, (error, fd) => (error ? reject(error) : resolve(fd))));
}
function writeAsync(fd: number, bytes: Buffer, offset: number): Promise<number> {
  return new Promise((resolve, reject) => write(fd, bytes, offset, bytes.length - offset, null, (error, written) => (error ? reject(error) : resolve(written))));
}
function done(resolve: () => void, reject: (error: unknown) => void) {
  return (error: NodeJS.ErrnoException | null) => (error ? reject(error) : resolve());
}

export async function replaceFileDurablyAsync(file: string, text: string): Promise<void> {
  const bytes = Buffer.from(text, 'utf8');
  const dir = path.dirname(file);
  // The folder is there on every cycle but the first: ask before creating (mkdir would also stat).
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  // The create, the fsync and the rename all wait on the file system's journal, which the
  // other personas' fsyncs keep busy (each took 0.2-0.3 ms on the main thread at 100
  // personas); the pool waits for them instead.
  const fd = await openAsync(tmp);
  try {
    let written = 0;
    while (written < bytes.length) written += await writeAsync(fd, bytes, written);
    await new Promise<void>((resolve, reject) => fsync(fd, done(resolve, reject)));
  } finally {
    await new Promise<void>((resolve, reject) => close(fd, done(resolve, reject)));
  }
  const existed = existsSync(file);
  await new Promise<void>((resolve, reject) => rename(tmp, file, done(resolve, reject)));
  // As replaceFileDurably's 'when-new': the rename is complete in the OS once it returns
  // (kill -9 finds the new file); a new directory entry is also made durable against power loss.
  if (!existed) syncDirectory(dir);
}
