/**
 * Opening a file the way a long-running kernel must: never blocking its main thread, never
 * reading without bound. Used by the broker's file ops (what a sandboxed script reads and
 * writes, sandboxes/deno/ops/fs*.ts) and by features reading files they do not control.
 * The checks and the capped read are the kernel's (kernel/storage/safe-read.ts, which the
 * kernel's own reads on a persona's behalf use directly); this module adds opens that follow
 * no link (`noFollow`, through no-follow.ts), descriptors kept open, and writes.
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
import { closeSync, constants, fchmodSync, fstatSync, ftruncateSync, openSync, statSync, lstatSync, writeSync, type Stats } from 'node:fs';
import path from 'node:path';
import { readRegularFile as readCapped, refuseKind, sameFile, type RegularFileOptions } from '../../kernel/storage/safe-read.ts';
import { inHeld, withParentHeld } from './no-follow.ts';

const { O_WRONLY, O_RDWR, O_CREAT, O_EXCL, O_APPEND, O_NONBLOCK, O_NOCTTY, O_NOFOLLOW } = constants;

export { fileKind, UnsafeFileError, type UnsafeFileReason } from '../../kernel/storage/unsafe-file.ts';

/** `stats` and `acceptDevice` as kernel/storage/safe-read.ts's readRegularFile takes them (what the check is against). */
export interface OpenOptions extends Omit<RegularFileOptions, 'open'> {
  /**
   * the path was resolved by the caller (no link in any part): open it without following a
   * link anywhere, each folder on its way held by descriptor (no-follow.ts), so a folder
   * swapped for a link after the caller's check is refused, not followed
   */
  noFollow?: boolean;
}

/** openSync, or under `noFollow` the same open with no link followed in any part of the path. */
function openPath(file: string, flags: number, noFollow: boolean | undefined, mode?: number): number {
  if (!noFollow || path.dirname(file) === file) return openSync(file, flags, mode);
  return withParentHeld(file, {}, (dirFd, name) => openSync(inHeld(dirFd, name), flags | O_NOFOLLOW, mode));
}

/** What the caller stat'ed, else the path's stat (lstat under `noFollow`: a link is refused, not followed). */
function statBefore(file: string, options: OpenOptions): Stats {
  return options.stats ?? (options.noFollow ? lstatSync(file) : statSync(file));
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
  const before = statBefore(file, options);
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
 * Reads a whole regular file of at most `cap` bytes: kernel/storage/safe-read.ts's
 * readRegularFile (the one capped read), opened under `noFollow` with no link followed. Throws
 * an ErrnoException for OS errors (ENOENT, EISDIR, EACCES, ELOOP with noFollow) and an
 * UnsafeFileError for what is not a regular file, too large, or swapped while opened.
 */
export function readRegularFile(file: string, cap: number, options: OpenOptions = {}): Buffer {
  const { noFollow, ...checks } = options;
  return readCapped(file, cap, { ...checks, stats: statBefore(file, options), open: (flags) => openPath(file, flags, noFollow) });
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
