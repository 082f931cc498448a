/**
 * File-system ops behind `Deno.readTextFile`, `writeTextFile`, `readDir`, `stat`, `mkdir`,
 * `remove`. They run synchronously on the host (the shim still hands the script a
 * promise): a local file op costs tens of microseconds this way against hundreds for an
 * asynchronous round trip through the isolate's task queue. Reads are bounded by the
 * transfer cap, so a huge file or an endless device cannot exhaust the kernel's memory.
 */
import { closeSync, fstatSync, lstatSync, mkdirSync, openSync, readdirSync, readSync, realpathSync, rmSync, rmdirSync, statSync, unlinkSync, accessSync, writeFileSync, type Stats } from 'node:fs';
import path from 'node:path';
import { DenoOpError, fromNodeError } from '../deno-error.ts';
import { defineOp, type BrokerContext, type PermissionNeed } from '../op.ts';
import { bool, record, resolvePath, str } from './args.ts';

/** The real location of `p` (or of its nearest existing ancestor, for paths being created). */
function realLocation(p: string): string {
  let current = p;
  const rest: string[] = [];
  for (;;) {
    try {
      return path.join(realpathSync(current), ...rest.reverse());
    } catch {
      const parent = path.dirname(current);
      if (parent === current) return p;
      rest.push(path.basename(current));
      current = parent;
    }
  }
}

/**
 * With `strictSymlinks`, a path inside the grant that resolves (through a symlink) to a
 * place outside it is refused, with the real path named. Deno itself follows such links;
 * untrusted drafts must not.
 */
export function checkReal(ctx: BrokerContext, kind: 'read' | 'write', p: string): void {
  if (!ctx.strictSymlinks) return;
  const real = realLocation(p);
  if (real !== p) ctx.gate.check(kind, real);
}

/** Reads at most `cap` bytes; a longer file (or an endless device) is refused, not read. */
export function readBounded(p: string, cap: number): Buffer {
  const fd = openSync(p, 'r');
  try {
    const size = fstatSync(fd).size;
    if (size > cap) throw new DenoOpError('InvalidData', `file of ${size} bytes is larger than the sandbox transfer cap of ${cap} bytes: ${p}`);
    // The stat size is a hint (files under /proc say 0, files can grow): read to EOF, bounded.
    let buffer = Buffer.allocUnsafe(Math.min(cap, size) + 1);
    let total = 0;
    for (;;) {
      if (total === buffer.length) {
        if (total > cap) throw new DenoOpError('InvalidData', `file is larger than the sandbox transfer cap of ${cap} bytes: ${p}`);
        const bigger = Buffer.allocUnsafe(Math.min(cap + 1, Math.max(65536, buffer.length * 2)));
        buffer.copy(bigger, 0, 0, total);
        buffer = bigger;
      }
      const n = readSync(fd, buffer, total, buffer.length - total, null);
      if (n === 0) break;
      total += n;
    }
    if (total > cap) throw new DenoOpError('InvalidData', `file is larger than the sandbox transfer cap of ${cap} bytes: ${p}`);
    return buffer.subarray(0, total);
  } finally {
    closeSync(fd);
  }
}

const pathArg = (raw: unknown, ctx: BrokerContext) => {
  const given = str(record(raw), 'path');
  return { path: resolvePath(ctx.cwd, given), given };
};
const need = (kind: 'read' | 'write') => <T extends { path: string; given: string }>(args: T): PermissionNeed[] => [{ kind, value: args.path, display: args.given }];

export const readTextFile = defineOp({
  name: 'fs.readTextFile',
  mode: 'sync',
  parse: pathArg,
  needs: need('read'),
  run({ path: p, given }, ctx) {
    checkReal(ctx, 'read', p);
    try {
      return readBounded(p, ctx.maxResponseBytes).toString('utf8');
    } catch (error) {
      throw fromNodeError(error, 'readfile', given);
    }
  },
});

export const readFile = defineOp({
  name: 'fs.readFile',
  mode: 'sync',
  parse: pathArg,
  needs: need('read'),
  run({ path: p, given }, ctx) {
    checkReal(ctx, 'read', p);
    try {
      return readBounded(p, ctx.maxResponseBytes).toString('base64');
    } catch (error) {
      throw fromNodeError(error, 'readfile', given);
    }
  },
});

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
  run(args, ctx) {
    checkReal(ctx, 'write', args.path);
    const flag = args.createNew ? (args.append ? 'ax' : 'wx') : args.append ? 'a' : 'w';
    try {
      if (!args.create && !args.createNew) accessSync(args.path);
      writeFileSync(args.path, args.data, { flag, ...(args.mode === null ? {} : { mode: args.mode }) });
      return null;
    } catch (error) {
      throw fromNodeError(error, 'writefile', args.given);
    }
  },
});

export const readDir = defineOp({
  name: 'fs.readDir',
  mode: 'sync',
  parse: pathArg,
  needs: need('read'),
  run({ path: p, given }, ctx) {
    checkReal(ctx, 'read', p);
    try {
      const entries = readdirSync(p, { withFileTypes: true });
      return entries.map((e) => ({ name: e.name, isFile: e.isFile(), isDirectory: e.isDirectory(), isSymlink: e.isSymbolicLink() }));
    } catch (error) {
      throw fromNodeError(error, 'readdir', given);
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
  run({ path: p, given, follow }, ctx) {
    if (follow) checkReal(ctx, 'read', p);
    try {
      const s = follow ? statSync(p) : lstatSync(p);
      return fileInfo(s, s.isSymbolicLink());
    } catch (error) {
      throw fromNodeError(error, follow ? 'stat' : 'lstat', given);
    }
  },
});

export const mkdir = defineOp({
  name: 'fs.mkdir',
  mode: 'sync',
  parse: (raw, ctx) => {
    const o = record(raw);
    return { ...pathArg(raw, ctx), recursive: bool(o, 'recursive'), mode: typeof o.mode === 'number' ? o.mode : null };
  },
  needs: need('write'),
  run(args, ctx) {
    checkReal(ctx, 'write', args.path);
    try {
      mkdirSync(args.path, { recursive: args.recursive, ...(args.mode === null ? {} : { mode: args.mode }) });
      return null;
    } catch (error) {
      throw fromNodeError(error, 'mkdir', args.given);
    }
  },
});

export const remove = defineOp({
  name: 'fs.remove',
  mode: 'sync',
  parse: (raw, ctx) => ({ ...pathArg(raw, ctx), recursive: bool(record(raw), 'recursive') }),
  needs: need('write'),
  run(args, ctx) {
    checkReal(ctx, 'write', path.dirname(args.path));
    try {
      const s = lstatSync(args.path);
      if (s.isDirectory()) {
        if (args.recursive) rmSync(args.path, { recursive: true, force: false });
        else rmdirSync(args.path);
      } else unlinkSync(args.path);
      return null;
    } catch (error) {
      throw fromNodeError(error, 'remove', args.given);
    }
  },
});

export const realPath = defineOp({
  name: 'fs.realPath',
  mode: 'sync',
  parse: pathArg,
  needs: need('read'),
  run({ path: p, given }) {
    try {
      return realpathSync(p);
    } catch (error) {
      throw fromNodeError(error, 'realpath', given);
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
