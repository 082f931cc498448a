/**
 * `Deno.readTextFile` and the rest of Deno's path-based file system API, each async
 * function with its `*Sync` twin. Both call the same broker op (sandboxes/deno/ops/fs.ts,
 * fs-more.ts; copyFile's two ops share one check in fs-copy.ts), so a sync variant is
 * checked exactly as its async twin is. The host does
 * local file work synchronously and never blocks on a special file (the ops open only
 * regular files, non-blocking); the async functions still hand the script a promise, as
 * Deno does. `Deno.open`/`FsFile` live in the fs-file part (loaded on first use).
 */
import { callAsync, callSync } from '../host.ts';
import { base64ToBytes, bytesToBase64 } from '../web/base64.ts';
import { reportUnanswered } from '../unsupported.ts';

export type PathLike = string | URL;

interface URL {
  protocol: string;
  pathname: string;
  hostname: string;
}

/** Deno's pathFromURL: a string as is, a file: URL as its path. */
export function toPath(path: unknown): string {
  if (typeof path === 'string') return path;
  const URLClass = (globalThis as unknown as { URL: new (u: string) => URL }).URL;
  if (path instanceof URLClass) {
    const url = path as URL;
    if (url.protocol !== 'file:') throw new TypeError('Must be a file URL.');
    if (url.hostname !== '') throw new TypeError('File URL host must be "localhost" or empty on linux');
    return decodeURIComponent(url.pathname);
  }
  return String(path);
}

interface RawFileInfo {
  mtime: number | null;
  atime: number | null;
  birthtime: number | null;
  ctime: number | null;
  [key: string]: unknown;
}

export function toFileInfo(raw: RawFileInfo): Record<string, unknown> {
  const date = (ms: number | null): Date | null => (ms === null ? null : new Date(ms));
  return { ...raw, mtime: date(raw.mtime), atime: date(raw.atime), birthtime: date(raw.birthtime), ctime: date(raw.ctime) };
}

export interface WriteFileOptions {
  append?: boolean;
  create?: boolean;
  createNew?: boolean;
  mode?: number;
  signal?: { aborted: boolean; reason: unknown };
}

interface DirEntry {
  name: string;
  isFile: boolean;
  isDirectory: boolean;
  isSymlink: boolean;
}

function checkSignal(options: { signal?: { aborted: boolean; reason: unknown } } | undefined): void {
  if (options?.signal?.aborted) throw options.signal.reason;
}

/**
 * Deno's file ops finish in a later turn, so an abort queued before the result arrives
 * wins: the host answers at once here, and the signal is looked at again one turn later.
 */
async function afterTurn<T>(options: { signal?: { aborted: boolean; reason: unknown } } | undefined, result: T): Promise<T> {
  if (!options?.signal) return result;
  await undefined;
  checkSignal(options);
  return result;
}

function pickWrite(options: WriteFileOptions): { append: boolean; create: boolean; createNew: boolean; mode: number | null } {
  return { append: Boolean(options.append), create: options.create !== false, createNew: Boolean(options.createNew), mode: options.mode ?? null };
}

/** Seconds since the epoch, as Deno.utime takes them (a Date or a number). */
function seconds(time: number | Date): number {
  return time instanceof Date ? time.getTime() / 1000 : Number(time);
}

function toBytes(data: unknown): Uint8Array {
  if (data instanceof Uint8Array) return data;
  throw new TypeError('data must be a Uint8Array');
}

/** A stream's chunks as one byte array; `text`: the chunks are strings (writeTextFile), UTF-8 encoded as Deno's TextEncoderStream does. */
async function collect(stream: { getReader(): { read(): Promise<{ value?: unknown; done: boolean }> } }, text = false): Promise<Uint8Array> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  const encoder = text ? new (globalThis as unknown as { TextEncoder: new () => { encode(s: string): Uint8Array } }).TextEncoder() : undefined;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    chunks.push(encoder ? encoder.encode(String(value)) : toBytes(value));
  }
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

