/**
 * The rest of Deno's path-based file system ops: `copyFile`, `rename`, `makeTempDir`,
 * `makeTempFile`, `chmod`, `chown`, `truncate`, `symlink`, `readLink`, `link`, `utime`,
 * `umask`. Each needs exactly the permissions Deno checks, in Deno's order (so the first
 * refusal names the same path), then passes every path it touches through the one path
 * guard (fs-guard.ts: special files, the kernel's own files, strict symlinks, dangling
 * links) with the intent of what it does to it, and acts on the guarded target; files are
 * opened only through sandboxes/fs-safety/safe-open.ts (fs-copy.ts). OS errors carry Deno's
 * messages, two-path ones as `rename 'a' -> 'b'`. The `*Sync` variants in the shim call
 * these same ops: one check, one behaviour.
 *
 * Every op that needs `write` declares `quota: true` and charges the run's write quota
 * (fs-charge.ts) for what it adds before it acts: an entry for a new name (link, symlink,
 * a temporary file or folder), the growth of a truncated file; a rename over an existing
 * entry gives back what that entry held; chmod, chown and utime add nothing.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, closeSync, constants, fchmodSync, fchownSync, ftruncateSync, futimesSync, linkSync, mkdirSync, readlinkSync, renameSync, symlinkSync, utimesSync } from 'node:fs';
import path from 'node:path';
import { DenoOpError } from '../../../kernel/broker/deno-error.ts';
import { actOn, actOnFollowed, guardPath } from './fs-guard.ts';
import { defineOp, type BrokerContext, type OpCall, type PermissionNeed } from '../../../kernel/broker/op.ts';
import { openRegularFile } from '../../fs-safety/safe-open.ts';
import { int, optStr, record, resolvePath, str } from '../../../kernel/broker/args.ts';
import { fsError } from './fs.ts';
import { charged, measureFreed, releaseWrites, WriteCharge } from './fs-charge.ts';
import { lenientPath, pathAttempts, wholeKind, type Attempt } from '../../../kernel/broker/attempts.ts';

type Kind = 'read' | 'write';

function pathOf(o: Record<string, unknown>, key: string, ctx: BrokerContext): { path: string; given: string } {
  const given = str(o, key);
  return { path: resolvePath(ctx.cwd, given), given };
}

function needOf(kind: Kind, p: { path: string; given: string }): PermissionNeed {
  return { kind, value: p.path, display: p.given };
}

/** Deno's message for an OS error on two paths: `No such file or directory (os error 2): copy 'a' -> 'b'`. */
export function twoPathError(error: unknown, syscall: string, from: string, to: string, options: { bareNotDir?: boolean } = {}): DenoOpError {
  // Refusals (and errors already in Deno's words) go back as they are.
  if (error instanceof DenoOpError) return error;
  const e = fsError(error, syscall, from, undefined, options);
  if (options.bareNotDir && e.osCode === 'ENOTDIR') return e;
  const message = e.message.endsWith(`'${from}'`) ? `${e.message} -> '${to}'` : `${e.message}: ${syscall} '${from}' -> '${to}'`;
  return new DenoOpError(e.denoClass, message, e.osCode);
}

export const rename = defineOp({
  name: 'fs.rename',
  mode: 'sync',
  parse: (raw, ctx) => {
    const o = record(raw);
    return { from: pathOf(o, 'oldpath', ctx), to: pathOf(o, 'newpath', ctx) };
  },
  needs: (a) => [needOf('read', a.from), needOf('write', a.from), needOf('write', a.to)],
  attempts: pathAttempts(['read', 'oldpath'], ['write', 'oldpath'], ['write', 'newpath']),
  quota: true,
  run({ from, to }, ctx, call) {
    try {
      // Both entries themselves (a link is renamed, not followed).
      const source = guardPath(ctx, call, 'write', from.path, 'remove');
      const target = guardPath(ctx, call, 'write', to.path, 'remove');
      // The entry replaced (a file, an empty folder) is freed once the rename is done; a name onto itself frees nothing.
      const same = source.stats && target.stats && source.stats.dev === target.stats.dev && source.stats.ino === target.stats.ino;
      const freed = same ? null : measureFreed(ctx, target.target, target.stats);
      actOn(source, (from) => actOn(target, (to) => renameSync(from, to)));
      if (freed) releaseWrites(ctx, freed.bytes, freed.entries);
      return null;
    } catch (error) {
      throw twoPathError(error, 'rename', from.given, to.given);
    }
  },
});

