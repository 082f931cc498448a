/**
 * Opening a file the way a long-running kernel must: never blocking its main thread, never
 * reading without bound. Used by the broker's file ops (what a sandboxed script reads and
 * writes) and meant for every read the kernel does on a persona's behalf (inbox, dm queue,
 * profile, brain).
 *
 *  - what is not a regular file is refused *before* it is opened (a FIFO would block the
 *    open or the read; a tty, /dev/stdin, /dev/zero never end; opening some devices has
 *    effects of its own), and checked again on the descriptor, which must be the same inode
 *    the path named (a swap in between is refused, not followed);
 *  - every open is O_NONBLOCK and O_NOCTTY, and O_NOFOLLOW when the caller resolved the
 *    path itself (strict symlink checks);
 *  - a read is capped: a file above `cap` bytes is refused from its size without reading it,
 *    and a file that grows while read stops at the cap.
 * One open, one fstat and the reads: the fast path costs one stat more than a bare read.
 */
import { closeSync, constants, fchmodSync, fstatSync, ftruncateSync, openSync, readSync, statSync, lstatSync, writeSync, type Stats } from 'node:fs';
import path from 'node:path';
import { fileKind, UnsafeFileError } from './unsafe-file.ts';
import { inHeld, withParentHeld } from './no-follow.ts';

const { O_RDONLY, O_WRONLY, O_RDWR, O_CREAT, O_EXCL, O_APPEND, O_NONBLOCK, O_NOCTTY, O_NOFOLLOW } = constants;

export { fileKind, UnsafeFileError, type UnsafeFileReason } from './unsafe-file.ts';

