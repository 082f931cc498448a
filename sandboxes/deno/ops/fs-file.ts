/**
 * `Deno.open` / `Deno.create` and the `FsFile` methods. The open file is a host resource
 * (kernel/broker/resources.ts): the isolate holds its rid. Opens check the permissions Deno checks for
 * the options given (read, and write for write/append/create/truncate), then the path guard
 * (fs-guard.ts) for what the open does; the file is opened by safe-open (regular files,
 * folders to stat, and /dev/null only, non-blocking, the same inode the path named), so a
 * FIFO or a device can never stall the kernel; a truncating open truncates once the
 * descriptor is checked. The position is kept here and every read and
 * write is positioned (pread/pwrite), which is also how `seek` works without an lseek.
 *
 * Under a write quota (kernel/broker/write-quota.ts) an open that creates a file charges its entry, a
 * truncating open gives back the bytes it frees, and each write through the file (and each
 * `truncate` of it) charges what the file grows by before the bytes land (fs-charge.ts).
 */
import { closeSync, constants, fdatasyncSync, fstatSync, fsyncSync, ftruncateSync, futimesSync, readSync, writeSync, type Stats } from 'node:fs';
import { DenoOpError, fromNodeError } from '../../../kernel/broker/deno-error.ts';
import { guardPath } from './fs-guard.ts';
import { defineOp, type BrokerContext, type PermissionNeed } from '../../../kernel/broker/op.ts';
import { isDiscardingDevice, isNullDevice } from './special-files.ts';
import { openRegularFile } from '../../fs-safety/safe-open.ts';
import { resourcesOf, type Resource } from '../../../kernel/broker/resources.ts';
import { bool, int, record, resolvePath, str } from '../../../kernel/broker/args.ts';
import { fileInfo, fsError } from './fs.ts';
import { charged, releaseWrites, WriteCharge } from './fs-charge.ts';
import { lenientPath, rawObject, type Attempt } from '../../../kernel/broker/attempts.ts';

const { O_RDONLY, O_WRONLY, O_RDWR, O_APPEND } = constants;

interface FileResource extends Resource {
  kind: 'file';
  fd: number;
  position: number;
  append: boolean;
  path: string;
  /** as the script named it, for a refusal's message */
  given: string;
  /** writes through it count against the run's write quota (not /dev/null) */
  charged: boolean;
}

interface OpenArgs {
  path: string;
  given: string;
  read: boolean;
  write: boolean;
  append: boolean;
  truncate: boolean;
  create: boolean;
  createNew: boolean;
  mode: number | null;
}

function openArgs(raw: unknown, ctx: BrokerContext): OpenArgs {
  const o = record(raw);
  const given = str(o, 'path');
  const options = record(o.options ?? { read: true });
  const a: OpenArgs = {
    path: resolvePath(ctx.cwd, given),
    given,
    read: bool(options, 'read'),
    write: bool(options, 'write'),
    append: bool(options, 'append'),
    truncate: bool(options, 'truncate'),
    create: bool(options, 'create'),
    createNew: bool(options, 'createNew'),
    mode: typeof options.mode === 'number' ? options.mode : null,
  };
  if (!a.read && !a.write && !a.append && !a.truncate && !a.create && !a.createNew) throw new DenoOpError('Error', "'options' requires at least one option to be true");
  if ((a.create || a.createNew) && !a.write && !a.append) throw new DenoOpError('Error', "'create' or 'createNew' options require 'write' or 'append' to be true");
  if (a.truncate && !a.write) throw new DenoOpError('Error', "'truncate' option requires 'write' to be true");
  return a;
}

/** Deno's check_open: read when reading (or opening with no write mode), write when the file may change. */
function openNeeds(a: OpenArgs): PermissionNeed[] {
  const needs: PermissionNeed[] = [];
  if (a.read || (!a.write && !a.append)) needs.push({ kind: 'read', value: a.path, display: a.given });
  if (a.write || a.append || a.truncate || a.create || a.createNew) needs.push({ kind: 'write', value: a.path, display: a.given });
  return needs;
}

