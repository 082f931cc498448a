/**
 * The kernel's one way to read and write files in a folder that sandboxed code can write: an
 * executor session's folder, a persona's workspace and provider homes, anything a plugin's
 * children were granted. Such code can leave links behind for the kernel to write through: a
 * symbolic link in place of a file (`stdout.txt -> bin/runtimectl.js`), a folder replaced by a
 * link (`manifests -> /etc`), a hard link to a file outside, or a swap between the kernel's
 * check and its use. Nothing here follows any of them:
 *
 *  - a path is walked one folder at a time from a trusted anchor (a folder no sandboxed code
 *    can write: the state directory, or `/` for a path already resolved), each step opened
 *    with O_NOFOLLOW|O_DIRECTORY relative to the folder before it (Node has no openat: the
 *    step opens `/proc/self/fd/<held folder>/<name>`, which Linux resolves from the held
 *    descriptor, not from a path that could have changed). A link in any step is refused;
 *  - the file itself is opened with O_NOFOLLOW|O_NONBLOCK|O_NOCTTY in the held folder and
 *    checked on its descriptor (fstat): a regular file with one link. A hard link (nlink > 1)
 *    is refused for reads and in-place writes; a FIFO or device is never opened blocking;
 *  - a whole-file write goes to a fresh temp file (O_CREAT|O_EXCL|O_NOFOLLOW) and is renamed
 *    over the name inside the held folder: whatever stood there (a link, a hard link) is
 *    replaced as a directory entry and never written through.
 *
 * Refusals are UnsafeFileError (reason `link`, `hard-link`, `not-regular`) for the broker's
 * ops, and one line with RTC_ERR_FS_LINK_REFUSED / RTC_ERR_FS_ACCESS through the kernel-side
 * helpers at the bottom (writeFileBeneath, readFileBeneath, removeBeneath).
 */
import { randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, fsyncSync, lstatSync, mkdirSync, openSync, readdirSync, readSync, renameSync, rmdirSync, unlinkSync, writeSync, type Stats } from 'node:fs';
import path from 'node:path';
import { kernelError, type KernelError } from '../../kernel/errors.ts';
import { fileKind, UnsafeFileError } from '../../kernel/storage/unsafe-file.ts';

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_APPEND, O_NONBLOCK, O_NOCTTY, O_NOFOLLOW, O_DIRECTORY } = constants;

/** `/proc/self/fd/<fd>/<name>`: `name` looked up in the folder the descriptor holds, whatever its path is now. */
export function inHeld(dirFd: number, name?: string): string {
  return name === undefined ? `/proc/self/fd/${dirFd}` : `/proc/self/fd/${dirFd}/${name}`;
}

function isLinkError(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ELOOP' || code === 'EMLINK';
}

/** A link where a folder or the file was expected; `path` is the part of the path that is the link. */
function linkRefused(part: string): UnsafeFileError {
  return new UnsafeFileError('link', part, 'symbolic link', `${part} is a symbolic link; the kernel follows no link in a folder sandboxed code can write`);
}

function hardLinkRefused(file: string, links: number): UnsafeFileError {
  return new UnsafeFileError('hard-link', file, 'regular file', `${file} has ${links} hard links (it is also another path); the kernel writes no such file in a folder sandboxed code can write`);
}

/** The entry at `name` in the held folder, when an open failed in a way that needs a second look. */
function entryIn(dirFd: number, name: string): Stats | undefined {
  try {
    return lstatSync(inHeld(dirFd, name));
  } catch {
    return undefined;
  }
}

function checkName(name: string, shown: string): void {
  if (name === '' || name === '.' || name === '..' || name.includes('/') || name.includes('\0')) {
    throw Object.assign(new Error(`EINVAL: ${shown}: "${name}" is not a plain file name`), { code: 'EINVAL', path: shown });
  }
}

/** The parts of `target` below `anchor`, or a throw when it is not beneath it. */
function partsBelow(anchor: string, target: string): string[] {
  const relative = path.relative(anchor, target);
  if (relative === '') return [];
  if (relative.startsWith('..') || path.isAbsolute(relative)) {
    throw Object.assign(new Error(`EINVAL: ${target} is not beneath ${anchor}`), { code: 'EINVAL', path: target });
  }
  return relative.split(path.sep);
}

export interface DirOptions {
  /** a folder no sandboxed code can write, opened as it is (links in its own path are the operator's); default `/` */
  anchor?: string;
  /** create missing folders on the way (each one in the folder held before it) */
  create?: boolean;
  /** permission bits of a created folder */
  mode?: number;
}

