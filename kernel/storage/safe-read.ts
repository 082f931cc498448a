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
 * (The broker's own file ops get the same rules from the sandbox work; this module is the
 * kernel's side and is meant to be the one helper both use.)
 */
import { closeSync, constants, fstatSync, openSync, readSync, readlinkSync, realpathSync, type Stats } from 'node:fs';
import path from 'node:path';
import { kernelError } from '../errors.ts';

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
  if (stat.isDirectory()) return 'a folder';
  if (stat.isFIFO()) return 'a FIFO (named pipe)';
  if (stat.isSocket()) return 'a socket';
  if (stat.isCharacterDevice()) return 'a character device';
  if (stat.isBlockDevice()) return 'a block device';
  if (stat.isSymbolicLink()) return 'a symbolic link';
  return 'not a regular file';
}

const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

function refuse(shown: string, what: string, cause?: unknown): never {
  throw kernelError('RTC_ERR_FS_ACCESS', `${shown}: ${what}`, { details: { file: shown }, ...(cause === undefined ? {} : { cause }) });
}

/** The real path of an open descriptor (Linux: /proc/self/fd), else of the name. */
function realPathOf(fd: number, file: string): string {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return realpathSync(file);
  }
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

/**
 * The bytes of `file`, or undefined when it does not exist. Throws one line for anything
 * else: not a regular file, over the cap, outside `within`, or unreadable.
 */
export function readFileCapped(file: string, options: SafeReadOptions): Buffer | undefined {
  const shown = options.shown ?? file;
  let fd: number;
  try {
    fd = openSync(file, OPEN_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ENOTDIR') refuse(shown, 'a folder on its path is a file', error);
    if (code === 'EACCES' || code === 'EPERM') refuse(shown, 'permission denied', error);
    if (code === 'ENXIO') refuse(shown, 'is a socket or a device without a reader, not a regular file', error);
    if (code === 'ELOOP') refuse(shown, 'too many levels of symbolic links', error);
    refuse(shown, `cannot be opened (${code ?? (error as Error).message})`, error);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) refuse(shown, `is ${fileKind(stat)}, not a regular file; it was not read`);
    if (options.within !== undefined && !isInside(realPathOf(fd, file), options.within)) {
      refuse(shown, `leads outside ${options.within} (through a symbolic link); it was not read`);
    }
    if (stat.size > options.maxBytes) refuse(shown, `${stat.size} bytes is over the ${options.maxBytes}-byte cap; it was not read`);
    // Read to the end, but never more than one byte past the cap: a file that grows while it
    // is read (or lies about its size) is refused, not taken in whole.
    const chunks: Buffer[] = [];
    let total = 0;
    const chunkSize = Math.max(1, Math.min(stat.size + 1, 1 << 20));
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(chunkSize, options.maxBytes + 1 - total));
      let n: number;
      try {
        n = readSync(fd, chunk, 0, chunk.length, total);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EAGAIN') refuse(shown, 'would block; it was not read', error);
        throw error;
      }
      if (n === 0) break;
      chunks.push(n === chunk.length ? chunk : chunk.subarray(0, n));
      total += n;
      if (total > options.maxBytes) refuse(shown, `grew past the ${options.maxBytes}-byte cap while it was read; it was not used`);
    }
    return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
  } finally {
    closeSync(fd);
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
