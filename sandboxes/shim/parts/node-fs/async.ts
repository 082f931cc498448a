/**
 * node:fs's callback API and node:fs/promises, made from the synchronous API (sync.ts): the
 * broker op runs when the script calls (as Deno starts its op then), and the callback or
 * promise gets the outcome after the current task, as an I/O completion does. Argument
 * errors (`ERR_INVALID_ARG_TYPE`) are thrown at once, as Node does; OS errors and refused
 * permissions go to the callback.
 */
import { setImmediate } from '../../web/timers.ts';
import { invalidArgType } from '../node-errors/index.ts';
import * as sync from './sync.ts';
import { closeFd, validateFd } from './fds.ts';

type Fn = (...args: unknown[]) => unknown;
type Callback = (err: unknown, ...results: unknown[]) => void;

function isArgumentError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^ERR_(INVALID_ARG|OUT_OF_RANGE|MISSING_ARGS|INVALID_URL|INVALID_FILE_URL)/.test(code);
}

function takeCallback(args: unknown[]): Callback {
  const cb = args.pop();
  if (typeof cb !== 'function') throw invalidArgType('cb', 'of type function', cb);
  return cb as Callback;
}

/** `fs.x(args..., cb)` from `fs.xSync(args...)`: cb(err) or cb(null, result). */
export function withCallback(fn: Fn, spread = false): Fn {
  return function (...args: unknown[]): void {
    const cb = takeCallback(args);
    let result: unknown;
    try {
      result = fn(...args);
    } catch (error) {
      if (isArgumentError(error)) throw error;
      setImmediate(() => cb(error));
      return;
    }
    setImmediate(() => (spread ? cb(null, ...(result as unknown[])) : cb(null, result)));
  };
}

export const callbacks = {
  readFile: withCallback(sync.readFileSync as Fn),
  writeFile: withCallback(sync.writeFileSync as Fn),
  appendFile: withCallback(sync.appendFileSync as Fn),
  access: withCallback(sync.accessSync as Fn),
  stat: withCallback(sync.statSync as Fn),
  lstat: withCallback(sync.lstatSync as Fn),
  fstat: withCallback(sync.fstatSync as Fn),
  readdir: withCallback(sync.readdirSync as Fn),
  mkdir: withCallback(sync.mkdirSync as Fn),
  mkdtemp: withCallback(sync.mkdtempSync as Fn),
  rm: withCallback(sync.rmSync as Fn),
  rmdir: withCallback(sync.rmdirSync as Fn),
  unlink: withCallback(sync.unlinkSync as Fn),
  rename: withCallback(sync.renameSync as Fn),
  copyFile: withCallback(sync.copyFileSync as Fn),
  cp: withCallback(sync.cpSync as Fn),
  link: withCallback(sync.linkSync as Fn),
  symlink: withCallback(sync.symlinkSync as Fn),
  readlink: withCallback(sync.readlinkSync as Fn),
  realpath: Object.assign(withCallback(sync.realpathSync as Fn), { native: withCallback(sync.realpathSync as Fn) }),
  chmod: withCallback(sync.chmodSync as Fn),
  chown: withCallback(sync.chownSync as Fn),
  truncate: withCallback(sync.truncateSync as Fn),
  utimes: withCallback(sync.utimesSync as Fn),
  open: withCallback(sync.openSync as Fn),
  close: function close(fd: unknown, cb?: Callback): void {
    validateFd(fd);
    let error: unknown = null;
    try {
      closeFd(fd);
    } catch (e) {
      error = e;
    }
    if (typeof cb === 'function') setImmediate(() => cb(error));
  },
  ftruncate: withCallback(sync.ftruncateSync as Fn),
  fsync: withCallback(sync.fsyncSync as Fn),
  fdatasync: withCallback(sync.fdatasyncSync as Fn),
  futimes: withCallback(sync.futimesSync as Fn),
  fchmod: withCallback(sync.fchmodSync as Fn),
  opendir: withCallback(sync.opendirSync as Fn),
  read: function read(fd: unknown, ...rest: unknown[]): void {
    const cb = takeCallback(rest);
    let buffer = rest[0];
    let args = rest.slice(1);
    if (!ArrayBuffer.isView(buffer)) {
      // fs.read(fd, [options], cb): a 16 KiB buffer of its own unless one is given
      const options = (buffer ?? {}) as { buffer?: Uint8Array; offset?: number; length?: number; position?: number | null };
      buffer = options.buffer ?? sync.BufferClass.alloc(16384);
      args = [options.offset ?? 0, options.length ?? (buffer as Uint8Array).byteLength - (options.offset ?? 0), options.position ?? null];
    }
    withCallback(() => [sync.readSync(fd, buffer, ...(args as [number, number, number | null])), buffer], true)(cb);
  },
  write: function write(fd: unknown, data: unknown, ...rest: unknown[]): void {
    const cb = takeCallback(rest);
    withCallback(() => [sync.writeSync(fd, data, ...rest), data], true)(cb);
  },
  readv: function readv(fd: unknown, buffers: ArrayBufferView[], ...rest: unknown[]): void {
    const cb = takeCallback(rest);
    withCallback(() => [sync.readvSync(fd, buffers, rest[0] as number | null), buffers], true)(cb);
  },
  writev: function writev(fd: unknown, buffers: ArrayBufferView[], ...rest: unknown[]): void {
    const cb = takeCallback(rest);
    withCallback(() => [sync.writevSync(fd, buffers, rest[0] as number | null), buffers], true)(cb);
  },
  exists: function exists(path: unknown, cb: (exists: boolean) => void): void {
    let found = false;
    try {
      found = sync.existsSync(path);
    } catch {
      found = false;
    }
    setImmediate(() => cb(found));
  },
};

