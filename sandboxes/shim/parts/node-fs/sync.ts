/**
 * node:fs's synchronous API over the Deno namespace: every call is a `Deno.*Sync` broker op
 * with its permission check (a refused one throws Deno's NotCapable, as in Deno), and an OS
 * failure becomes Node's error for the syscall Node names (`ENOENT: no such file or
 * directory, open 'x'`). The callback and promise APIs are made from these (async.ts).
 */
import { denoNamespace } from '../../deno/namespace-ref.ts';
import { errors } from '../../deno/errors.ts';
import { unsupportedFunction } from '../../unsupported.ts';
import { makeDir } from './dir.ts';
import { invalidArgType, nodeError, osCodeOf, uvException, validateFunction, withNodeErrors } from '../node-errors/index.ts';
import { Buffer } from '../node-buffer/index.ts';
import { badDescriptor, closeFd, entry, fileOf, isStdio, openFd, pathOfFd, readFd, validateFd, writeFd } from './fds.ts';
import { encodingOf, modeOf, optionsOf, toPathString } from './paths.ts';
import { toDirent, toStats, type DirEntry, type Dirent, type FileInfo } from './stats.ts';
import { constants } from './constants.ts';

type Bytes = Uint8Array;
type BufferBytes = Bytes & { toString(enc?: string): string };
interface BufferClass {
  from(data: unknown, encodingOrOffset?: string | number, length?: number): BufferBytes;
  isBuffer(b: unknown): boolean;
  concat(list: Bytes[]): BufferBytes;
  alloc(n: number): BufferBytes;
}
const B = Buffer as unknown as BufferClass;

interface DenoFs {
  readFileSync(path: string): Uint8Array;
  writeFileSync(path: string, data: Uint8Array, options?: { append?: boolean; create?: boolean; createNew?: boolean; mode?: number }): void;
  readDirSync(path: string): Iterable<DirEntry>;
  statSync(path: string): FileInfo;
  lstatSync(path: string): FileInfo;
  mkdirSync(path: string, options?: { recursive?: boolean; mode?: number }): void;
  removeSync(path: string, options?: { recursive?: boolean }): void;
  realPathSync(path: string): string;
  copyFileSync(from: string, to: string): void;
  renameSync(from: string, to: string): void;
  linkSync(from: string, to: string): void;
  symlinkSync(target: string, path: string, options?: { type?: 'file' | 'dir' }): void;
  readLinkSync(path: string): string;
  chmodSync(path: string, mode: number): void;
  chownSync(path: string, uid: number | null, gid: number | null): void;
  truncateSync(path: string, len?: number): void;
  utimeSync(path: string, atime: number | Date, mtime: number | Date): void;
  makeTempDirSync(options?: { dir?: string; prefix?: string; suffix?: string }): string;
}

const deno = denoNamespace() as unknown as DenoFs;

function isNotCapable(error: unknown): boolean {
  return error instanceof (errors.NotCapable as unknown as typeof Error);
}

function toBytes(data: unknown, encoding: string | null | undefined, name = 'data'): Bytes {
  if (typeof data === 'string') return B.from(data, encoding ?? 'utf8');
  if (data instanceof Uint8Array) return data;
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  throw invalidArgType(name, 'of type string or an instance of Buffer, TypedArray, or DataView', data);
}

function encoded(bytes: Bytes, encoding: string | null): string | Bytes {
  // a view of the same memory: the bytes the op answered are not copied again
  const buf = B.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return encoding === null || encoding === 'buffer' ? buf : buf.toString(encoding);
}

// ---- whole files ------------------------------------------------------------------------

