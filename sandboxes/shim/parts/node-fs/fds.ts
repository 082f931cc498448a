/**
 * File descriptors for node:fs: each fd a script gets from `fs.open` is a `Deno.FsFile` the
 * broker opened after its permission check (read and/or write, by the flags), kept in this
 * table under a number of the isolate's own. A number the table does not hold is EBADF,
 * whatever it is in the kernel: a script cannot reach the kernel's descriptors by guessing.
 * 0, 1 and 2 are the run's own streams (stdin empty, stdout and stderr to its output).
 */
import { callSync } from '../../host.ts';
import { denoNamespace } from '../../deno/namespace-ref.ts';
import { requirePart } from '../../parts-loader.ts';
import { TextDecoder } from '../../web/text-encoding.ts';
import { invalidArgType, invalidArgValue, nodeError, uvException, withNodeErrors } from '../node-errors/index.ts';
import type { FileInfo } from './stats.ts';

export interface FsFileLike {
  readSync(p: Uint8Array): number | null;
  writeSync(p: Uint8Array): number;
  seekSync(offset: number, whence: number): number;
  statSync(): FileInfo;
  truncateSync(len?: number): void;
  syncSync(): void;
  syncDataSync(): void;
  utimeSync(atime: number | Date, mtime: number | Date): void;
  close(): void;
}

interface OpenOptions {
  read?: boolean;
  write?: boolean;
  append?: boolean;
  truncate?: boolean;
  create?: boolean;
  createNew?: boolean;
  mode?: number;
}

interface DenoLike {
  openSync(path: string, options: OpenOptions): FsFileLike;
  chmodSync(path: string, mode: number): void;
}

const deno = (): DenoLike => {
  // Deno.openSync lives in the fs-file part; touching it loads that part
  requirePart('fs-file');
  return denoNamespace() as unknown as DenoLike;
};

const O = { RDONLY: 0, WRONLY: 1, RDWR: 2, CREAT: 64, EXCL: 128, TRUNC: 512, APPEND: 1024, SYNC: 1052672 };

/** Node's flags (`'r'`, `'w+'`, `'ax'`, or the O_ numbers) as Deno's open options. */
export function openOptions(flags: unknown, mode?: number): OpenOptions {
  let f: number;
  if (flags === undefined || flags === null) f = O.RDONLY;
  else if (typeof flags === 'number') f = flags;
  else if (typeof flags === 'string') {
    const table: Record<string, number> = {
      r: O.RDONLY, rs: O.RDONLY | O.SYNC, sr: O.RDONLY | O.SYNC, 'r+': O.RDWR, 'rs+': O.RDWR | O.SYNC, 'sr+': O.RDWR | O.SYNC,
      w: O.TRUNC | O.CREAT | O.WRONLY, wx: O.TRUNC | O.CREAT | O.WRONLY | O.EXCL, xw: O.TRUNC | O.CREAT | O.WRONLY | O.EXCL,
      'w+': O.TRUNC | O.CREAT | O.RDWR, 'wx+': O.TRUNC | O.CREAT | O.RDWR | O.EXCL, 'xw+': O.TRUNC | O.CREAT | O.RDWR | O.EXCL,
      a: O.APPEND | O.CREAT | O.WRONLY, ax: O.APPEND | O.CREAT | O.WRONLY | O.EXCL, xa: O.APPEND | O.CREAT | O.WRONLY | O.EXCL,
      as: O.APPEND | O.CREAT | O.WRONLY | O.SYNC, sa: O.APPEND | O.CREAT | O.WRONLY | O.SYNC,
      'a+': O.APPEND | O.CREAT | O.RDWR, 'ax+': O.APPEND | O.CREAT | O.RDWR | O.EXCL, 'xa+': O.APPEND | O.CREAT | O.RDWR | O.EXCL,
      'as+': O.APPEND | O.CREAT | O.RDWR | O.SYNC, 'sa+': O.APPEND | O.CREAT | O.RDWR | O.SYNC,
    };
    const found = table[flags];
    if (found === undefined) throw invalidArgValue('flags', flags);
    f = found;
  } else throw invalidArgType('flags', 'of type string or number', flags);
  const access = f & 3;
  const options: OpenOptions = {
    read: access === O.RDONLY || access === O.RDWR,
    write: access === O.WRONLY || access === O.RDWR,
    append: (f & O.APPEND) !== 0,
    truncate: (f & O.TRUNC) !== 0 && access !== O.RDONLY,
    create: (f & O.CREAT) !== 0,
    createNew: (f & O.CREAT) !== 0 && (f & O.EXCL) !== 0,
  };
  if (options.append) options.write = false;
  if (mode !== undefined) options.mode = mode;
  return options;
}