export const link = defineOp({
  name: 'fs.link',
  mode: 'sync',
  parse: (raw, ctx) => {
    const o = record(raw);
    return { from: pathOf(o, 'oldpath', ctx), to: pathOf(o, 'newpath', ctx) };
  },
  needs: (a) => [needOf('read', a.from), needOf('write', a.from), needOf('read', a.to), needOf('write', a.to)],
  attempts: pathAttempts(['read', 'oldpath'], ['write', 'oldpath'], ['read', 'newpath'], ['write', 'newpath']),
  quota: true,
  run({ from, to }, ctx, call) {
    const charge = new WriteCharge(ctx, 'link', to.path, to.given);
    try {
      // link(2) links the entry itself (a symlink is not followed); the new name is a new entry.
      const source = guardPath(ctx, call, 'read', from.path, 'lstat');
      const target = guardPath(ctx, call, 'write', to.path, 'remove');
      charge.add(0, 1);
      actOn(source, (from) => actOn(target, (to) => linkSync(from, to)));
      return null;
    } catch (error) {
      charge.refund();
      throw twoPathError(error, 'link', from.given, to.given);
    }
  },
});

const unscopedSymlink = (api: string) =>
  `${api}() requires unscoped --allow-read and --allow-write permissions; path-scoped grants (e.g. --allow-write=<path>) are not supported because a symlink's target is only resolved when the link is traversed`;

export const symlink = defineOp({
  name: 'fs.symlink',
  mode: 'sync',
  parse: (raw, ctx) => {
    const o = record(raw);
    const type = optStr(o, 'type');
    return { target: str(o, 'oldpath'), link: pathOf(o, 'newpath', ctx), type, api: o.sync === true ? 'Deno.symlinkSync' : 'Deno.symlink' };
  },
  // The target is only resolved when the link is used, so no path grant can cover it.
  needs: (a) => [
    { kind: 'read', message: unscopedSymlink(a.api) },
    { kind: 'write', message: unscopedSymlink(a.api) },
  ],
  attempts: wholeKind('read', 'write'),
  quota: true,
  run(a, ctx, call) {
    const charge = new WriteCharge(ctx, 'symlink', a.link.path, a.link.given);
    try {
      const entry = guardPath(ctx, call, 'write', a.link.path, 'remove');
      // A new entry holding the target's path.
      charge.add(Buffer.byteLength(a.target), 1);
      actOn(entry, (at) => symlinkSync(a.target, at));
      return null;
    } catch (error) {
      charge.refund();
      throw twoPathError(error, 'symlink', a.target, a.link.given);
    }
  },
});

export const readLink = defineOp({
  name: 'fs.readLink',
  mode: 'sync',
  parse: (raw, ctx) => pathOf(record(raw), 'path', ctx),
  needs: (p) => [needOf('read', p)],
  attempts: pathAttempts(['read', 'path']),
  run(p, ctx, call) {
    try {
      return actOn(guardPath(ctx, call, 'read', p.path, 'lstat'), (at) => readlinkSync(at));
    } catch (error) {
      throw fsError(error, 'readlink', p.given);
    }
  },
});

export const chmod = defineOp({
  name: 'fs.chmod',
  mode: 'sync',
  parse: (raw, ctx) => {
    const o = record(raw);
    // Deno takes a whole st_mode (0o100755) and keeps the permission bits.
    return { ...pathOf(o, 'path', ctx), mode: int(o, 'mode', 0, 0o177777) & 0o7777 };
  },
  needs: (p) => [needOf('write', p)],
  attempts: pathAttempts(['write', 'path']),
  // adds nothing to the disk: nothing to charge
  quota: true,
  run(p, ctx, call) {
    try {
      // What the path reaches (links followed, as chmod(2) does).
      const g = guardPath(ctx, call, 'write', p.path, 'stat');
      actOnFollowed(g, (fd) => fchmodSync(fd, p.mode), (at) => chmodSync(at, p.mode));
      return null;
    } catch (error) {
      throw fsError(error, 'chmod', p.given);
    }
  },
});