export function readFileSync(path: unknown, options?: unknown): string | Bytes {
  const o = optionsOf(options, { encoding: null as string | null, flag: 'r' });
  if (typeof path === 'number') {
    if (!isStdio(validateFd(path)) && pathOfFd(path) === undefined) throw badDescriptor();
    const chunks: Bytes[] = [];
    for (;;) {
      const chunk = new Uint8Array(64 * 1024);
      const n = readFd(path, chunk, 0, chunk.length, null);
      if (n === 0) break;
      chunks.push(chunk.subarray(0, n));
    }
    return encoded(B.concat(chunks), o.encoding as string | null);
  }
  const p = toPathString(path);
  const bytes = withNodeErrors('open', p, () => deno.readFileSync(p));
  return encoded(bytes, o.encoding as string | null);
}

function writeAll(path: unknown, data: unknown, options: unknown, defaultFlag: string): void {
  const o = optionsOf(options, { encoding: 'utf8' as string | null, mode: 0o666, flag: defaultFlag });
  const bytes = toBytes(data, o.encoding as string | null);
  if (typeof path === 'number') {
    writeFd(path, bytes, null);
    return;
  }
  const p = toPathString(path, 'path');
  const flag = String(o.flag);
  const append = flag.includes('a');
  const createNew = flag.includes('x');
  withNodeErrors('open', p, () => deno.writeFileSync(p, bytes, { append, create: true, createNew, mode: modeOf(o.mode, 0o666) }));
}

export function writeFileSync(path: unknown, data: unknown, options?: unknown): void {
  writeAll(path, data, options, 'w');
}

export function appendFileSync(path: unknown, data: unknown, options?: unknown): void {
  writeAll(path, data, options, 'a');
}

// ---- names --------------------------------------------------------------------------------

export function existsSync(path: unknown): boolean {
  let p: string;
  try {
    p = toPathString(path);
  } catch {
    return false;
  }
  try {
    deno.statSync(p);
    return true;
  } catch (error) {
    // Deno's node:fs lets a refused read through as NotCapable instead of "false"
    if (isNotCapable(error)) throw error;
    return false;
  }
}

export function accessSync(path: unknown, mode: number = constants.F_OK): void {
  const p = toPathString(path);
  const info = withNodeErrors('access', p, () => deno.statSync(p));
  if (mode === constants.F_OK || info.mode === null) return;
  // Deno compares the mode bits against the script's uid, a `sys` fact (which the sandbox never grants)
  (denoNamespace() as unknown as { uid(): number }).uid();
  const bits = info.mode & 0o777;
  const owner = (bits >> 6) | (bits >> 3) | bits;
  if (((mode & constants.R_OK) && !(owner & 4)) || ((mode & constants.W_OK) && !(owner & 2)) || ((mode & constants.X_OK) && !(owner & 1))) {
    throw uvException({ code: 'EACCES', syscall: 'access', path: p });
  }
}

export function statSync(path: unknown, options?: { bigint?: boolean; throwIfNoEntry?: boolean }): unknown {
  const p = toPathString(path);
  try {
    return toStats(deno.statSync(p), Boolean(options?.bigint));
  } catch (error) {
    if (options?.throwIfNoEntry === false && osCodeOf(error) === 'ENOENT') return undefined;
    throw withNodeErrorsThrow(error, 'stat', p);
  }
}

export function lstatSync(path: unknown, options?: { bigint?: boolean; throwIfNoEntry?: boolean }): unknown {
  const p = toPathString(path);
  try {
    return toStats(deno.lstatSync(p), Boolean(options?.bigint));
  } catch (error) {
    if (options?.throwIfNoEntry === false && osCodeOf(error) === 'ENOENT') return undefined;
    throw withNodeErrorsThrow(error, 'lstat', p);
  }
}

function withNodeErrorsThrow(error: unknown, syscall: string, path: string): unknown {
  try {
    withNodeErrors(syscall, path, () => {
      throw error;
    });
  } catch (mapped) {
    return mapped;
  }
  return error;
}

function joinPath(dir: string, name: string): string {
  return dir.endsWith('/') ? `${dir}${name}` : `${dir}/${name}`;
}

