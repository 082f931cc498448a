/**
 * File-system ops behind `Deno.readTextFile`, `writeTextFile`, `readDir`, `stat`, `mkdir`,
 * `remove`, `realPath`. They run synchronously on the host (the shim still hands the script
 * a promise): a local file op costs tens of microseconds this way against hundreds for an
 * asynchronous round trip through the isolate's task queue, and it cannot block: every path
 * goes through `guardPath` (special files, strict symlinks, dangling links) and files are
 * opened by sandboxes/fs-safety/safe-open.ts (non-blocking, regular files only, reads capped by
 * the transfer limit).
 */
import { closeSync, existsSync, lstatSync, mkdirSync, readdirSync, rmSync, rmdirSync, statSync, unlinkSync, type Stats } from 'node:fs';
import path from 'node:path';
import { DenoOpError, fromNodeError } from '../../../kernel/broker/deno-error.ts';
import { actOn, guardPath } from './fs-guard.ts';
import { openDirNoFollow, removeTreeNoFollow } from '../../fs-safety/no-follow.ts';
import { defineOp, type BrokerContext, type PermissionNeed } from '../../../kernel/broker/op.ts';
import { isDiscardingDevice, isNullDevice } from './special-files.ts';
import { readRegularFile, UnsafeFileError, writeRegularFile } from '../../fs-safety/safe-open.ts';
import { bool, record, resolvePath, str } from '../../../kernel/broker/args.ts';
import { Refusal } from '../../../kernel/broker/refusal.ts';
import { WriteQuota } from '../../../kernel/broker/write-quota.ts';
import { pathAttempts } from '../../../kernel/broker/attempts.ts';