export const chown = defineOp({
  name: 'fs.chown',
  mode: 'sync',
  parse: (raw, ctx) => {
    const o = record(raw);
    const id = (key: string): number | null => (o[key] === null || o[key] === undefined ? null : int(o, key, 0, 2 ** 32 - 1));
    return { ...pathOf(o, 'path', ctx), uid: id('uid'), gid: id('gid') };
  },
  needs: (p) => [needOf('write', p)],
  attempts: pathAttempts(['write', 'path']),
  // adds nothing to the disk: nothing to charge
  quota: true,
  run(p, ctx, call) {
    try {
      // What the path reaches (links followed, as chown(2) does).
      const g = guardPath(ctx, call, 'write', p.path, 'stat');
      actOnFollowed(g, (fd) => fchownSync(fd, p.uid ?? -1, p.gid ?? -1), (at) => chownSync(at, p.uid ?? -1, p.gid ?? -1));
      return null;
    } catch (error) {
      throw fsError(error, 'chown', p.given);
    }
  },
});

export const truncate = defineOp({
  name: 'fs.truncate',
  mode: 'sync',
  parse: (raw, ctx) => {
    const o = record(raw);
    return { ...pathOf(o, 'path', ctx), len: o.len === undefined || o.len === null ? 0 : int(o, 'len', 0, Number.MAX_SAFE_INTEGER) };
  },
  needs: (p) => [needOf('write', p)],
  attempts: pathAttempts(['write', 'path']),
  quota: true,
  run(p, ctx, call) {
    const charge = new WriteCharge(ctx, 'truncate', p.path, p.given);
    try {
      // Deno opens the file for writing, without creating it: only a regular file, non-blocking.
      const g = guardPath(ctx, call, 'write', p.path, 'write-file', { create: false });
      const { fd, stats } = openRegularFile(g.target, constants.O_WRONLY, { ...(g.stats ? { stats: g.stats } : {}), noFollow: g.resolved });
      try {
        // Growing charges the new length first; shrinking gives back what it frees.
        if (charged(stats)) charge.add(p.len - stats.size, 0);
        ftruncateSync(fd, p.len);
      } finally {
        closeSync(fd);
      }
      return null;
    } catch (error) {
      charge.refund();
      throw fsError(error, 'truncate', p.given);
    }
  },
});

export const utime = defineOp({
  name: 'fs.utime',
  mode: 'sync',
  parse: (raw, ctx) => {
    const o = record(raw);
    const time = (key: string): number => {
      const v = o[key];
      if (typeof v !== 'number' || !Number.isFinite(v)) throw new DenoOpError('TypeError', `"${key}" must be a number of seconds`);
      return v;
    };
    return { ...pathOf(o, 'path', ctx), atime: time('atime'), mtime: time('mtime') };
  },
  needs: (p) => [needOf('write', p)],
  attempts: pathAttempts(['write', 'path']),
  // adds nothing to the disk: nothing to charge
  quota: true,
  run(p, ctx, call) {
    try {
      // What the path reaches (links followed, as utime(2) does).
      const g = guardPath(ctx, call, 'write', p.path, 'stat');
      actOnFollowed(g, (fd) => futimesSync(fd, p.atime, p.mtime), (at) => utimesSync(at, p.atime, p.mtime));
      return null;
    } catch (error) {
      throw fsError(error, 'utime', p.given);
    }
  },
});

/** Deno's temporary names: prefix, 16 hex digits, suffix. */
function tempName(prefix: string, suffix: string): string {
  return `${prefix}${randomBytes(8).toString('hex')}${suffix}`;
}