/** What an open attempts, read as openNeeds reads the options (options that do not parse: both). */
function openAttempts(raw: Record<string, unknown>, ctx: BrokerContext): Attempt[] {
  const o = rawObject(raw.options ?? { read: true });
  const value = lenientPath(ctx.cwd, raw.path);
  const writes = ['write', 'append', 'truncate', 'create', 'createNew'].some((k) => o[k] === true);
  const reads = o.read === true || (o.write !== true && o.append !== true);
  return [...(reads ? [{ kind: 'read' as const, value }] : []), ...(writes ? [{ kind: 'write' as const, value }] : [])];
}

export const open = defineOp({
  name: 'fs.open',
  mode: 'sync',
  parse: openArgs,
  needs: openNeeds,
  attempts: openAttempts,
  quota: true,
  run(a, ctx, call) {
    const writing = a.write || a.append;
    const access = a.read && writing ? O_RDWR : writing ? O_WRONLY : O_RDONLY;
    let fd: number | undefined;
    const charge = new WriteCharge(ctx, 'open', a.path, a.given);
    try {
      let target: string;
      let stats: Stats | null | undefined;
      let resolved: boolean;
      if (writing) {
        const g = guardPath(ctx, call, 'write', a.path, 'write-file', { create: a.create || a.createNew, createNew: a.createNew });
        // an existing file opened to read as well passes the read side of the guard too
        if (a.read && g.stats) guardPath(ctx, call, 'read', a.path, 'read-file');
        ({ target, stats, resolved } = g);
      } else {
        ({ target, stats, resolved } = guardPath(ctx, call, 'read', a.path, 'read-file'));
      }
      if (stats?.isDirectory() && writing) throw Object.assign(new Error('EISDIR'), { code: 'EISDIR' });
      // A folder may be opened to read (Deno allows it; its reads fail EISDIR), and /dev/null.
      const accept = (s: Stats): boolean => (writing ? isDiscardingDevice(s) : isNullDevice(s) || s.isDirectory());
      if (writing && stats === null) charge.add(0, 1);
      const opened = openRegularFile(target, access | (a.append ? O_APPEND : 0), { create: stats === null, ...(a.mode === null ? {} : { mode: a.mode }), ...(stats ? { stats } : {}), noFollow: resolved, acceptDevice: accept });
      fd = opened.fd;
      if (a.truncate && stats && opened.stats.isFile()) {
        ftruncateSync(fd, 0);
        releaseWrites(ctx, opened.stats.size, 0);
      }
      const fileFd = fd;
      const resource: FileResource = { kind: 'file', fd: fileFd, position: 0, append: a.append, path: a.path, given: a.given, charged: writing && charged(opened.stats), close: () => closeSync(fileFd) };
      return resourcesOf(ctx).add(resource);
    } catch (error) {
      charge.refund();
      if (fd !== undefined) closeSync(fd);
      throw fsError(error, 'open', a.given, undefined, { bareNotDir: !ctx.gate.allowsAll() });
    }
  },
});

function file(ctx: BrokerContext, rid: unknown): FileResource {
  return resourcesOf(ctx).get<FileResource>(rid, 'file');
}

const ridOnly = (raw: unknown) => ({ rid: record(raw).rid });

export const fileRead = defineOp({
  name: 'fs.file.read',
  mode: 'sync',
  parse: (raw, ctx) => ({ rid: record(raw).rid, length: Math.min(int(record(raw), 'length', 0, Number.MAX_SAFE_INTEGER), Math.floor(ctx.maxResponseBytes / 2)) }),
  needs: () => [],
  run(a, ctx) {
    const f = file(ctx, a.rid);
    if (a.length === 0) return '';
    const buffer = Buffer.allocUnsafe(a.length);
    let n: number;
    try {
      n = readSync(f.fd, buffer, 0, a.length, f.position);
    } catch (error) {
      throw fromNodeError(error, 'read', f.path);
    }
    if (n === 0) return null;
    f.position += n;
    return buffer.subarray(0, n).toString('base64');
  },
});