export function readdirSync(path: unknown, options?: unknown): (string | Bytes | Dirent)[] {
  const p = toPathString(path);
  const o = optionsOf(options, { encoding: 'utf8' as string | null, withFileTypes: false, recursive: false });
  const out: (string | Bytes | Dirent)[] = [];
  const walk = (dir: string, prefix: string): void => {
    const entries = [...withNodeErrors('readdir', dir, () => deno.readDirSync(dir))];
    for (const e of entries) {
      const name = prefix ? `${prefix}/${e.name}` : e.name;
      if (o.withFileTypes) out.push(toDirent(e, prefix ? joinPath(p, prefix) : p));
      else out.push(o.encoding === 'buffer' ? B.from(name) : name);
      if (o.recursive && e.isDirectory) walk(joinPath(dir, e.name), name);
    }
  };
  walk(p, '');
  return out;
}

/** The first directory a recursive mkdir will create (walking up from the path), or undefined when it exists. */
function firstMissing(p: string): string | undefined {
  const cwd = (denoNamespace() as unknown as { cwd(): string }).cwd();
  let current = p.startsWith('/') ? p : joinPath(cwd, p);
  current = current.replace(/\/+$/, '') || '/';
  let first: string | undefined;
  for (;;) {
    try {
      deno.statSync(current);
      return first;
    } catch (error) {
      if (osCodeOf(error) !== 'ENOENT') throw error;
      first = current;
    }
    const parent = current.slice(0, current.lastIndexOf('/')) || '/';
    if (parent === current) return first;
    current = parent;
  }
}

export function mkdirSync(path: unknown, options?: unknown): string | undefined {
  const p = toPathString(path);
  const o = typeof options === 'number' || typeof options === 'string' ? { recursive: false, mode: options } : optionsOf(options, { recursive: false, mode: 0o777 as unknown });
  const mode = modeOf(o.mode, 0o777);
  if (o.recursive) {
    const first = firstMissing(p);
    withNodeErrors('mkdir', p, () => deno.mkdirSync(p, { recursive: true, mode }));
    return first;
  }
  withNodeErrors('mkdir', p, () => deno.mkdirSync(p, { recursive: false, mode }));
  return undefined;
}

const TEMP_CHARS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** Node's mkdtemp: the prefix plus six random characters, a directory of mode 0700 made there. */
export function mkdtempSync(prefix: unknown, options?: unknown): string {
  const p = toPathString(prefix, 'prefix');
  const o = optionsOf(options, { encoding: 'utf8' as string | null });
  for (let attempt = 0; ; attempt++) {
    const random = crypto.getRandomValues(new Uint8Array(6));
    const made = p + Array.from(random, (b) => TEMP_CHARS[b % TEMP_CHARS.length]).join('');
    try {
      deno.mkdirSync(made, { mode: 0o700 });
      return o.encoding === 'buffer' ? (B.from(made) as unknown as string) : made;
    } catch (error) {
      if (osCodeOf(error) === 'EEXIST' && attempt < 100) continue;
      throw withNodeErrorsThrow(error, 'mkdtemp', `${p}XXXXXX`);
    }
  }
}

export function rmSync(path: unknown, options?: { recursive?: boolean; force?: boolean; maxRetries?: number }): void {
  const p = toPathString(path);
  let info: FileInfo;
  try {
    info = deno.lstatSync(p);
  } catch (error) {
    if (options?.force && osCodeOf(error) === 'ENOENT') return;
    throw withNodeErrorsThrow(error, 'lstat', p);
  }
  if (info.isDirectory && !options?.recursive) {
    const error = nodeError(Error, 'ERR_FS_EISDIR', `Path is a directory: rm returned EISDIR (is a directory) ${p}`) as Error & Record<string, unknown>;
    error.name = 'SystemError';
    Object.assign(error, { errno: 21, syscall: 'rm', path: p, info: { code: 'EISDIR', message: 'is a directory', path: p, syscall: 'rm', errno: 21 } });
    throw error;
  }
  withNodeErrors('rm', p, () => deno.removeSync(p, { recursive: Boolean(options?.recursive) }));
}

