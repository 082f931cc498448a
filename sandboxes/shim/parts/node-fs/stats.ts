/** Node's `fs.Stats` (and BigIntStats) and `fs.Dirent`, made from Deno's FileInfo and DirEntry. */
export interface FileInfo {
  isFile: boolean;
  isDirectory: boolean;
  isSymlink: boolean;
  size: number;
  mtime: Date | null;
  atime: Date | null;
  birthtime: Date | null;
  ctime: Date | null;
  dev: number;
  ino: number | null;
  mode: number | null;
  nlink: number | null;
  uid: number | null;
  gid: number | null;
  rdev: number | null;
  blksize: number | null;
  blocks: number | null;
  isBlockDevice: boolean | null;
  isCharDevice: boolean | null;
  isFifo: boolean | null;
  isSocket: boolean | null;
}

const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
const S_IFCHR = 0o020000;
const S_IFBLK = 0o060000;
const S_IFIFO = 0o010000;
const S_IFLNK = 0o120000;
const S_IFSOCK = 0o140000;

class StatsBase<T extends number | bigint> {
  declare dev: T;
  declare mode: T;
  declare nlink: T;
  declare uid: T;
  declare gid: T;
  declare rdev: T;
  declare blksize: T;
  declare ino: T;
  declare size: T;
  declare blocks: T;

  isDirectory(): boolean {
    return (Number(this.mode) & S_IFMT) === S_IFDIR;
  }
  isFile(): boolean {
    return (Number(this.mode) & S_IFMT) === S_IFREG;
  }
  isBlockDevice(): boolean {
    return (Number(this.mode) & S_IFMT) === S_IFBLK;
  }
  isCharacterDevice(): boolean {
    return (Number(this.mode) & S_IFMT) === S_IFCHR;
  }
  isSymbolicLink(): boolean {
    return (Number(this.mode) & S_IFMT) === S_IFLNK;
  }
  isFIFO(): boolean {
    return (Number(this.mode) & S_IFMT) === S_IFIFO;
  }
  isSocket(): boolean {
    return (Number(this.mode) & S_IFMT) === S_IFSOCK;
  }
}

export class Stats extends StatsBase<number> {
  declare atimeMs: number;
  declare mtimeMs: number;
  declare ctimeMs: number;
  declare birthtimeMs: number;
  declare atime: Date;
  declare mtime: Date;
  declare ctime: Date;
  declare birthtime: Date;
}

export class BigIntStats extends StatsBase<bigint> {
  declare atimeMs: bigint;
  declare mtimeMs: bigint;
  declare ctimeMs: bigint;
  declare birthtimeMs: bigint;
  declare atimeNs: bigint;
  declare mtimeNs: bigint;
  declare ctimeNs: bigint;
  declare birthtimeNs: bigint;
  declare atime: Date;
  declare mtime: Date;
  declare ctime: Date;
  declare birthtime: Date;
}

/** The file type bits Deno's FileInfo implies, for a mode it does not report. */
function typeBits(info: FileInfo): number {
  if (info.isFile) return S_IFREG;
  if (info.isDirectory) return S_IFDIR;
  if (info.isSymlink) return S_IFLNK;
  if (info.isCharDevice) return S_IFCHR;
  if (info.isBlockDevice) return S_IFBLK;
  if (info.isFifo) return S_IFIFO;
  if (info.isSocket) return S_IFSOCK;
  return 0;
}

export function toStats(info: FileInfo, bigint = false): Stats | BigIntStats {
  const mode = info.mode ?? typeBits(info);
  const ms = (d: Date | null) => (d === null ? 0 : d.getTime());
  const fields = {
    dev: info.dev ?? 0, mode, nlink: info.nlink ?? 1, uid: info.uid ?? 0, gid: info.gid ?? 0, rdev: info.rdev ?? 0,
    blksize: info.blksize ?? 4096, ino: info.ino ?? 0, size: info.size, blocks: info.blocks ?? 0,
  };
  const times = { atime: ms(info.atime), mtime: ms(info.mtime), ctime: ms(info.ctime ?? info.mtime), birthtime: ms(info.birthtime) };
  if (bigint) {
    const s = new BigIntStats();
    for (const [k, v] of Object.entries(fields)) (s as unknown as Record<string, bigint>)[k] = BigInt(Math.trunc(v));
    for (const [k, v] of Object.entries(times)) {
      (s as unknown as Record<string, bigint>)[`${k}Ms`] = BigInt(Math.trunc(v));
      (s as unknown as Record<string, bigint>)[`${k}Ns`] = BigInt(Math.trunc(v)) * 1_000_000n;
    }
    for (const [k, v] of Object.entries(times)) (s as unknown as Record<string, Date>)[k] = new Date(v);
    return s;
  }
  const s = new Stats();
  Object.assign(s, fields);
  for (const [k, v] of Object.entries(times)) (s as unknown as Record<string, number>)[`${k}Ms`] = v;
  for (const [k, v] of Object.entries(times)) (s as unknown as Record<string, Date>)[k] = new Date(v);
  return s;
}

export interface DirEntry {
  name: string;
  isFile: boolean;
  isDirectory: boolean;
  isSymlink: boolean;
}

export class Dirent {
  name: string;
  parentPath: string;
  path: string;
  readonly #type: 'file' | 'dir' | 'link' | 'other';

  constructor(name: string, parentPath: string, type: 'file' | 'dir' | 'link' | 'other') {
    this.name = name;
    this.parentPath = parentPath;
    this.path = parentPath;
    this.#type = type;
  }

  isFile(): boolean {
    return this.#type === 'file';
  }
  isDirectory(): boolean {
    return this.#type === 'dir';
  }
  isSymbolicLink(): boolean {
    return this.#type === 'link';
  }
  isBlockDevice(): boolean {
    return false;
  }
  isCharacterDevice(): boolean {
    return false;
  }
  isFIFO(): boolean {
    return false;
  }
  isSocket(): boolean {
    return false;
  }
}

export function toDirent(entry: DirEntry, parentPath: string): Dirent {
  return new Dirent(entry.name, parentPath, entry.isFile ? 'file' : entry.isDirectory ? 'dir' : entry.isSymlink ? 'link' : 'other');
}
