/**
 * The rest of Deno's path-based file system ops: `copyFile`, `rename`, `makeTempDir`,
 * `makeTempFile`, `chmod`, `chown`, `truncate`, `symlink`, `readLink`, `link`, `utime`,
 * `umask`. Each needs exactly the permissions Deno checks, in Deno's order (so the first
 * refusal names the same path), and runs through the same path checks as fs.ts (strict
 * symlinks); OS errors carry Deno's messages, two-path ones as `copy 'a' -> 'b'`. The
 * `*Sync` variants in the shim call these same ops: one check, one behaviour.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, closeSync, constants, copyFileSync, linkSync, mkdirSync, openSync, readlinkSync, renameSync, statSync, symlinkSync, truncateSync, utimesSync } from 'node:fs';
import path from 'node:path';
import { DenoOpError, fromNodeError } from '../deno-error.ts';
import { defineOp, type BrokerContext, type PermissionNeed } from '../op.ts';
import { int, optStr, record, resolvePath, str } from './args.ts';
import { checkReal } from './fs.ts';

type Kind = 'read' | 'write';

function pathOf(o: Record<string, unknown>, key: string, ctx: BrokerContext): { path: string; given: string } {
  const given = str(o, key);
  return { path: resolvePath(ctx.cwd, given), given };
}

function needOf(kind: Kind, p: { path: string; given: string }): PermissionNeed {
  return { kind, value: p.path, display: p.given };
}

/** Deno's message for an OS error on two paths: `No such file or directory (os error 2): copy 'a' -> 'b'`. */
function twoPathError(error: unknown, syscall: string, from: string, to: string): DenoOpError {
  const e = fromNodeError(error, syscall, from);
  // (single-path errors drop the path for ENOTDIR; two-path ones name both, as Deno does)
  const message = e.message.endsWith(`'${from}'`) ? `${e.message} -> '${to}'` : `${e.message}: ${syscall} '${from}' -> '${to}'`;
  return new DenoOpError(e.denoClass, message, e.osCode);
}

export const copyFile = defineOp({
  name: 'fs.copyFile',
  mode: 'sync',
  parse: (raw, ctx) => {
    const o = record(raw);
    return { from: pathOf(o, 'from', ctx), to: pathOf(o, 'to', ctx) };
  },
  needs: (a) => [needOf('read', a.from), needOf('write', a.to)],
  run({ from, to }, ctx) {
    checkReal(ctx, 'read', from.path);
    checkReal(ctx, 'write', to.path);
    try {
      const source = statSync(from.path);
      if (!source.isFile()) {
        throw new DenoOpError('TypeError', `the source path is neither a regular file nor a symlink to a regular file: copy '${from.given}' -> '${to.given}'`, 'EINVAL');
      }
      copyFileSync(from.path, to.path);
      return null;
    } catch (error) {
      if (error instanceof DenoOpError) throw error;
      throw twoPathError(error, 'copy', from.given, to.given);
    }
  },
});

export const rename = defineOp({
  name: 'fs.rename',
  mode: 'sync',
  parse: (raw, ctx) => {
    const o = record(raw);
    return { from: pathOf(o, 'oldpath', ctx), to: pathOf(o, 'newpath', ctx) };
  },
  needs: (a) => [needOf('read', a.from), needOf('write', a.from), needOf('write', a.to)],
  run({ from, to }, ctx) {
    checkReal(ctx, 'write', path.dirname(from.path));
    checkReal(ctx, 'write', to.path);
    try {
      renameSync(from.path, to.path);
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
  run({ from, to }, ctx) {
    checkReal(ctx, 'read', from.path);
    checkReal(ctx, 'write', to.path);
    try {
      linkSync(from.path, to.path);
      return null;
    } catch (error) {
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
  run(a) {
    try {
      symlinkSync(a.target, a.link.path);
      return null;
    } catch (error) {
      throw twoPathError(error, 'symlink', a.target, a.link.given);
    }
  },
});

export const readLink = defineOp({
  name: 'fs.readLink',
  mode: 'sync',
  parse: (raw, ctx) => pathOf(record(raw), 'path', ctx),
  needs: (p) => [needOf('read', p)],
  run(p) {
    try {
      return readlinkSync(p.path);
    } catch (error) {
      throw fromNodeError(error, 'readlink', p.given);
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
  run(p, ctx) {
    checkReal(ctx, 'write', p.path);
    try {
      chmodSync(p.path, p.mode);
      return null;
    } catch (error) {
      throw fromNodeError(error, 'chmod', p.given);
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
  run(p, ctx) {
    checkReal(ctx, 'write', p.path);
    try {
      chownSync(p.path, p.uid ?? -1, p.gid ?? -1);
      return null;
    } catch (error) {
      throw fromNodeError(error, 'chown', p.given);
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
  run(p, ctx) {
    checkReal(ctx, 'write', p.path);
    try {
      // Only regular files: truncating a FIFO or a device could block or mean something else.
      const s = statSync(p.path);
      if (!s.isFile()) throw Object.assign(new Error('EINVAL'), { code: s.isDirectory() ? 'EISDIR' : 'EINVAL' });
      truncateSync(p.path, p.len);
      return null;
    } catch (error) {
      throw fromNodeError(error, 'truncate', p.given);
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
  run(p, ctx) {
    checkReal(ctx, 'write', p.path);
    try {
      utimesSync(p.path, p.atime, p.mtime);
      return null;
    } catch (error) {
      throw fromNodeError(error, 'utime', p.given);
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

function tempOp(name: string, syscall: 'tmpdir' | 'tmpfile', make: (p: string) => void) {
  return defineOp({
    name,
    mode: 'sync',
    parse: tempArgs,
    // Deno names the default folder <TMP>, unquoted.
    needs: (a) => [{ kind: 'write', value: a.dir.path, display: a.shown, ...(a.explicit ? {} : { message: 'Requires write access to <TMP>, run again with the --allow-write flag' }) }],
    run(a, ctx) {
      checkReal(ctx, 'write', a.dir.path);
      for (let attempt = 0; ; attempt++) {
        const leaf = tempName(a.prefix, a.suffix);
        try {
          make(path.join(a.dir.path, leaf));
          // Deno answers with the folder as given (relative stays relative).
          return a.explicit ? `${a.dir.given === '/' ? '' : a.dir.given.replace(/\/+$/, '')}/${leaf}` : path.join(a.dir.path, leaf);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'EEXIST' && attempt < 10) continue;
          const e = fromNodeError(error, syscall, '');
          throw new DenoOpError(e.denoClass, e.message.replace(/: \w+ ''$/, `: ${syscall}`), e.osCode);
        }
      }
    },
  });
}

export const makeTempDir = tempOp('fs.makeTempDir', 'tmpdir', (p) => mkdirSync(p, { mode: 0o700 }));
export const makeTempFile = tempOp('fs.makeTempFile', 'tmpfile', (p) => closeSync(openSync(p, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, 0o600)));

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
    if (a.mask !== null) throw new DenoOpError('NotSupported', 'RTC_ERR_UNSUPPORTED: Deno.umask(mask) would change the umask of the whole kernel; only Deno.umask() is supported; see README.md, "What the sandbox supports"');
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
  run() {
    throw new DenoOpError('NotSupported', 'RTC_ERR_UNSUPPORTED: Deno.watchFs is not supported in the sandbox; see README.md, "What the sandbox supports"');
  },
});