export function rmdirSync(path: unknown, options?: { recursive?: boolean }): void {
  const p = toPathString(path);
  if (options?.recursive) {
    withNodeErrors('rmdir', p, () => deno.removeSync(p, { recursive: true }));
    return;
  }
  const info = withNodeErrors('rmdir', p, () => deno.lstatSync(p));
  if (!info.isDirectory) throw uvException({ code: 'ENOTDIR', syscall: 'rmdir', path: p });
  withNodeErrors('rmdir', p, () => deno.removeSync(p));
}

// Deno's unlink is Deno.remove: an empty directory goes too.
export function unlinkSync(path: unknown): void {
  const p = toPathString(path);
  withNodeErrors('unlink', p, () => deno.removeSync(p));
}

export function renameSync(oldPath: unknown, newPath: unknown): void {
  const from = toPathString(oldPath, 'oldPath');
  const to = toPathString(newPath, 'newPath');
  withNodeErrors('rename', from, () => deno.renameSync(from, to), to);
}

export function copyFileSync(src: unknown, dest: unknown, mode = 0): void {
  const from = toPathString(src, 'src');
  const to = toPathString(dest, 'dest');
  // Deno's node:fs answers these two in its own words (and lets Deno.copyFileSync's error through)
  if (mode & constants.COPYFILE_EXCL && existsSync(to)) throw new Error(`A file exists at the destination: ${to}`);
  deno.copyFileSync(from, to);
}

export function cpSync(src: unknown, dest: unknown, options?: { recursive?: boolean; force?: boolean; errorOnExist?: boolean; filter?: (s: string, d: string) => boolean }): void {
  const from = toPathString(src, 'src');
  const to = toPathString(dest, 'dest');
  const force = options?.force ?? true;
  const copy = (s: string, d: string): void => {
    if (options?.filter && !options.filter(s, d)) return;
    const info = withNodeErrors('lstat', s, () => deno.lstatSync(s));
    if (info.isDirectory) {
      if (!options?.recursive) {
        const error = nodeError(Error, 'ERR_FS_EISDIR', `Recursive option is required to copy a directory: cp returned EISDIR (${s} is a directory (not copied)) ${s}`);
        error.name = 'SystemError';
        throw error;
      }
      if (!existsSync(d)) withNodeErrors('mkdir', d, () => deno.mkdirSync(d, { recursive: true }));
      for (const e of deno.readDirSync(s)) copy(joinPath(s, e.name), joinPath(d, e.name));
    } else if (info.isSymlink) {
      const target = withNodeErrors('readlink', s, () => deno.readLinkSync(s));
      if (existsSync(d)) {
        if (!force) return;
        deno.removeSync(d);
      }
      withNodeErrors('symlink', target, () => deno.symlinkSync(target, d), d);
    } else {
      if (existsSync(d)) {
        if (options?.errorOnExist && !force) {
          const error = nodeError(Error, 'ERR_FS_CP_EEXIST', `Target already exists: cp returned EEXIST (${d} already exists) ${d}`);
          error.name = 'SystemError';
          throw error;
        }
        if (!force) return;
      }
      withNodeErrors('copyfile', s, () => deno.copyFileSync(s, d), d);
    }
  };
  copy(from, to);
}

export function linkSync(existingPath: unknown, newPath: unknown): void {
  const from = toPathString(existingPath, 'existingPath');
  const to = toPathString(newPath, 'newPath');
  withNodeErrors('link', from, () => deno.linkSync(from, to), to);
}