function statIsDir(p: string): boolean {
  try {
    return lstatSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** Folders `mkdir` will create: the target, and with `recursive` each missing parent. */
function missingFolders(target: string, recursive: boolean): number {
  let count = 0;
  for (let dir = target; ; dir = path.dirname(dir)) {
    if (existsSync(dir)) return count;
    count += 1;
    if (!recursive || path.dirname(dir) === dir) return count;
  }
}

/** Deno's words for an OS error; what safe-open refuses becomes the error a script can catch. */
/**
 * Deno's words for a failed file op. `bareNotDir`: the ops that open a file (readfile, writefile,
 * open, copy) name no path for ENOTDIR unless the run has `-A` (Deno 2.9 opens through its
 * permission-checked path then, whose error carries no context).
 */
export function fsError(error: unknown, syscall: string, given: string, cap?: number, options: { bareNotDir?: boolean } = {}): DenoOpError {
  if (options.bareNotDir && (error as NodeJS.ErrnoException | undefined)?.code === 'ENOTDIR') return new DenoOpError('NotADirectory', 'Not a directory (os error 20)', 'ENOTDIR');
  if (error instanceof UnsafeFileError) {
    if (error.reason === 'too-large') return new DenoOpError('InvalidData', `file of ${error.size ?? 'more than ' + cap} bytes is larger than the sandbox transfer cap of ${cap} bytes: ${syscall} '${given}'`);
    if (error.reason === 'changed') return new DenoOpError('Busy', `the file changed while it was being opened: ${syscall} '${given}'`);
    // Under strict symlinks the path was checked free of links; one there now was planted since.
    if (error.reason === 'link') return new DenoOpError('Busy', `a symbolic link appeared on the path while it was being opened (${error.path}); it was not followed: ${syscall} '${given}'`);
    if (error.reason === 'hard-link') return new DenoOpError('NotSupported', `the file has more than one hard link; the sandbox does not write such a file here: ${syscall} '${given}'`);
    return new DenoOpError('NotSupported', `not a regular file (a ${error.kind}); the sandbox reads and writes only regular files: ${syscall} '${given}'`);
  }
  return fromNodeError(error, syscall, given);
}

const pathArg = (raw: unknown, ctx: BrokerContext) => {
  const given = str(record(raw), 'path');
  return { path: resolvePath(ctx.cwd, given), given };
};
const need = (kind: 'read' | 'write') => <T extends { path: string; given: string }>(args: T): PermissionNeed[] => [{ kind, value: args.path, display: args.given }];

function readOp(name: string, encode: (data: Buffer) => string) {
  return defineOp({
    name,
    mode: 'sync',
    parse: pathArg,
    needs: need('read'),
    attempts: pathAttempts(['read', 'path']),
    run({ path: p, given }, ctx, call) {
      try {
        const g = guardPath(ctx, call, 'read', p, 'read-file');
        return encode(readRegularFile(g.target, ctx.maxResponseBytes, { stats: g.stats ?? undefined, noFollow: g.resolved, acceptDevice: isNullDevice }));
      } catch (error) {
        throw fsError(error, 'readfile', given, ctx.maxResponseBytes, { bareNotDir: !ctx.gate.allowsAll() });
      }
    },
  });
}

export const readTextFile = readOp('fs.readTextFile', (data) => data.toString('utf8'));
export const readFile = readOp('fs.readFile', (data) => data.toString('base64'));

export const writeFile = defineOp({
  name: 'fs.writeFile',
  mode: 'sync',
  parse(raw, ctx) {
    const o = record(raw);
    const text = o.text;
    const base64 = o.base64;
    if (typeof text !== 'string' && typeof base64 !== 'string') throw new DenoOpError('TypeError', 'data must be a string or bytes');
    const mode = typeof o.mode === 'number' ? o.mode : null;
    return { path: resolvePath(ctx.cwd, str(o, 'path')), given: str(o, 'path'), data: typeof text === 'string' ? Buffer.from(text, 'utf8') : Buffer.from(base64 as string, 'base64'), append: bool(o, 'append'), create: o.create !== false, createNew: bool(o, 'createNew'), mode };
  },
  needs: (args) => [{ kind: 'write', value: args.path, display: args.given }],
  attempts: pathAttempts(['write', 'path']),
  quota: true,
  run(args, ctx, call) {
    let refund: (() => void) | undefined;
    try {
      const g = guardPath(ctx, call, 'write', args.path, 'write-file', { create: args.create, createNew: args.createNew });
      // A persona's plugins: what lands in its folder has the persona's secrets scrubbed (scrubWrite).
      // by the path as granted (the real one may differ when the state directory is reached through a link)
      const data = ctx.scrubWrite ? Buffer.from(ctx.scrubWrite(g.abs, Buffer.from(args.data))) : args.data;
      const quota = ctx.scope.writes;
      if (quota && !(g.stats && isDiscardingDevice(g.stats))) {
        // Charged before a byte is written: what the file will hold, less what it holds now.
        const before = g.stats?.isFile() ? g.stats.size : 0;
        const after = args.append ? before + data.length : data.length;
        refund = quota.charge(after - before, g.stats === null ? 1 : 0, 'writefile', args.path, args.given);
      }
      writeRegularFile(g.target, data, {
        append: args.append,
        create: g.stats === null,
        // Deno applies `mode` to the file whether it is new or not, past the umask
        ...(args.mode === null ? {} : { mode: args.mode, chmod: args.mode }),
        ...(g.stats ? { stats: g.stats } : {}),
        noFollow: g.resolved,
        acceptDevice: isDiscardingDevice,
      });
      return null;
    } catch (error) {
      refund?.();
      if (error instanceof Refusal) throw error;
      throw fsError(error, 'writefile', args.given, undefined, { bareNotDir: !ctx.gate.allowsAll() });
    }
  },
});

export const readDir = defineOp({
  name: 'fs.readDir',
  mode: 'sync',
  parse: pathArg,
  needs: need('read'),
  attempts: pathAttempts(['read', 'path']),
  run({ path: p, given }, ctx, call) {
    try {
      const g = guardPath(ctx, call, 'read', p, 'read-dir');
      const entries = actOn(g, (at) => readdirSync(at, { withFileTypes: true }));
      return entries.map((e) => ({ name: e.name, isFile: e.isFile(), isDirectory: e.isDirectory(), isSymlink: e.isSymbolicLink() }));
    } catch (error) {
      throw fsError(error, 'readdir', given);
    }
  },
});

export function fileInfo(s: Stats, isSymlink: boolean) {
  const ms = (d: Date | undefined): number | null => (d ? d.getTime() : null);
  return {
    isFile: s.isFile(), isDirectory: s.isDirectory(), isSymlink, size: s.size,
    // Deno reports ctime in whole seconds.
    mtime: ms(s.mtime), atime: ms(s.atime), birthtime: ms(s.birthtime), ctime: Math.floor(s.ctimeMs / 1000) * 1000,
    dev: s.dev, ino: s.ino, mode: s.mode, nlink: s.nlink, uid: s.uid, gid: s.gid, rdev: s.rdev,
    blksize: s.blksize, blocks: s.blocks, isBlockDevice: s.isBlockDevice(), isCharDevice: s.isCharacterDevice(),
    isFifo: s.isFIFO(), isSocket: s.isSocket(),
  };
}

export const stat = defineOp({
  name: 'fs.stat',
  mode: 'sync',
  parse: (raw, ctx) => ({ ...pathArg(raw, ctx), follow: record(raw).follow !== false }),
  needs: need('read'),
  attempts: pathAttempts(['read', 'path']),
  run({ path: p, given, follow }, ctx, call) {
    try {
      const g = guardPath(ctx, call, 'read', p, follow ? 'stat' : 'lstat');
      if (!g.stats) throw Object.assign(new Error(`ENOENT: ${p}`), { code: 'ENOENT' });
      return fileInfo(g.stats, g.stats.isSymbolicLink());
    } catch (error) {
      throw fsError(error, follow ? 'stat' : 'lstat', given);
    }
  },
});

function existsButNotFolder(target: string): boolean {
  try {
    lstatSync(target);
  } catch {
    return false;
  }
  try {
    return !statSync(target).isDirectory();
  } catch {
    return true;
  }
}

export const mkdir = defineOp({
  name: 'fs.mkdir',
  mode: 'sync',
  parse: (raw, ctx) => {
    const o = record(raw);
    return { ...pathArg(raw, ctx), recursive: bool(o, 'recursive'), mode: typeof o.mode === 'number' ? o.mode : null };
  },
  needs: need('write'),
  attempts: pathAttempts(['write', 'path']),
  quota: true,
  run(args, ctx, call) {
    let refund: (() => void) | undefined;
    try {
      const g = guardPath(ctx, call, 'write', args.path, 'create-dir');
      // Deno's recursive mkdir (Rust's create_dir_all) answers EEXIST for a name that exists and is
      // not a folder, a dangling link included (Node's would go on to ENOENT)
      if (args.recursive && existsButNotFolder(g.target)) throw Object.assign(new Error(`EEXIST: ${args.path}`), { code: 'EEXIST' });
      if (ctx.scope.writes) refund = ctx.scope.writes.charge(0, missingFolders(g.target, args.recursive), 'mkdir', args.path, args.given);
      const mode = args.mode === null ? {} : { mode: args.mode };
      if (g.resolved && args.recursive) {
        // each missing folder made in the one held before it: no link followed on the way
        if (existsSync(g.target) && !statIsDir(g.target)) throw Object.assign(new Error(`EEXIST: ${g.target}`), { code: 'EEXIST' });
        closeSync(openDirNoFollow(g.target, { create: true, ...mode }));
      } else actOn(g, (at) => mkdirSync(at, { recursive: args.recursive, ...mode }));
      return null;
    } catch (error) {
      refund?.();
      if (error instanceof Refusal) throw error;
      throw fsError(error, 'mkdir', args.given);
    }
  },
});

export const remove = defineOp({
  name: 'fs.remove',
  mode: 'sync',
  parse: (raw, ctx) => ({ ...pathArg(raw, ctx), recursive: bool(record(raw), 'recursive') }),
  needs: need('write'),
  attempts: pathAttempts(['write', 'path']),
  quota: true,
  run(args, ctx, call) {
    try {
      const g = guardPath(ctx, call, 'write', args.path, 'remove');
      const s = g.stats;
      if (!s) throw Object.assign(new Error(`ENOENT: ${args.path}`), { code: 'ENOENT' });
      // Measured before, given back after: a removal that fails frees nothing.
      const freed = ctx.scope.writes ? (s.isDirectory() && !args.recursive ? { bytes: 0, entries: 1 } : WriteQuota.measure(g.target)) : null;
      if (s.isDirectory()) {
        if (args.recursive) {
          if (g.resolved) removeTreeNoFollow(g.target);
          else rmSync(g.target, { recursive: true, force: false });
        } else actOn(g, (at) => rmdirSync(at));
      } else actOn(g, (at) => unlinkSync(at));
      if (freed) ctx.scope.writes!.release(freed.bytes, freed.entries);
      return null;
    } catch (error) {
      throw fsError(error, 'remove', args.given);
    }
  },
});

export const realPath = defineOp({
  name: 'fs.realPath',
  mode: 'sync',
  parse: pathArg,
  needs: need('read'),
  attempts: pathAttempts(['read', 'path']),
  run({ path: p, given }, ctx, call) {
    try {
      return guardPath(ctx, call, 'read', p, 'real-path').real;
    } catch (error) {
      throw fsError(error, 'realpath', given);
    }
  },
});

export const cwd = defineOp({
  name: 'fs.cwd',
  mode: 'sync',
  parse: () => ({}),
  // Deno 2 answers Deno.cwd() without a read permission.
  needs: () => [],
  run: (_args, ctx) => ctx.cwd,
});