function isStream(value: unknown): value is { getReader(): { read(): Promise<{ value?: Uint8Array; done: boolean }> } } {
  return typeof value === 'object' && value !== null && typeof (value as { getReader?: unknown }).getReader === 'function';
}

/** The sync implementations; each async twin is `async (...a) => sync(...a)`. */
const sync = {
  readTextFileSync: (path: PathLike) => callSync<string>('fs.readTextFile', { path: toPath(path) }),
  readFileSync: (path: PathLike) => base64ToBytes(callSync<string>('fs.readFile', { path: toPath(path) })),
  writeTextFileSync: (path: PathLike, data: string, options: WriteFileOptions = {}) => {
    callSync('fs.writeFile', { path: toPath(path), base64: null, text: String(data), ...pickWrite(options ?? {}) });
  },
  writeFileSync: (path: PathLike, data: Uint8Array, options: WriteFileOptions = {}) => {
    const target = toPath(path);
    let bytes: Uint8Array;
    try {
      bytes = toBytes(data);
    } catch (error) {
      // Deno's TypeError, before any check: the attempt to write the file is reported all the same.
      reportUnanswered('fs.writeFile', { path: target });
      throw error;
    }
    callSync('fs.writeFile', { path: target, base64: bytesToBase64(bytes), text: null, ...pickWrite(options ?? {}) });
  },
  readDirSync: (path: PathLike): IterableIterator<DirEntry> => callSync<DirEntry[]>('fs.readDir', { path: toPath(path) })[Symbol.iterator](),
  statSync: (path: PathLike) => toFileInfo(callSync<RawFileInfo>('fs.stat', { path: toPath(path), follow: true })),
  lstatSync: (path: PathLike) => toFileInfo(callSync<RawFileInfo>('fs.stat', { path: toPath(path), follow: false })),
  mkdirSync: (path: PathLike, options: { recursive?: boolean; mode?: number } = {}) => {
    callSync('fs.mkdir', { path: toPath(path), recursive: Boolean(options?.recursive), mode: options?.mode ?? null });
  },
  removeSync: (path: PathLike, options: { recursive?: boolean } = {}) => {
    callSync('fs.remove', { path: toPath(path), recursive: Boolean(options?.recursive) });
  },
  realPathSync: (path: PathLike) => callSync<string>('fs.realPath', { path: toPath(path) }),
  copyFileSync: (from: PathLike, to: PathLike) => void callSync('fs.copyFileSync', { from: toPath(from), to: toPath(to) }),
  renameSync: (oldpath: PathLike, newpath: PathLike) => void callSync('fs.rename', { oldpath: toPath(oldpath), newpath: toPath(newpath) }),
  linkSync: (oldpath: string, newpath: string) => void callSync('fs.link', { oldpath: toPath(oldpath), newpath: toPath(newpath) }),
  symlinkSync: (oldpath: PathLike, newpath: PathLike, options?: { type?: 'file' | 'dir' | 'junction' }) =>
    void callSync('fs.symlink', { oldpath: toPath(oldpath), newpath: toPath(newpath), type: options?.type ?? null, sync: true }),
  readLinkSync: (path: PathLike) => callSync<string>('fs.readLink', { path: toPath(path) }),
  chmodSync: (path: PathLike, mode: number) => void callSync('fs.chmod', { path: toPath(path), mode }),
  chownSync: (path: PathLike, uid: number | null, gid: number | null) => void callSync('fs.chown', { path: toPath(path), uid, gid }),
  // a negative length is 0, as in Deno
  truncateSync: (name: string, len?: number) => void callSync('fs.truncate', { path: toPath(name), len: Math.max(0, len ?? 0) }),
  utimeSync: (path: PathLike, atime: number | Date, mtime: number | Date) => void callSync('fs.utime', { path: toPath(path), atime: seconds(atime), mtime: seconds(mtime) }),
  makeTempDirSync: (options: { dir?: string; prefix?: string; suffix?: string } = {}) =>
    callSync<string>('fs.makeTempDir', { dir: options?.dir === undefined ? null : toPath(options.dir), prefix: options?.prefix ?? null, suffix: options?.suffix ?? null }),
  makeTempFileSync: (options: { dir?: string; prefix?: string; suffix?: string } = {}) =>
    callSync<string>('fs.makeTempFile', { dir: options?.dir === undefined ? null : toPath(options.dir), prefix: options?.prefix ?? null, suffix: options?.suffix ?? null }),
};