/**
 * A descriptor of the folder `dir`, reached from `anchor` one step at a time without following
 * any link (see the module comment). The caller closes it. Throws UnsafeFileError `link` for a
 * link on the way, an ErrnoException (ENOENT, ENOTDIR, EACCES) otherwise.
 */
export function openDirNoFollow(dir: string, options: DirOptions = {}): number {
  const anchor = path.resolve(options.anchor ?? '/');
  const target = path.resolve(dir);
  const parts = partsBelow(anchor, target);
  let fd = openSync(anchor, O_RDONLY | O_DIRECTORY | O_NONBLOCK);
  let at = anchor;
  try {
    for (const part of parts) {
      at = path.join(at, part);
      if (options.create) {
        try {
          mkdirSync(inHeld(fd, part), { mode: options.mode ?? 0o777 });
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        }
      }
      let next: number;
      try {
        next = openSync(inHeld(fd, part), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (isLinkError(error) || (code === 'ENOTDIR' && entryIn(fd, part)?.isSymbolicLink())) throw linkRefused(at);
        throw Object.assign(error as Error, { path: at });
      }
      closeSync(fd);
      fd = next;
    }
    return fd;
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** Runs `fn` with the folder of `file` held (opened as openDirNoFollow does) and the file's name in it. */
export function withParentHeld<T>(file: string, options: DirOptions, fn: (dirFd: number, name: string) => T): T {
  const name = path.basename(file);
  checkName(name, file);
  const dirFd = openDirNoFollow(path.dirname(path.resolve(file)), options);
  try {
    return fn(dirFd, name);
  } finally {
    closeSync(dirFd);
  }
}

export interface OpenNoFollowOptions extends DirOptions {
  /** permission bits for a file O_CREAT makes */
  fileMode?: number;
  /** refuse a file with more than one link (nlink > 1): set for writes in place and kernel-side reads */
  singleLink?: boolean;
  /** accept these non-regular files (the broker's /dev/null); they must never block */
  acceptDevice?: (s: Stats) => boolean;
}

/**
 * Opens `file` with `flags` (O_NOFOLLOW|O_NONBLOCK|O_NOCTTY added) in its folder held by
 * openDirNoFollow, and checks what the descriptor is: a regular file (or an accepted device),
 * with one link when `singleLink`. Returns the descriptor and its fstat.
 */
export function openNoFollow(file: string, flags: number, options: OpenNoFollowOptions = {}): { fd: number; stats: Stats } {
  return withParentHeld(file, options, (dirFd, name) => {
    let fd: number;
    try {
      fd = openSync(inHeld(dirFd, name), flags | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, options.fileMode ?? 0o666);
    } catch (error) {
      if (isLinkError(error)) throw linkRefused(file);
      throw Object.assign(error as Error, { path: file });
    }
    try {
      const stats = fstatSync(fd);
      if (stats.isDirectory() && !options.acceptDevice?.(stats)) throw Object.assign(new Error(`EISDIR: ${file}`), { code: 'EISDIR', path: file });
      if (!stats.isFile() && !options.acceptDevice?.(stats)) {
        throw new UnsafeFileError('not-regular', file, fileKind(stats), `${file} is a ${fileKind(stats)}, not a regular file: the kernel reads and writes only regular files`);
      }
      if (options.singleLink && stats.isFile() && stats.nlink > 1) {
        throw hardLinkRefused(file, stats.nlink);
      }
      return { fd, stats };
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  });
}

function writeAll(fd: number, data: Uint8Array): void {
  let offset = 0;
  while (offset < data.length) offset += writeSync(fd, data, offset, data.length - offset);
}

function syncQuietly(fd: number): void {
  try {
    fsyncSync(fd);
  } catch {
    // some file systems refuse fsync on a folder; the data itself is synced
  }
}

export interface WriteBeneathOptions {
  /** the trusted folder the walk starts from (the state directory for a persona's files) */
  anchor: string;
  /**
   * `replace` (the default): the whole file, atomically (temp file and rename, never through
   * what stood there); `append`: at the end of a regular single-link file (created if
   * missing); `create`: a new file only (EEXIST when something stands there)
   */
  how?: 'replace' | 'append' | 'create';
  /** fsync the file and, when its entry is new or replaced, its folder */
  durable?: boolean;
  /** create missing folders between the anchor and the file */
  mkdir?: boolean;
  /** permission bits of a new file */
  mode?: number;
  /** how the one-line refusal names the file (default: its path) */
  shown?: string;
}

/** The one-line refusal for what this module refused, or a KernelError for an OS error; rethrows anything else. */
function asKernelError(error: unknown, shown: string, doing: string): KernelError | unknown {
  if (error instanceof UnsafeFileError) {
    if (error.reason === 'link') {
      return kernelError('RTC_ERR_FS_LINK_REFUSED', `${shown}: ${error.path} is a symbolic link, and the kernel follows no link in a folder sandboxed code can write; it was not ${doing}`, { details: { file: shown, link: error.path }, cause: error });
    }
    if (error.reason === 'hard-link') {
      return kernelError('RTC_ERR_FS_LINK_REFUSED', `${shown}: is a hard link (it is also another path), and the kernel writes and reads no such file in a folder sandboxed code can write; it was not ${doing}`, { details: { file: shown }, cause: error });
    }
    return kernelError('RTC_ERR_FS_ACCESS', `${shown}: is a ${error.kind}, not a regular file; it was not ${doing}`, { details: { file: shown }, cause: error });
  }
  const code = (error as NodeJS.ErrnoException)?.code;
  if (typeof code === 'string') {
    const why = code === 'ENOTDIR' ? 'a folder on its path is a file' : code === 'EISDIR' ? 'a folder stands where the file belongs' : code === 'EACCES' || code === 'EPERM' ? 'permission denied' : code === 'EEXIST' ? 'already exists' : code === 'ENOSPC' ? 'no space left on the device' : code;
    return kernelError('RTC_ERR_FS_ACCESS', `${shown}: ${why}; it was not ${doing}`, { details: { file: shown, code }, cause: error });
  }
  return error;
}

/**
 * Writes `data` to `file` without following any link between `options.anchor` and it (see the
 * module comment); throws one line (RTC_ERR_FS_LINK_REFUSED, RTC_ERR_FS_ACCESS).
 */
export function writeFileBeneath(file: string, data: string | Uint8Array, options: WriteBeneathOptions): void {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  const shown = options.shown ?? file;
  try {
    withParentHeld(file, { anchor: options.anchor, create: options.mkdir === true }, (dirFd, name) => {
      const how = options.how ?? 'replace';
      if (how === 'replace') {
        const tmp = `.${name.slice(0, 200)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
        const fd = openSync(inHeld(dirFd, tmp), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, options.mode ?? 0o644);
        try {
          try {
            writeAll(fd, bytes);
            if (options.durable) fsyncSync(fd);
          } finally {
            closeSync(fd);
          }
          // rename(2) replaces the entry itself: a link standing at `name` is gone, not followed.
          renameSync(inHeld(dirFd, tmp), inHeld(dirFd, name));
        } catch (error) {
          try {
            unlinkSync(inHeld(dirFd, tmp));
          } catch {
            // already renamed, or never made
          }
          throw error;
        }
        if (options.durable) syncQuietly(dirFd);
        return;
      }
      const flags = how === 'append' ? O_WRONLY | O_APPEND | O_CREAT : O_WRONLY | O_CREAT | O_EXCL;
      let existed = how === 'append' && entryIn(dirFd, name) !== undefined;
      let fd: number;
      try {
        fd = openSync(inHeld(dirFd, name), flags | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, options.mode ?? 0o644);
      } catch (error) {
        if (isLinkError(error)) throw linkRefused(file);
        throw error;
      }
      try {
        const stats = fstatSync(fd);
        if (!stats.isFile()) throw new UnsafeFileError('not-regular', file, fileKind(stats), `${file} is a ${fileKind(stats)}`);
        if (stats.nlink > 1) throw hardLinkRefused(file, stats.nlink);
        existed ||= stats.size > 0;
        writeAll(fd, bytes);
        if (options.durable) fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      if (options.durable && !existed) syncQuietly(dirFd);
    });
  } catch (error) {
    throw asKernelError(error, shown, 'written');
  }
}

export interface ReadBeneathOptions {
  anchor: string;
  /** refuse a file larger than this */
  maxBytes: number;
  shown?: string;
}

/**
 * The bytes of `file`, read without following any link between `options.anchor` and it, or
 * undefined when it (or a folder on its way) does not exist. A link, a hard link, a FIFO or a
 * device, or a file over the cap is refused with one line.
 */
export function readFileBeneath(file: string, options: ReadBeneathOptions): Buffer | undefined {
  const shown = options.shown ?? file;
  let opened: { fd: number; stats: Stats };
  try {
    opened = openNoFollow(file, O_RDONLY, { anchor: options.anchor, singleLink: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    throw asKernelError(error, shown, 'read');
  }
  const { fd, stats } = opened;
  try {
    if (stats.size > options.maxBytes) throw kernelError('RTC_ERR_FS_ACCESS', `${shown}: ${stats.size} bytes is over the ${options.maxBytes}-byte cap; it was not read`, { details: { file: shown } });
    const buffer = Buffer.allocUnsafe(options.maxBytes + 1);
    let total = 0;
    for (;;) {
      const n = readSync(fd, buffer, total, buffer.length - total, null);
      if (n === 0) break;
      total += n;
      if (total > options.maxBytes) throw kernelError('RTC_ERR_FS_ACCESS', `${shown}: grew past the ${options.maxBytes}-byte cap while it was read; it was not used`, { details: { file: shown } });
    }
    return Buffer.from(buffer.subarray(0, total));
  } finally {
    closeSync(fd);
  }
}

/**
 * Removes the entry at `file` (a file, a link or an empty folder: the entry itself, never what
 * a link points at), walking to it as above; false when nothing was there.
 */
export function removeBeneath(file: string, options: { anchor: string; shown?: string }): boolean {
  try {
    return withParentHeld(file, { anchor: options.anchor }, (dirFd, name) => {
      const entry = entryIn(dirFd, name);
      if (entry === undefined) return false;
      if (entry.isDirectory()) rmdirSync(inHeld(dirFd, name));
      else unlinkSync(inHeld(dirFd, name));
      return true;
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return false;
    throw asKernelError(error, options.shown ?? file, 'removed');
  }
}

/**
 * Removes `file` and, when it is a folder, everything in it, each folder opened without
 * following a link and emptied through its descriptor: a folder swapped for a link midway is
 * refused, never descended into (Node's rmSync walks by path, and would follow it).
 */
export function removeTreeNoFollow(file: string, options: DirOptions = {}): void {
  withParentHeld(file, options, (dirFd, name) => removeEntry(dirFd, name, file));
}

function removeEntry(dirFd: number, name: string, shown: string): void {
  const entry = lstatSync(inHeld(dirFd, name));
  if (!entry.isDirectory()) {
    unlinkSync(inHeld(dirFd, name));
    return;
  }
  let fd: number;
  try {
    fd = openSync(inHeld(dirFd, name), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK);
  } catch (error) {
    if (isLinkError(error) || (error as NodeJS.ErrnoException).code === 'ENOTDIR') throw linkRefused(shown);
    throw error;
  }
  try {
    for (const child of readdirSync(inHeld(fd))) removeEntry(fd, child, path.join(shown, child));
  } finally {
    closeSync(fd);
  }
  rmdirSync(inHeld(dirFd, name));
}

/**
 * Refuses, with one line, a file another program will open by path (SQLite: the database and
 * the `-wal`, `-shm`, `-journal` files it makes beside it) when sandboxed code left a link
 * there or on the way: each of `files` (lexical paths beneath `anchor`) must be absent or a
 * regular file with one link, reached without following any link. What SQLite then opens is
 * what was checked; it keeps the files it opened for the connection's life.
 */
export function refuseLinkedFiles(files: readonly string[], options: { anchor: string; shown?: (file: string) => string }): void {
  for (const file of files) {
    const shown = options.shown?.(file) ?? file;
    try {
      withParentHeld(file, { anchor: options.anchor }, (dirFd, name) => {
        const entry = entryIn(dirFd, name);
        if (entry === undefined) return;
        if (entry.isSymbolicLink()) throw linkRefused(file);
        if (!entry.isFile()) throw new UnsafeFileError('not-regular', file, fileKind(entry), `${file} is a ${fileKind(entry)}`);
        if (entry.nlink > 1) throw hardLinkRefused(file, entry.nlink);
      });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw asKernelError(error, shown, 'opened');
    }
  }
}

/** Creates `dir` (and the folders before it) beneath `anchor` without following links; the held-folder walk's own create. */
export function mkdirBeneath(dir: string, options: { anchor: string; mode?: number; shown?: string }): void {
  try {
    closeSync(openDirNoFollow(dir, { anchor: options.anchor, create: true, ...(options.mode === undefined ? {} : { mode: options.mode }) }));
  } catch (error) {
    throw asKernelError(error, options.shown ?? dir, 'created');
  }
}