function tempArgs(raw: unknown, ctx: BrokerContext) {
  const o = record(raw);
  const dir = optStr(o, 'dir');
  const prefix = optStr(o, 'prefix') ?? '';
  const suffix = optStr(o, 'suffix') ?? '';
  for (const part of [prefix, suffix]) {
    const bad = /[/\\*?"<>|:\x00-\x1f\x7f-\x9f]/.exec(part);
    if (bad) throw new DenoOpError('Error', `Invalid character in prefix or suffix: ${JSON.stringify(bad[0])}`);
  }
  // Without a dir, Deno uses the temp folder and names it <TMP> when refusing.
  const tmp = ctx.env.TMPDIR || '/tmp';
  return dir === null
    ? { dir: { path: resolvePath(ctx.cwd, tmp), given: tmp }, shown: '<TMP>', explicit: false, prefix, suffix }
    : { dir: { path: resolvePath(ctx.cwd, dir), given: dir }, shown: dir, explicit: true, prefix, suffix };
}

function tempOp(name: string, syscall: 'tmpdir' | 'tmpfile', make: (ctx: BrokerContext, call: OpCall, p: string) => void) {
  return defineOp({
    name,
    mode: 'sync',
    parse: tempArgs,
    // Deno names the default folder <TMP>, unquoted.
    needs: (a) => [{ kind: 'write', value: a.dir.path, display: a.shown, ...(a.explicit ? {} : { message: 'Requires write access to <TMP>, run again with the --allow-write flag' }) }],
    attempts: (raw, ctx) => [{ kind: 'write', value: lenientPath(ctx.cwd, typeof raw.dir === 'string' ? raw.dir : ctx.env.TMPDIR || '/tmp') }],
    quota: true,
    run(a, ctx, call) {
      for (let attempt = 0; ; attempt++) {
        const leaf = tempName(a.prefix, a.suffix);
        // One new entry, charged before it is made and given back if it is not.
        const charge = new WriteCharge(ctx, syscall === 'tmpdir' ? 'mkdtemp' : 'mkstemp', path.join(a.dir.path, leaf), a.explicit ? path.join(a.dir.given, leaf) : path.join(a.dir.path, leaf));
        try {
          charge.add(0, 1);
          make(ctx, call, path.join(a.dir.path, leaf));
          // Deno answers with the folder as given (relative stays relative).
          return a.explicit ? `${a.dir.given === '/' ? '' : a.dir.given.replace(/\/+$/, '')}/${leaf}` : path.join(a.dir.path, leaf);
        } catch (error) {
          charge.refund();
          if ((error as NodeJS.ErrnoException).code === 'EEXIST' && attempt < 10) continue;
          if (error instanceof DenoOpError) throw error;
          const e = fsError(error, syscall, '');
          throw new DenoOpError(e.denoClass, e.message.replace(/: \w+ ''$/, `: ${syscall}`), e.osCode);
        }
      }
    },
  });
}

export const makeTempDir = tempOp('fs.makeTempDir', 'tmpdir', (ctx, call, p) => {
  const g = guardPath(ctx, call, 'write', p, 'create-dir');
  actOn(g, (at) => mkdirSync(at, { mode: 0o700 }));
});
export const makeTempFile = tempOp('fs.makeTempFile', 'tmpfile', (ctx, call, p) => {
  const g = guardPath(ctx, call, 'write', p, 'write-file', { createNew: true });
  closeSync(openRegularFile(g.target, constants.O_WRONLY, { create: true, mode: 0o600, noFollow: g.resolved }).fd);
});

let umaskValue: number | undefined;

export const umask = defineOp({
  name: 'fs.umask',
  mode: 'sync',
  parse: (raw) => {
    const o = record(raw);
    return { mask: o.mask === undefined || o.mask === null ? null : int(o, 'mask', 0, 0o777) };
  },
  needs: () => [],
  // The kernel's umask is shared by every isolate: a script may read it, never change it.
  run(a) {
    if (a.mask !== null) throw new DenoOpError('NotSupported', 'RTC_ERR_UNSUPPORTED: Deno.umask(mask) would change the umask of the whole kernel; only Deno.umask() is supported; see docs/sandbox.md, "What the sandbox supports"');
    if (umaskValue === undefined) {
      umaskValue = process.umask();
    }
    return umaskValue;
  },
});


/** `Deno.watchFs`: checked as Deno checks it (read on every path), then refused: there is no watcher. */
export const watchFs = defineOp({
  name: 'fs.watch',
  mode: 'sync',
  parse: (raw, ctx) => {
    const paths = record(raw).paths;
    if (!Array.isArray(paths) || paths.some((p) => typeof p !== 'string')) throw new DenoOpError('TypeError', 'paths must be strings');
    return (paths as string[]).map((given) => ({ path: resolvePath(ctx.cwd, given), given }));
  },
  needs: (paths) => paths.map((p) => needOf('read', p)),
  attempts: (raw, ctx): Attempt[] => (Array.isArray(raw.paths) && raw.paths.length > 0 ? raw.paths.map((p) => ({ kind: 'read', value: lenientPath(ctx.cwd, p) })) : [{ kind: 'read' }]),
  run() {
    throw new DenoOpError('NotSupported', 'RTC_ERR_UNSUPPORTED: Deno.watchFs is not supported in the sandbox; see docs/sandbox.md, "What the sandbox supports"');
  },
});