export const fileWrite = defineOp({
  name: 'fs.file.write',
  mode: 'sync',
  parse: (raw) => {
    const o = record(raw);
    return { rid: o.rid, data: Buffer.from(str(o, 'base64'), 'base64') };
  },
  needs: () => [],
  run(a, ctx) {
    const f = file(ctx, a.rid);
    const charge = new WriteCharge(ctx, 'write', f.path, f.given);
    try {
      if (f.charged && ctx.scope.writes) {
        // What the file grows by, charged before the bytes land.
        const size = fstatSync(f.fd).size;
        const end = (f.append ? size : f.position) + a.data.length;
        charge.add(Math.max(0, end - size), 0);
      }
      // O_APPEND writes at the end whatever position is given.
      const n = writeSync(f.fd, a.data, 0, a.data.length, f.append ? null : f.position);
      f.position = f.append ? fstatSync(f.fd).size : f.position + n;
      return n;
    } catch (error) {
      charge.refund();
      throw fromNodeError(error, 'write', f.path);
    }
  },
});

export const fileSeek = defineOp({
  name: 'fs.file.seek',
  mode: 'sync',
  parse: (raw) => {
    const o = record(raw);
    const offset = o.offset;
    if (typeof offset !== 'number' || !Number.isInteger(offset)) throw new DenoOpError('TypeError', 'offset must be an integer');
    return { rid: o.rid, offset, whence: int(o, 'whence', 0, 2) };
  },
  needs: () => [],
  run(a, ctx) {
    const f = file(ctx, a.rid);
    const base = a.whence === 0 ? 0 : a.whence === 1 ? f.position : fstatSync(f.fd).size;
    const next = base + a.offset;
    if (next < 0) throw new DenoOpError('TypeError', 'Invalid argument (os error 22)', 'EINVAL');
    f.position = next;
    return next;
  },
});

export const fileStat = defineOp({
  name: 'fs.file.stat',
  mode: 'sync',
  parse: ridOnly,
  needs: () => [],
  run(a, ctx) {
    const f = file(ctx, a.rid);
    return fileInfo(fstatSync(f.fd), false);
  },
});

export const fileTruncate = defineOp({
  name: 'fs.file.truncate',
  mode: 'sync',
  parse: (raw) => {
    const o = record(raw);
    return { rid: o.rid, len: o.len === undefined || o.len === null ? 0 : int(o, 'len', 0, Number.MAX_SAFE_INTEGER) };
  },
  needs: () => [],
  run(a, ctx) {
    const f = file(ctx, a.rid);
    const charge = new WriteCharge(ctx, 'ftruncate', f.path, f.given);
    try {
      if (f.charged && ctx.scope.writes) charge.add(a.len - fstatSync(f.fd).size, 0);
      ftruncateSync(f.fd, a.len);
      return null;
    } catch (error) {
      charge.refund();
      throw fromNodeError(error, 'ftruncate', f.path);
    }
  },
});

export const fileSync = defineOp({
  name: 'fs.file.sync',
  mode: 'sync',
  parse: (raw) => ({ rid: record(raw).rid, dataOnly: bool(record(raw), 'dataOnly') }),
  needs: () => [],
  run(a, ctx) {
    const f = file(ctx, a.rid);
    if (a.dataOnly) fdatasyncSync(f.fd);
    else fsyncSync(f.fd);
    return null;
  },
});

export const fileUtime = defineOp({
  name: 'fs.file.utime',
  mode: 'sync',
  parse: (raw) => {
    const o = record(raw);
    if (typeof o.atime !== 'number' || typeof o.mtime !== 'number') throw new DenoOpError('TypeError', 'atime and mtime must be numbers of seconds');
    return { rid: o.rid, atime: o.atime, mtime: o.mtime };
  },
  needs: () => [],
  run(a, ctx) {
    futimesSync(file(ctx, a.rid).fd, a.atime, a.mtime);
    return null;
  },
});

export const fileClose = defineOp({
  name: 'fs.file.close',
  mode: 'sync',
  parse: ridOnly,
  needs: () => [],
  run(a, ctx) {
    file(ctx, a.rid);
    resourcesOf(ctx).close(a.rid);
    return null;
  },
});

export const FILE_OPS = [open, fileRead, fileWrite, fileSeek, fileStat, fileTruncate, fileSync, fileUtime, fileClose];
