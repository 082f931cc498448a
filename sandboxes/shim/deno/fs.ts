/**
 * `Deno.readTextFile` and friends: thin wrappers over broker ops; the host checks paths.
 * The host does local file work synchronously (see kernel/broker/ops/fs.ts); these stay
 * async functions, so scripts get promises exactly as under Deno.
 */
import { callSync } from '../host.ts';
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
  readTextFile: async (path: PathLike) => callSync<string>('fs.readTextFile', { path: toPath(path) }),
  readFile: async (path: PathLike) => base64ToBytes(callSync<string>('fs.readFile', { path: toPath(path) })),
  writeTextFile: async (path: PathLike, data: string, options: WriteFileOptions = {}) => {
    callSync('fs.writeFile', { path: toPath(path), base64: null, text: String(data), ...pickWrite(options) });
  },
  writeFile: async (path: PathLike, data: Uint8Array, options: WriteFileOptions = {}) => {
    if (!(data instanceof Uint8Array)) throw new TypeError('data must be a Uint8Array');
    callSync('fs.writeFile', { path: toPath(path), base64: bytesToBase64(data), text: null, ...pickWrite(options) });
  },
  readDir: (path: PathLike) => {
    const target = toPath(path);
    return {
      async *[Symbol.asyncIterator]() {
        yield* callSync<{ name: string; isFile: boolean; isDirectory: boolean; isSymlink: boolean }[]>('fs.readDir', { path: target });
      },
    };
  },
  stat: async (path: PathLike) => toFileInfo(callSync<RawFileInfo>('fs.stat', { path: toPath(path), follow: true })),
  lstat: async (path: PathLike) => toFileInfo(callSync<RawFileInfo>('fs.stat', { path: toPath(path), follow: false })),
  mkdir: async (path: PathLike, options: { recursive?: boolean; mode?: number } = {}) => {
    callSync('fs.mkdir', { path: toPath(path), recursive: Boolean(options.recursive), mode: options.mode ?? null });
  },
  remove: async (path: PathLike, options: { recursive?: boolean } = {}) => {
    callSync('fs.remove', { path: toPath(path), recursive: Boolean(options.recursive) });
  },
  realPath: async (path: PathLike) => callSync<string>('fs.realPath', { path: toPath(path) }),
};

function pickWrite(options: WriteFileOptions): Required<Pick<WriteFileOptions, 'append' | 'create' | 'createNew'>> & { mode: number | null } {
  return { append: Boolean(options.append), create: options.create !== false, createNew: Boolean(options.createNew), mode: options.mode ?? null };
}