export function symlinkSync(target: unknown, path: unknown, type?: 'file' | 'dir' | 'junction' | null): void {
  const t = toPathString(target, 'target');
  const p = toPathString(path);
  withNodeErrors('symlink', t, () => deno.symlinkSync(t, p, type === 'dir' || type === 'junction' ? { type: 'dir' } : undefined), p);
}

export function readlinkSync(path: unknown, options?: unknown): string | Bytes {
  const p = toPathString(path);
  const target = withNodeErrors('readlink', p, () => deno.readLinkSync(p));
  return encodingOf(options as never, 'utf8') === 'buffer' ? B.from(target) : target;
}

export function realpathSync(path: unknown, options?: unknown): string | Bytes {
  const p = toPathString(path);
  // Deno's node:fs names the lstat its realpath walk failed on
  const real = withNodeErrors('lstat', p, () => deno.realPathSync(p));
  return encodingOf(options as never, 'utf8') === 'buffer' ? B.from(real) : real;
}
realpathSync.native = realpathSync;

export function chmodSync(path: unknown, mode: unknown): void {
  const p = toPathString(path);
  withNodeErrors('chmod', p, () => deno.chmodSync(p, modeOf(mode, 0)));
}

export function chownSync(path: unknown, uid: number, gid: number): void {
  const p = toPathString(path);
  withNodeErrors('chown', p, () => deno.chownSync(p, uid, gid));
}

export function truncateSync(path: unknown, len = 0): void {
  if (typeof path === 'number') return ftruncateSync(path, len);
  const p = toPathString(path);
  withNodeErrors('open', p, () => deno.truncateSync(p, len));
}

export function utimesSync(path: unknown, atime: number | string | Date, mtime: number | string | Date): void {
  const p = toPathString(path);
  withNodeErrors('utime', p, () => deno.utimeSync(p, toTime(atime), toTime(mtime)));
}

function toTime(t: number | string | Date): number | Date {
  if (t instanceof Date) return t;
  if (typeof t === 'string' && t.trim() !== '' && Number.isFinite(Number(t))) return Number(t);
  if (typeof t === 'number') return t;
  throw invalidArgType('time', 'of type number or an instance of Date', t);
}

// ---- descriptors ----------------------------------------------------------------------------

export function openSync(path: unknown, flags?: unknown, mode?: unknown): number {
  const p = toPathString(path);
  return openFd(p, flags ?? 'r', mode === undefined ? undefined : modeOf(mode, 0o666));
}

export function closeSync(fd: unknown): void {
  closeFd(fd);
}

interface ReadOptions {
  buffer?: Bytes;
  offset?: number;
  length?: number;
  position?: number | bigint | null;
}

export function readSync(fd: unknown, buffer: unknown, offsetOrOptions?: number | ReadOptions, length?: number, position?: number | bigint | null): number {
  validateFd(fd);
  if (!ArrayBuffer.isView(buffer)) throw invalidArgType('buffer', 'an instance of Buffer, TypedArray, or DataView', buffer);
  const bytes = new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  let offset = 0;
  if (typeof offsetOrOptions === 'object' && offsetOrOptions !== null) {
    offset = offsetOrOptions.offset ?? 0;
    length = offsetOrOptions.length;
    position = offsetOrOptions.position;
  } else if (typeof offsetOrOptions === 'number') offset = offsetOrOptions;
  const len = length ?? bytes.byteLength - offset;
  if (offset < 0 || offset > bytes.byteLength) throw nodeError(RangeError, 'ERR_OUT_OF_RANGE', `The value of "offset" is out of range. It must be >= 0 && <= ${bytes.byteLength}. Received ${offset}`);
  if (len < 0 || offset + len > bytes.byteLength) throw nodeError(RangeError, 'ERR_OUT_OF_RANGE', `The value of "length" is out of range. It must be >= 0 && <= ${bytes.byteLength - offset}. Received ${len}`);
  const pos = position === undefined || position === null ? null : Number(position);
  return readFd(fd, bytes, offset, len, pos);
}

