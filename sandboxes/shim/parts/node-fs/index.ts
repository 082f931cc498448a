/**
 * `node:fs` and `node:fs/promises` (sync, callback and promise APIs, fds, streams, Stats,
 * Dirent), every effect a Deno API broker op with its permission check (sync.ts). A refused
 * permission is Deno's NotCapable; an OS error is Node's (`ENOENT: ..., open 'x'`).
 */
import * as sync from './sync.ts';
import { callbacks, FileHandle, promises } from './async.ts';
import { constants } from './constants.ts';
import { BigIntStats, Dirent, Stats } from './stats.ts';
import { Dir } from './dir.ts';
import { createReadStream, createWriteStream } from './streams.ts';

export { makeDir } from './dir.ts';

const fs: Record<string, unknown> = {
  constants,
  ...constants,
  Stats,
  BigIntStats,
  Dirent,
  Dir,
  FileHandle,
  ...callbacks,
  readFileSync: sync.readFileSync,
  writeFileSync: sync.writeFileSync,
  appendFileSync: sync.appendFileSync,
  existsSync: sync.existsSync,
  accessSync: sync.accessSync,
  statSync: sync.statSync,
  lstatSync: sync.lstatSync,
  fstatSync: sync.fstatSync,
  readdirSync: sync.readdirSync,
  mkdirSync: sync.mkdirSync,
  mkdtempSync: sync.mkdtempSync,
  rmSync: sync.rmSync,
  rmdirSync: sync.rmdirSync,
  unlinkSync: sync.unlinkSync,
  renameSync: sync.renameSync,
  copyFileSync: sync.copyFileSync,
  cpSync: sync.cpSync,
  linkSync: sync.linkSync,
  symlinkSync: sync.symlinkSync,
  readlinkSync: sync.readlinkSync,
  realpathSync: sync.realpathSync,
  chmodSync: sync.chmodSync,
  chownSync: sync.chownSync,
  truncateSync: sync.truncateSync,
  utimesSync: sync.utimesSync,
  openSync: sync.openSync,
  closeSync: sync.closeSync,
  readSync: sync.readSync,
  writeSync: sync.writeSync,
  readvSync: sync.readvSync,
  writevSync: sync.writevSync,
  ftruncateSync: sync.ftruncateSync,
  fsyncSync: sync.fsyncSync,
  fdatasyncSync: sync.fdatasyncSync,
  futimesSync: sync.futimesSync,
  fchmodSync: sync.fchmodSync,
  opendirSync: sync.opendirSync,
  createReadStream,
  createWriteStream,
  promises,
  // outside the sandbox's subset: watching needs a host watcher, the rest has no Deno op to stand on
  watch: sync.unsupported('watch'),
  watchFile: sync.unsupported('watchFile'),
  unwatchFile: sync.unsupported('unwatchFile'),
  statfs: sync.unsupported('statfs'),
  statfsSync: sync.unsupported('statfsSync'),
  lchown: sync.unsupported('lchown'),
  lchownSync: sync.unsupported('lchownSync'),
  lutimes: sync.unsupported('lutimes'),
  lutimesSync: sync.unsupported('lutimesSync'),
  fchown: sync.unsupported('fchown'),
  fchownSync: sync.unsupported('fchownSync'),
  glob: sync.unsupported('glob'),
  globSync: sync.unsupported('globSync'),
};
Object.defineProperty(fs, 'default', { value: fs, enumerable: false });
promises.constants = constants;
Object.defineProperty(promises, 'default', { value: promises, enumerable: false });

export const modules = { fs, 'fs/promises': promises };