function errno(code: string, path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: ${path}`), { code, path });
}

export interface OpenOptions {
  /**
   * the path was resolved by the caller (no link in any part): open it without following a
   * link anywhere, each folder on its way held by descriptor (no-follow.ts), so a folder
   * swapped for a link after the caller's check is refused, not followed
   */
  noFollow?: boolean;
  /** what the caller already stat'ed at this path (saves a stat) */
  stats?: Stats;
  /** also accept these non-regular files (e.g. /dev/null, or a folder opened to be stat'ed); they must never block */
  acceptDevice?: (s: Stats) => boolean;
}

/** openSync, or under `noFollow` the same open with no link followed in any part of the path. */
function openPath(file: string, flags: number, noFollow: boolean | undefined, mode?: number): number {
  if (!noFollow || path.dirname(file) === file) return openSync(file, flags, mode);
  return withParentHeld(file, {}, (dirFd, name) => openSync(inHeld(dirFd, name), flags | O_NOFOLLOW, mode));
}

function refuseKind(file: string, s: Stats, accept: OpenOptions['acceptDevice'], doing: string): void {
  if (s.isDirectory() && !accept?.(s)) throw errno('EISDIR', file);
  if (!s.isFile() && !accept?.(s)) throw new UnsafeFileError('not-regular', file, fileKind(s), `${file} is a ${fileKind(s)}, not a regular file: the kernel ${doing} only regular files`);
}

function sameFile(fd: number, file: string, before: Stats, accept: OpenOptions['acceptDevice'], doing: string): Stats {
  const after = fstatSync(fd);
  if (after.dev !== before.dev || after.ino !== before.ino) throw new UnsafeFileError('changed', file, fileKind(after), `${file} was replaced while it was being opened`);
  refuseKind(file, after, accept, doing);
  return after;
}

export interface OpenedFile {
  fd: number;
  /** what the descriptor is (fstat) */
  stats: Stats;
}

/**
 * Opens a regular file (or an accepted device) to keep its descriptor (Deno.open, copyFile):
 * `flags` is the access mode plus O_APPEND; O_NONBLOCK and O_NOCTTY are always added. An
 * existing file is checked before the open and again on the descriptor (same inode); with
 * `create` the file must not exist and is made with O_EXCL|O_NOFOLLOW. Never O_TRUNC: a
 * caller truncates once the descriptor is checked.
 */
export function openRegularFile(file: string, flags: number, options: OpenOptions & { create?: boolean; mode?: number } = {}): OpenedFile {
  if (options.create) {
    const fd = openPath(file, flags | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, options.noFollow, options.mode ?? 0o666);
    return { fd, stats: fstatSync(fd) };
  }
  const doing = flags & (O_WRONLY | O_RDWR) ? 'writes' : 'reads';
  const before = options.stats ?? (options.noFollow ? lstatSync(file) : statSync(file));
  refuseKind(file, before, options.acceptDevice, doing);
  const fd = openPath(file, flags | O_NONBLOCK | O_NOCTTY, options.noFollow);
  try {
    return { fd, stats: sameFile(fd, file, before, options.acceptDevice, doing) };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/**
 * Reads a whole regular file of at most `cap` bytes. Throws an ErrnoException for OS
 * errors (ENOENT, EISDIR, EACCES, ELOOP with noFollow) and an UnsafeFileError for what is
 * not a regular file, too large, or swapped while opened.
 */
export function readRegularFile(file: string, cap: number, options: OpenOptions = {}): Buffer {
  const before = options.stats ?? (options.noFollow ? lstatSync(file) : statSync(file));
  refuseKind(file, before, options.acceptDevice, 'reads');
  if (before.size > cap) throw new UnsafeFileError('too-large', file, 'regular file', `${file} has ${before.size} bytes, more than the cap of ${cap} bytes`, before.size);
  const fd = openPath(file, O_RDONLY | O_NONBLOCK | O_NOCTTY, options.noFollow);
  try {
    const stats = sameFile(fd, file, before, options.acceptDevice, 'reads');
    if (stats.size > cap) throw new UnsafeFileError('too-large', file, 'regular file', `${file} has ${stats.size} bytes, more than the cap of ${cap} bytes`, stats.size);
    // The size is a hint (files under /proc say 0, files grow): read to EOF, bounded by the cap.
    let buffer = Buffer.allocUnsafe(Math.min(cap, stats.size) + 1);
    let total = 0;
    for (;;) {
      if (total === buffer.length) {
        if (total > cap) break;
        const bigger = Buffer.allocUnsafe(Math.min(cap + 1, Math.max(65536, buffer.length * 2)));
        buffer.copy(bigger, 0, 0, total);
        buffer = bigger;
      }
      const n = readSync(fd, buffer, total, buffer.length - total, null);
      if (n === 0) break;
      total += n;
    }
    if (total > cap) throw new UnsafeFileError('too-large', file, 'regular file', `${file} grew past the cap of ${cap} bytes while it was read`);
    return buffer.subarray(0, total);
  } finally {
    closeSync(fd);
  }
}

export interface WriteOptions extends OpenOptions {
  append: boolean;
  /** the file does not exist (the caller checked): create it, never following a link */
  create: boolean;
  /** permission bits for a new file (before the umask) */
  mode?: number;
  /** permission bits the file gets whether new or not, regardless of the umask (Deno's writeFile `mode`) */
  chmod?: number;
}

/**
 * Writes `data` to a regular file (or an accepted device), without blocking: an existing
 * file is opened without O_TRUNC and truncated only once the descriptor is checked; a new
 * one is created with O_EXCL|O_NOFOLLOW, so a link planted in its place is never followed.
 */
export function writeRegularFile(file: string, data: Uint8Array, options: WriteOptions): void {
  const { fd, stats } = openRegularFile(file, O_WRONLY | (options.append ? O_APPEND : 0), options);
  try {
    if (options.chmod !== undefined && stats.isFile()) fchmodSync(fd, options.chmod & 0o7777);
    if (!options.create && stats.isFile() && !options.append) ftruncateSync(fd, 0);
    let offset = 0;
    while (offset < data.length) offset += writeSync(fd, data, offset, data.length - offset);
  } finally {
    closeSync(fd);
  }
}