export function writeSync(fd: unknown, data: unknown, offsetOrPosition?: unknown, lengthOrEncoding?: unknown, position?: unknown): number {
  validateFd(fd);
  if (typeof data === 'string') {
    const pos = typeof offsetOrPosition === 'number' ? offsetOrPosition : null;
    const encoding = typeof lengthOrEncoding === 'string' ? lengthOrEncoding : 'utf8';
    return writeFd(fd, B.from(data, encoding), pos);
  }
  const bytes = toBytes(data, null, 'buffer');
  const offset = typeof offsetOrPosition === 'number' ? offsetOrPosition : 0;
  const length = typeof lengthOrEncoding === 'number' ? lengthOrEncoding : bytes.byteLength - offset;
  const pos = typeof position === 'number' ? position : null;
  return writeFd(fd, bytes.subarray(offset, offset + length), pos);
}

export function fstatSync(fd: unknown, options?: { bigint?: boolean }): unknown {
  const n = validateFd(fd);
  if (isStdio(n)) {
    // the run's own streams: character devices to the script, as a terminal would be
    return toStats({ isFile: false, isDirectory: false, isSymlink: false, size: 0, mtime: null, atime: null, birthtime: null, ctime: null, dev: 0, ino: 0, mode: 0o20620, nlink: 1, uid: 0, gid: 0, rdev: 0, blksize: 1024, blocks: 0, isBlockDevice: false, isCharDevice: true, isFifo: false, isSocket: false }, Boolean(options?.bigint));
  }
  const file = fileOf(n, 'fstat');
  return toStats(withNodeErrors('fstat', undefined, () => file.statSync()), Boolean(options?.bigint));
}

export function ftruncateSync(fd: unknown, len = 0): void {
  const file = fileOf(fd, 'ftruncate');
  withNodeErrors('ftruncate', undefined, () => file.truncateSync(len));
}

export function fsyncSync(fd: unknown): void {
  if (isStdio(validateFd(fd))) return;
  const file = fileOf(fd, 'fsync');
  withNodeErrors('fsync', undefined, () => file.syncSync());
}

export function fdatasyncSync(fd: unknown): void {
  if (isStdio(validateFd(fd))) return;
  const file = fileOf(fd, 'fdatasync');
  withNodeErrors('fdatasync', undefined, () => file.syncDataSync());
}

export function futimesSync(fd: unknown, atime: number | string | Date, mtime: number | string | Date): void {
  const file = fileOf(fd, 'futime');
  withNodeErrors('futime', undefined, () => file.utimeSync(toTime(atime), toTime(mtime)));
}

export function fchmodSync(fd: unknown, mode: unknown): void {
  const e = entry(fd, 'fchmod');
  chmodSync(e.path, mode);
}

export function readvSync(fd: unknown, buffers: ArrayBufferView[], position?: number | null): number {
  let total = 0;
  let pos = position ?? null;
  for (const b of buffers) {
    const n = readSync(fd, b, 0, b.byteLength, pos);
    total += n;
    if (pos !== null) pos += n;
    if (n < b.byteLength) break;
  }
  return total;
}

export function writevSync(fd: unknown, buffers: ArrayBufferView[], position?: number | null): number {
  let total = 0;
  let pos = position ?? null;
  for (const b of buffers) {
    const n = writeSync(fd, b, 0, b.byteLength, pos);
    total += n;
    if (pos !== null) pos += n;
  }
  return total;
}

export function opendirSync(path: unknown): unknown {
  const p = toPathString(path);
  const entries = readdirSync(p, { withFileTypes: true }) as Dirent[];
  return makeDir(p, entries);
}

/** Refused where the sandbox has no equivalent (file watching, statfs), with the API named. */
export function unsupported(name: string): (...args: unknown[]) => never {
  return unsupportedFunction(`fs.${name}`);
}

export { validateFunction, toBytes, encoded, B as BufferClass };
