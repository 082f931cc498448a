/**
 * Reading a file the kernel does not control (a persona's inbox packet, its message queue,
 * brain.json, long-term memory, proposal records, a profile, a manifest) without letting the
 * file decide how long the kernel's main thread waits or how much memory it takes.
 *
 * - The open is non-blocking (O_NONBLOCK | O_NOCTTY): a FIFO opens at once instead of
 *   waiting for a writer, and no terminal becomes the kernel's.
 * - What was opened is checked on the descriptor (fstat), not on the name, so a file swapped
 *   between a check and the open is still caught: anything but a regular file (a FIFO, a
 *   socket, /dev/zero or another device, a folder) is refused before a byte is read.
 * - The size is capped: a file over `maxBytes` is refused by its size, and at most
 *   `maxBytes + 1` bytes are ever read, so a file that grows while being read is refused too.
 * - `within` (optional): the file, as opened through every link, must lie inside this folder.
 *   The kernel reads a persona's inbox on the persona's behalf; a planted link to a file of the
 *   host's would otherwise hand that file to the persona's executor.
 *
 * Failures are KernelErrors with one line naming the file and what is wrong
 * (RTC_ERR_FS_ACCESS), or undefined for a missing file where the caller says missing is fine.
 *
 * The read itself is readRegularFile below, the one capped read of a regular file: the
 * broker's file ops use it too, through sandboxes/fs-safety/safe-open.ts (which adds opens
 * that follow no link, descriptors kept open, and writes). This module adds what the kernel's
 * own reads need on top (a missing file is undefined, a refusal is a KernelError line,
 * `within`), and the same rules for appends and streams.
 */
import { closeSync, constants, fstatSync, openSync, readSync, realpathSync, statSync, type Stats } from 'node:fs';
import path from 'node:path';
import { kernelError } from '../errors.ts';
import { fileKind as kindOf, UnsafeFileError } from './unsafe-file.ts';

const { O_RDONLY, O_NONBLOCK, O_NOCTTY } = constants;