/** A promise-returning twin of a sync function: the outcome arrives after the current task. */
function promised<T extends Fn>(fn: T): (...args: Parameters<T>) => Promise<ReturnType<T>> {
  return (...args) =>
    new Promise((resolve, reject) => {
      let result: unknown;
      try {
        result = fn(...args);
      } catch (error) {
        setImmediate(() => reject(error));
        return;
      }
      setImmediate(() => resolve(result as ReturnType<T>));
    });
}

/** `fs/promises`' FileHandle: an fd of the table, with the promise API over it. */
export class FileHandle {
  readonly #fd: number;
  #closed = false;

  constructor(fd: number) {
    this.#fd = fd;
  }

  get fd(): number {
    return this.#closed ? -1 : this.#fd;
  }

  read(buffer?: Uint8Array | { buffer?: Uint8Array; offset?: number; length?: number; position?: number | null }, offset?: number, length?: number, position?: number | null): Promise<{ bytesRead: number; buffer: Uint8Array }> {
    let target: Uint8Array;
    if (ArrayBuffer.isView(buffer)) target = buffer;
    else {
      const o = buffer ?? {};
      target = o.buffer ?? (sync.BufferClass.alloc(16384) as Uint8Array);
      offset = o.offset;
      length = o.length;
      position = o.position;
    }
    return promised(() => ({ bytesRead: sync.readSync(this.#fd, target, offset ?? 0, length ?? target.byteLength - (offset ?? 0), position ?? null), buffer: target }))();
  }

  write(data: unknown, ...rest: unknown[]): Promise<{ bytesWritten: number; buffer: unknown }> {
    return promised(() => ({ bytesWritten: sync.writeSync(this.#fd, data, ...rest), buffer: data }))();
  }

  readFile(options?: unknown): Promise<string | Uint8Array> {
    return promised(() => sync.readFileSync(this.#fd, options))();
  }

  writeFile(data: unknown, options?: unknown): Promise<void> {
    return promised(() => sync.writeFileSync(this.#fd, data, options))();
  }

  appendFile(data: unknown, options?: unknown): Promise<void> {
    return promised(() => sync.writeFileSync(this.#fd, data, options))();
  }

  stat(options?: { bigint?: boolean }): Promise<unknown> {
    return promised(() => sync.fstatSync(this.#fd, options))();
  }

  truncate(len?: number): Promise<void> {
    return promised(() => sync.ftruncateSync(this.#fd, len))();
  }

  sync(): Promise<void> {
    return promised(() => sync.fsyncSync(this.#fd))();
  }

  datasync(): Promise<void> {
    return promised(() => sync.fdatasyncSync(this.#fd))();
  }

  chmod(mode: number): Promise<void> {
    return promised(() => sync.fchmodSync(this.#fd, mode))();
  }

  utimes(atime: number | Date, mtime: number | Date): Promise<void> {
    return promised(() => sync.futimesSync(this.#fd, atime, mtime))();
  }

  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    return promised(() => closeFd(this.#fd))();
  }

  async [Symbol.asyncDispose ?? Symbol.for('Symbol.asyncDispose')](): Promise<void> {
    await this.close();
  }
}

export const promises: Record<string, unknown> = {
  readFile: (path: unknown, options?: unknown) => (path instanceof FileHandle ? path.readFile(options) : promised(sync.readFileSync as Fn)(path, options)),
  writeFile: (path: unknown, data: unknown, options?: unknown) => (path instanceof FileHandle ? path.writeFile(data, options) : promised(sync.writeFileSync as Fn)(path, data, options)),
  appendFile: (path: unknown, data: unknown, options?: unknown) => (path instanceof FileHandle ? path.appendFile(data, options) : promised(sync.appendFileSync as Fn)(path, data, options)),
  access: promised(sync.accessSync as Fn),
  stat: promised(sync.statSync as Fn),
  lstat: promised(sync.lstatSync as Fn),
  readdir: promised(sync.readdirSync as Fn),
  mkdir: promised(sync.mkdirSync as Fn),
  mkdtemp: promised(sync.mkdtempSync as Fn),
  rm: promised(sync.rmSync as Fn),
  rmdir: promised(sync.rmdirSync as Fn),
  unlink: promised(sync.unlinkSync as Fn),
  rename: promised(sync.renameSync as Fn),
  copyFile: promised(sync.copyFileSync as Fn),
  cp: promised(sync.cpSync as Fn),
  link: promised(sync.linkSync as Fn),
  symlink: promised(sync.symlinkSync as Fn),
  readlink: promised(sync.readlinkSync as Fn),
  realpath: promised(sync.realpathSync as Fn),
  chmod: promised(sync.chmodSync as Fn),
  chown: promised(sync.chownSync as Fn),
  truncate: promised(sync.truncateSync as Fn),
  utimes: promised(sync.utimesSync as Fn),
  opendir: promised(sync.opendirSync as Fn),
  open: (path: unknown, flags?: unknown, mode?: unknown) => promised(() => new FileHandle(sync.openSync(path, flags, mode)))(),
  watch: sync.unsupported('promises.watch'),
  statfs: sync.unsupported('promises.statfs'),
  lchown: sync.unsupported('promises.lchown'),
  lutimes: sync.unsupported('promises.lutimes'),
};
