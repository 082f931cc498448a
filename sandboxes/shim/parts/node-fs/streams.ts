/**
 * `fs.createReadStream` / `fs.createWriteStream`: Node streams (the streams part, loaded on
 * first use) over the fd table, so their reads and writes are the same broker ops, with the
 * same permission check at open, as `fs.readSync`/`fs.writeSync`.
 */
import { requirePart } from '../../parts-loader.ts';
import * as sync from './sync.ts';
import { closeFd } from './fds.ts';
import { toPathString } from './paths.ts';

interface StreamModule {
  Readable: new (options: Record<string, unknown>) => Record<string, unknown> & { push(chunk: unknown): boolean; destroy(error?: Error): void; emit(e: string, ...a: unknown[]): boolean };
  Writable: new (options: Record<string, unknown>) => Record<string, unknown> & { destroy(error?: Error): void; emit(e: string, ...a: unknown[]): boolean };
}

const streams = (): StreamModule => requirePart<{ modules: Record<string, StreamModule> }>('node-stream').modules.stream!;

interface ReadStreamOptions {
  flags?: string;
  encoding?: string;
  fd?: number | { fd: number };
  mode?: number;
  autoClose?: boolean;
  emitClose?: boolean;
  start?: number;
  end?: number;
  highWaterMark?: number;
}

function optionsOf<T>(options: unknown): T {
  if (typeof options === 'string') return { encoding: options } as T;
  return (options ?? {}) as T;
}

export function createReadStream(path: unknown, options?: unknown): unknown {
  const o = optionsOf<ReadStreamOptions>(options);
  const givenFd = typeof o.fd === 'object' && o.fd !== null ? o.fd.fd : o.fd;
  const p = givenFd === undefined ? toPathString(path) : undefined;
  const highWaterMark = o.highWaterMark ?? 64 * 1024;
  const end = o.end ?? Infinity;
  let position = o.start ?? (givenFd === undefined ? 0 : -1);
  let fd = givenFd;
  const autoClose = o.autoClose !== false;
  const { Readable } = streams();
  const stream = new Readable({
    highWaterMark,
    encoding: o.encoding,
    emitClose: o.emitClose !== false,
    construct(callback: (error?: Error | null) => void) {
      if (fd !== undefined) return callback();
      try {
        fd = sync.openSync(p!, o.flags ?? 'r', o.mode);
        stream.fd = fd;
        stream.emit('open', fd);
        stream.emit('ready');
        callback();
      } catch (error) {
        callback(error as Error);
      }
    },
    read(this: { push(chunk: unknown): boolean; destroy(error?: Error): void }, size: number) {
      try {
        const want = Math.min(size || highWaterMark, end === Infinity ? Infinity : end - position + 1);
        if (want <= 0) return void this.push(null);
        const buffer = sync.BufferClass.alloc(Math.min(want, highWaterMark));
        const n = sync.readSync(fd, buffer, 0, buffer.byteLength, position < 0 ? null : position);
        if (n === 0) return void this.push(null);
        if (position >= 0) position += n;
        stream.bytesRead = (stream.bytesRead as number) + n;
        this.push(buffer.subarray(0, n));
      } catch (error) {
        this.destroy(error as Error);
      }
    },
    destroy(error: Error | null, callback: (error?: Error | null) => void) {
      if (autoClose && fd !== undefined && givenFd === undefined) {
        try {
          closeFd(fd);
        } catch {
          // already closed
        }
      }
      callback(error);
    },
  });
  Object.assign(stream, { path: p ?? (path === undefined ? undefined : path), fd: fd ?? null, bytesRead: 0, flags: o.flags ?? 'r', mode: o.mode ?? 0o666, start: o.start, end: o.end, pending: fd === undefined });
  stream.close = (cb?: (err?: Error | null) => void) => {
    if (cb) (stream as unknown as { once(e: string, f: unknown): void }).once("close", cb);
    stream.destroy();
  };
  return stream;
}

interface WriteStreamOptions {
  flags?: string;
  encoding?: string;
  fd?: number | { fd: number };
  mode?: number;
  autoClose?: boolean;
  emitClose?: boolean;
  start?: number;
  flush?: boolean;
}

export function createWriteStream(path: unknown, options?: unknown): unknown {
  const o = optionsOf<WriteStreamOptions>(options);
  const givenFd = typeof o.fd === 'object' && o.fd !== null ? o.fd.fd : o.fd;
  const p = givenFd === undefined ? toPathString(path) : undefined;
  let fd = givenFd;
  let position = o.start ?? -1;
  const autoClose = o.autoClose !== false;
  const { Writable } = streams();
  const stream = new Writable({
    decodeStrings: true,
    defaultEncoding: o.encoding ?? 'utf8',
    emitClose: o.emitClose !== false,
    construct(callback: (error?: Error | null) => void) {
      if (fd !== undefined) return callback();
      try {
        fd = sync.openSync(p!, o.flags ?? 'w', o.mode);
        stream.fd = fd;
        stream.emit('open', fd);
        stream.emit('ready');
        callback();
      } catch (error) {
        callback(error as Error);
      }
    },
    write(chunk: Uint8Array, _encoding: string, callback: (error?: Error | null) => void) {
      try {
        const n = sync.writeSync(fd, chunk, 0, chunk.byteLength, position < 0 ? null : position);
        if (position >= 0) position += n;
        stream.bytesWritten = (stream.bytesWritten as number) + n;
        callback();
      } catch (error) {
        callback(error as Error);
      }
    },
    final(callback: (error?: Error | null) => void) {
      if (o.flush && fd !== undefined) {
        try {
          sync.fsyncSync(fd);
        } catch (error) {
          return callback(error as Error);
        }
      }
      callback();
    },
    destroy(error: Error | null, callback: (error?: Error | null) => void) {
      if (autoClose && fd !== undefined && givenFd === undefined) {
        try {
          closeFd(fd);
        } catch {
          // already closed
        }
      }
      callback(error);
    },
  });
  Object.assign(stream, { path: p, fd: fd ?? null, bytesWritten: 0, flags: o.flags ?? 'w', mode: o.mode ?? 0o666, start: o.start, pending: fd === undefined });
  stream.close = (cb?: (err?: Error | null) => void) => {
    if (cb) (stream as unknown as { once(e: string, f: unknown): void }).once("close", cb);
    (stream as unknown as { end(): void }).end();
  };
  return stream;
}
