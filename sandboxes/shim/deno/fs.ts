/** `Deno.readTextFile` and friends: thin wrappers over broker ops; the host checks paths. */
import { callAsync } from '../host.ts';
import { base64ToBytes, bytesToBase64 } from '../web/base64.ts';

type PathLike = string | URL;

function toPath(path: PathLike): string {
  if (typeof path === 'string') return path;
  if (path instanceof URL) {
    if (path.protocol !== 'file:') throw new TypeError('Must be a file URL.');
    return decodeURIComponent(path.pathname);
  }
  throw new TypeError('Path must be a string or a file URL');
}

interface RawFileInfo {
  isFile: boolean;
  isDirectory: boolean;
  isSymlink: boolean;
  size: number;
  mtime: number | null;
  atime: number | null;
  birthtime: number | null;
  ctime: number | null;
  dev: number;
  ino: number;
  mode: number;
  nlink: number;
  uid: number;
  gid: number;
  rdev: number;
  blksize: number;
  blocks: number;
  isBlockDevice: boolean;
  isCharDevice: boolean;
  isFifo: boolean;
  isSocket: boolean;
}

function toFileInfo(raw: RawFileInfo): Record<string, unknown> {
  const date = (ms: number | null): Date | null => (ms === null ? null : new Date(ms));
  return { ...raw, mtime: date(raw.mtime), atime: date(raw.atime), birthtime: date(raw.birthtime), ctime: date(raw.ctime) };
}

export interface WriteFileOptions {
  append?: boolean;
  create?: boolean;
  createNew?: boolean;
  mode?: number;
}

export const fs = {
  readTextFile: (path: PathLike) => callAsync<string>('fs.readTextFile', { path: toPath(path) }),
  readFile: async (path: PathLike) => base64ToBytes(await callAsync<string>('fs.readFile', { path: toPath(path) })),
  writeTextFile: async (path: PathLike, data: string, options: WriteFileOptions = {}) => {
    await callAsync('fs.writeFile', { path: toPath(path), base64: null, text: String(data), ...pickWrite(options) });
  },
  writeFile: async (path: PathLike, data: Uint8Array, options: WriteFileOptions = {}) => {
    if (!(data instanceof Uint8Array)) throw new TypeError('data must be a Uint8Array');
    await callAsync('fs.writeFile', { path: toPath(path), base64: bytesToBase64(data), text: null, ...pickWrite(options) });
  },
  readDir: (path: PathLike) => {
    const entries = callAsync<{ name: string; isFile: boolean; isDirectory: boolean; isSymlink: boolean }[]>('fs.readDir', { path: toPath(path) });
    return {
      async *[Symbol.asyncIterator]() {
        for (const entry of await entries) yield entry;
      },
    };
  },
  stat: async (path: PathLike) => toFileInfo(await callAsync<RawFileInfo>('fs.stat', { path: toPath(path), follow: true })),
  lstat: async (path: PathLike) => toFileInfo(await callAsync<RawFileInfo>('fs.stat', { path: toPath(path), follow: false })),
  mkdir: async (path: PathLike, options: { recursive?: boolean; mode?: number } = {}) => {
    await callAsync('fs.mkdir', { path: toPath(path), recursive: Boolean(options.recursive), mode: options.mode ?? null });
  },
  remove: async (path: PathLike, options: { recursive?: boolean } = {}) => {
    await callAsync('fs.remove', { path: toPath(path), recursive: Boolean(options.recursive) });
  },
  realPath: (path: PathLike) => callAsync<string>('fs.realPath', { path: toPath(path) }),
};

function pickWrite(options: WriteFileOptions): Required<Pick<WriteFileOptions, 'append' | 'create' | 'createNew'>> & { mode: number | null } {
  return { append: Boolean(options.append), create: options.create !== false, createNew: Boolean(options.createNew), mode: options.mode ?? null };
}