function errno(code: string, path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: ${path}`), { code, path });
}

export interface RegularFileOptions {
  /** what the caller already stat'ed at this path (saves a stat) */
  stats?: Stats;
  /** also accept these non-regular files (e.g. /dev/null, or a folder opened to be stat'ed); they must never block */
  acceptDevice?: (s: Stats) => boolean;
  /** how the path is opened (default openSync; the broker's noFollow open: sandboxes/fs-safety/safe-open.ts) */
  open?: (flags: number) => number;
}

/** Refuses what is not a regular file (or an accepted device): EISDIR for a folder, UnsafeFileError `not-regular` for the rest. */
export function refuseKind(file: string, s: Stats, accept: RegularFileOptions['acceptDevice'], doing: string): void {
  if (s.isDirectory() && !accept?.(s)) throw errno('EISDIR', file);
  if (!s.isFile() && !accept?.(s)) throw new UnsafeFileError('not-regular', file, kindOf(s), `${file} is a ${kindOf(s)}, not a regular file: the kernel ${doing} only regular files`);
}

/** The descriptor's fstat, checked: the inode the caller stat'ed (`changed` otherwise), and of a kind refuseKind accepts. */
export function sameFile(fd: number, file: string, before: Stats, accept: RegularFileOptions['acceptDevice'], doing: string): Stats {
  const after = fstatSync(fd);
  if (after.dev !== before.dev || after.ino !== before.ino) throw new UnsafeFileError('changed', file, kindOf(after), `${file} was replaced while it was being opened`);
  refuseKind(file, after, accept, doing);
  return after;
}

/**
 * Reads a whole regular file of at most `cap` bytes: what is not a regular file is refused
 * before it is opened and again on the descriptor (the same inode), the open is O_NONBLOCK
 * and O_NOCTTY, a file above `cap` is refused from its size, and at most `cap + 1` bytes are
 * read. Throws an ErrnoException for OS errors (ENOENT, EISDIR, EACCES, ELOOP with a no-follow
 * open) and an UnsafeFileError for what is not a regular file, too large, or swapped while opened.
 */
export function readRegularFile(file: string, cap: number, options: RegularFileOptions = {}): Buffer {
  const before = options.stats ?? statSync(file);
  refuseKind(file, before, options.acceptDevice, 'reads');
  if (before.size > cap) throw new UnsafeFileError('too-large', file, 'regular file', `${file} has ${before.size} bytes, more than the cap of ${cap} bytes`, before.size);
  const flags = O_RDONLY | O_NONBLOCK | O_NOCTTY;
  const fd = options.open ? options.open(flags) : openSync(file, flags);
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

export interface SafeReadOptions {
  /** refuse a file larger than this many bytes */
  maxBytes: number;
  /** the file must resolve inside this folder (absolute) */
  within?: string;
  /** how messages name the file (default: its path) */
  shown?: string;
}

/** What a non-regular file is, for the one-line refusal. */
export function fileKind(stat: Stats): string {
  return kindInProse(kindOf(stat));
}

function refuse(shown: string, what: string, cause?: unknown): never {
  throw kernelError('RTC_ERR_FS_ACCESS', `${shown}: ${what}`, { details: { file: shown }, ...(cause === undefined ? {} : { cause }) });
}

function isInside(file: string, dir: string): boolean {
  let root: string;
  try {
    root = realpathSync(dir);
  } catch {
    root = path.resolve(dir);
  }
  const relative = path.relative(root, file);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/** How the one-line refusals name a kind of file (unsafe-file.ts's fileKind words, in prose). */
function kindInProse(kind: string): string {
  switch (kind) {
    case 'FIFO':
      return 'a FIFO (named pipe)';
    case 'directory':
      return 'a folder';
    case 'symbolic link':
      return 'a symbolic link';
    default:
      return `a ${kind}`;
  }
}

/**
 * The bytes of `file`, or undefined when it does not exist. Throws one line for anything
 * else: not a regular file, over the cap, outside `within`, or unreadable. The read itself is
 * readRegularFile above (the broker's file ops use the same): checked before the open and
 * again on the descriptor, non-blocking, capped.
 */
export function readFileCapped(file: string, options: SafeReadOptions): Buffer | undefined {
  const shown = options.shown ?? file;
  if (options.within !== undefined) {
    let real: string | undefined;
    try {
      real = realpathSync(file);
    } catch {
      real = undefined;
    }
    if (real !== undefined && !isInside(real, options.within)) refuse(shown, `leads outside ${options.within} (through a symbolic link); it was not read`);
  }
  try {
    return readRegularFile(file, options.maxBytes);
  } catch (error) {
    if (error instanceof UnsafeFileError) {
      if (error.reason === 'not-regular') refuse(shown, `is ${kindInProse(error.kind)}, not a regular file; it was not read`, error);
      if (error.reason === 'changed') refuse(shown, 'was replaced while it was being opened; it was not read', error);
      if (error.size !== undefined) refuse(shown, `${error.size} bytes is over the ${options.maxBytes}-byte cap; it was not read`, error);
      refuse(shown, `grew past the ${options.maxBytes}-byte cap while it was read; it was not used`, error);
    }
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'EISDIR') refuse(shown, 'is a folder, not a regular file; it was not read', error);
    if (code === 'ENOTDIR') refuse(shown, 'a folder on its path is a file', error);
    if (code === 'EACCES' || code === 'EPERM') refuse(shown, 'permission denied', error);
    if (code === 'ENXIO') refuse(shown, 'is a socket or a device without a reader, not a regular file', error);
    if (code === 'ELOOP') refuse(shown, 'too many levels of symbolic links', error);
    if (code === 'EAGAIN') refuse(shown, 'would block; it was not read', error);
    refuse(shown, `cannot be read (${code ?? (error as Error).message})`, error);
  }
}

/** readFileCapped as UTF-8 text. */
export function readTextCapped(file: string, options: SafeReadOptions): string | undefined {
  return readFileCapped(file, options)?.toString('utf8');
}

/**
 * openSync(file, flags, mode) that cannot block on, or write into, something other than a
 * regular file: the same non-blocking open (a FIFO without a reader is refused at once, with
 * ENXIO, instead of hanging the kernel) and the same check on the descriptor. For the files
 * the kernel appends to or streams (event logs, traces, proposal logs, ledgers), which have
 * no useful size cap. Undefined for a missing file when `flags` does not create it.
 */
export function openRegular(file: string, flags: number, mode?: number, shown = file): number | undefined {
  let fd: number;
  try {
    fd = openSync(file, flags | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0), mode);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && (flags & constants.O_CREAT) === 0) return undefined;
    if (code === 'ENXIO') refuse(shown, 'is a FIFO or a device, not a regular file; it was not opened', error);
    if (code === 'EISDIR') refuse(shown, 'is a folder, not a regular file; it was not opened', error);
    throw error;
  }
  let stat: Stats;
  try {
    stat = fstatSync(fd);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  if (!stat.isFile()) {
    closeSync(fd);
    refuse(shown, `is ${fileKind(stat)}, not a regular file; it was not ${(flags & (constants.O_WRONLY | constants.O_RDWR)) !== 0 ? 'written' : 'read'}`);
  }
  return fd;
}

/** openRegular for reading. */
export function openRegularFile(file: string, shown = file): number | undefined {
  return openRegular(file, constants.O_RDONLY, undefined, shown);
}

/** Caps for the files the kernel reads for a persona (see where each is used). */
export const READ_CAPS = {
  /** a persona profile, a plugin manifest, any YAML/JSON config the kernel parses */
  manifest: 1024 * 1024,
  /** brain.json: bounded by its own caps (100 pending items of 8 KiB, 5,000 keys) */
  brain: 8 * 1024 * 1024,
  /** dm/queue.jsonl: read whole every cycle that it changed */
  dmQueue: 16 * 1024 * 1024,
  /** long-term.md: grows by reviewed promotions of at most 64 KiB each */
  longTerm: 64 * 1024 * 1024,
} as const;