interface Entry {
  file: FsFileLike;
  path: string;
  /** the position reads and writes without one of their own continue from */
  position: number;
  append: boolean;
}

const table = new Map<number, Entry>();
let nextFd = 3;

export function openFd(path: string, flags: unknown, mode?: number): number {
  const options = openOptions(flags, mode);
  const file = withNodeErrors('open', path, () => deno().openSync(path, options));
  const fd = nextFd++;
  table.set(fd, { file, path, position: 0, append: Boolean(options.append) });
  return fd;
}

export function validateFd(fd: unknown): number {
  if (typeof fd !== 'number') throw invalidArgType('fd', 'of type number', fd);
  if (!Number.isInteger(fd) || fd < 0 || fd > 2147483647) {
    throw nodeError(RangeError, 'ERR_OUT_OF_RANGE', `The value of "fd" is out of range. It must be >= 0 && <= 2147483647. Received ${fd}`);
  }
  return fd;
}

export function entry(fd: unknown, syscall: string): Entry {
  const n = validateFd(fd);
  const found = table.get(n);
  if (!found) throw uvException({ code: 'EBADF', syscall });
  return found;
}

export function isStdio(fd: number): boolean {
  return fd === 0 || fd === 1 || fd === 2;
}

/** What Deno's node:fs throws for a number it holds no file for, outside read and write. */
export function badDescriptor(): Error {
  return Object.assign(new Error('Bad file descriptor (os error 9)'), { code: 'EBADF' });
}

export function closeFd(fd: unknown): void {
  const n = validateFd(fd);
  if (isStdio(n)) return;
  if (!table.has(n)) throw badDescriptor();
  const e = entry(n, 'close');
  table.delete(n);
  withNodeErrors('close', undefined, () => e.file.close());
}

const decoder = new TextDecoder();

/** Bytes into `buffer[offset..offset+length)` from the fd, at `position` or where the last read ended. */
export function readFd(fd: unknown, buffer: Uint8Array, offset: number, length: number, position: number | null): number {
  const n = validateFd(fd);
  if (n === 0) return 0;
  if (n === 1 || n === 2) throw uvException({ code: 'EBADF', syscall: 'read' });
  const e = entry(n, 'read');
  if (length === 0) return 0;
  const target = buffer.subarray(offset, offset + length);
  return withNodeErrors('read', undefined, () => {
    const at = position === null || position < 0 ? e.position : position;
    e.file.seekSync(at, 0);
    let total = 0;
    while (total < target.length) {
      const got = e.file.readSync(target.subarray(total));
      if (got === null || got === 0) break;
      total += got;
    }
    if (position === null || position < 0) e.position = at + total;
    return total;
  });
}

/** Bytes from `data` to the fd, at `position`, or after the last write (the end for an appending fd). */
export function writeFd(fd: unknown, data: Uint8Array, position: number | null): number {
  const n = validateFd(fd);
  if (n === 1 || n === 2) {
    callSync('io.write', { fd: n, text: decoder.decode(data) });
    return data.byteLength;
  }
  if (n === 0) throw uvException({ code: 'EBADF', syscall: 'write' });
  const e = entry(n, 'write');
  return withNodeErrors('write', undefined, () => {
    if (!e.append) e.file.seekSync(position === null || position < 0 ? e.position : position, 0);
    let written = 0;
    while (written < data.byteLength) written += e.file.writeSync(data.subarray(written));
    if (!e.append && (position === null || position < 0)) e.position += written;
    return written;
  });
}

export function fileOf(fd: unknown, syscall: string): FsFileLike {
  return entry(fd, syscall).file;
}

export function pathOfFd(fd: number): string | undefined {
  return table.get(fd)?.path;
}