export const fs = {
  ...sync,
  readTextFile: async (path: PathLike, options?: { signal?: { aborted: boolean; reason: unknown } }) => {
    checkSignal(options);
    return await afterTurn(options, sync.readTextFileSync(path));
  },
  readFile: async (path: PathLike, options?: { signal?: { aborted: boolean; reason: unknown } }) => {
    checkSignal(options);
    return await afterTurn(options, sync.readFileSync(path));
  },
  // As Deno: the write completes, and an abort that came meanwhile is still thrown afterwards.
  writeTextFile: async (path: PathLike, data: string | unknown, options: WriteFileOptions = {}) => {
    checkSignal(options);
    if (isStream(data)) return await afterTurn(options, sync.writeFileSync(path, await collect(data, true), options));
    return await afterTurn(options, sync.writeTextFileSync(path, data as string, options));
  },
  writeFile: async (path: PathLike, data: Uint8Array | unknown, options: WriteFileOptions = {}) => {
    checkSignal(options);
    return await afterTurn(options, sync.writeFileSync(path, isStream(data) ? await collect(data) : (data as Uint8Array), options));
  },
  readDir: (path: PathLike): AsyncIterableIterator<DirEntry> => {
    const target = toPath(path);
    let entries: DirEntry[] | undefined;
    let at = 0;
    const iterator: AsyncIterableIterator<DirEntry> = {
      async next() {
        entries ??= callSync<DirEntry[]>('fs.readDir', { path: target });
        return at < entries.length ? { value: entries[at++]!, done: false } : { value: undefined, done: true };
      },
      [Symbol.asyncIterator]() {
        return iterator;
      },
    };
    return iterator;
  },
  stat: async (path: PathLike) => sync.statSync(path),
  lstat: async (path: PathLike) => sync.lstatSync(path),
  mkdir: async (path: PathLike, options?: { recursive?: boolean; mode?: number }) => sync.mkdirSync(path, options),
  remove: async (path: PathLike, options?: { recursive?: boolean }) => sync.removeSync(path, options),
  realPath: async (path: PathLike) => sync.realPathSync(path),
  // asynchronous on the host too: a large copy never holds the kernel's thread (fs-copy.ts)
  copyFile: async (from: PathLike, to: PathLike) => void (await callAsync('fs.copyFile', { from: toPath(from), to: toPath(to) })),
  rename: async (oldpath: PathLike, newpath: PathLike) => sync.renameSync(oldpath, newpath),
  link: async (oldpath: string, newpath: string) => sync.linkSync(oldpath, newpath),
  symlink: async (oldpath: PathLike, newpath: PathLike, options?: { type?: 'file' | 'dir' | 'junction' }) =>
    void callSync('fs.symlink', { oldpath: toPath(oldpath), newpath: toPath(newpath), type: options?.type ?? null, sync: false }),
  readLink: async (path: PathLike) => sync.readLinkSync(path),
  chmod: async (path: PathLike, mode: number) => sync.chmodSync(path, mode),
  chown: async (path: PathLike, uid: number | null, gid: number | null) => sync.chownSync(path, uid, gid),
  truncate: async (name: string, len?: number) => sync.truncateSync(name, len),
  utime: async (path: PathLike, atime: number | Date, mtime: number | Date) => sync.utimeSync(path, atime, mtime),
  makeTempDir: async (options?: { dir?: string; prefix?: string; suffix?: string }) => sync.makeTempDirSync(options),
  makeTempFile: async (options?: { dir?: string; prefix?: string; suffix?: string }) => sync.makeTempFileSync(options),
  umask: (mask?: number) => callSync<number>('fs.umask', { mask: mask ?? null }),
};
