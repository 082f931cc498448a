/**
 * The one path check every file op makes after its grant (`needs`) passed, so each op gets
 * the same rules; new fs ops call `guardPath` for each path they touch, then act on
 * `target` (and read or write through kernel/storage/safe-open.ts):
 *
 *  - special files (special-files.ts): decided on what the path really reaches, by path and
 *    by inode, for every op: a symlink in a granted folder that leads to /proc/self/environ
 *    is that file and needs `--allow-all`; the kernel's own stdio and its secret files are
 *    refused even then;
 *  - `strictSymlinks` (the `community-draft` profile): the real location (every link
 *    followed) must itself be granted: for `lstat`, `remove` and new entries that is the
 *    real parent plus the name; a dangling link is refused; `realPath` answers only granted
 *    paths. The op then acts on the real path, opened with O_NOFOLLOW;
 *  - a write through a dangling link creates nothing, in every profile (Deno answers
 *    NotFound): new files are created with O_EXCL|O_NOFOLLOW.
 *
 * Checks that pass are audited as granted by `call`; refusals are Refusals, audited by the
 * broker. OS errors (ENOENT, ...) are thrown as Node errors for the op to word as Deno does.
 */
import { lstatSync, readlinkSync, realpathSync, statSync, type Stats } from 'node:fs';
import path from 'node:path';
import type { BrokerContext, OpCall } from './op.ts';
import { isKernelStdio, isSpecialInode, isSpecialPath } from './special-files.ts';

export type FsIntent =
  /** open an existing file to read it (links followed) */
  | 'read-file'
  /** open a file to write it, or create it (live links followed, dangling ones refused) */
  | 'write-file'
  | 'read-dir'
  /** metadata of what the path reaches (links followed) */
  | 'stat'
  /** metadata of the entry itself */
  | 'lstat'
  | 'real-path'
  | 'create-dir'
  /** the entry itself goes (a link, not its target) */
  | 'remove';

export interface GuardedPath {
  /** the absolute lexical path, as the grant was checked */
  abs: string;
  /** the path to act on: `abs`, or its real location under strictSymlinks */
  target: string;
  /** true when `target` is resolved: open it with O_NOFOLLOW */
  resolved: boolean;
  /**
   * what `target` is, when the guard looked (followed for read-file, write-file, read-dir,
   * stat; the entry for lstat); `null` for a write-file that creates a new file
   */
  stats: Stats | null | undefined;
  /** real-path: the answer */
  real?: string;
}

function enoent(p: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`ENOENT: ${p}`), { code: 'ENOENT', path: p });
}

function realOrNull(p: string): string | null {
  try {
    return realpathSync.native(p);
  } catch {
    return null;
  }
}

/**
 * Where `p` really leads, every link followed, even when its end does not exist: a dangling
 * link is followed to where its target would be, so a strict grant sees where a write would
 * land (and answers the same whether the outside path exists or not: no existence oracle).
 */
export function strictLocation(p: string): string {
  const pending = p.split('/').filter(Boolean).reverse();
  let at = '/';
  for (let links = 0; pending.length > 0; ) {
    const name = pending.pop()!;
    if (name === '.') continue;
    if (name === '..') {
      at = path.dirname(at);
      continue;
    }
    const next = path.join(at, name);
    const entry = lstatSync(next, { throwIfNoEntry: false });
    if (!entry) return path.join(next, ...pending.reverse());
    if (!entry.isSymbolicLink()) {
      at = next;
      continue;
    }
    // Too many links is ELOOP for the op itself; the location checked is where it stopped.
    if (++links > 40) return path.join(next, ...pending.reverse());
    const target = readlinkSync(next);
    pending.push(...target.split('/').filter(Boolean).reverse());
    if (target.startsWith('/')) at = '/';
  }
  return at;
}

/** Where a path that may not exist yet would be: the real nearest existing ancestor plus the rest. */
function realLocation(p: string): { real: string; existing: string } {
  let current = p;
  const rest: string[] = [];
  for (;;) {
    const real = realOrNull(current);
    if (real !== null) return { real: path.join(real, ...rest.reverse()), existing: real };
    const parent = path.dirname(current);
    if (parent === current) return { real: p, existing: '/' };
    rest.push(path.basename(current));
    current = parent;
  }
}

/** Special or secret, by what `stats` is; `name` is the path the refusal names (the resolved one when known). */
function checkInode(ctx: BrokerContext, call: OpCall, stats: Stats, name: () => string): void {
  const secret = ctx.kernelFiles?.secret.some((f) => f.dev === stats.dev && f.ino === stats.ino);
  if (secret || isKernelStdio(stats)) call.refuse('all', name(), `${name()} is the kernel's own file; no grant reaches it`, 'kernel-file');
  if (isSpecialInode(stats)) call.requireAll(name(), 'special-file');
}

function checkLocation(ctx: BrokerContext, call: OpCall, kind: 'read' | 'write', real: string, intent: FsIntent): void {
  if (isSpecialPath(real)) call.requireAll(real, 'special-file');
  if (ctx.kernelFiles) {
    const inside = (dir: string) => real === dir || real.startsWith(`${dir}/`);
    if (ctx.kernelFiles.secret.some((f) => f.path === real) || (kind === 'write' && intent !== 'read-file' && ctx.kernelFiles.noWrite.some(inside))) {
      call.refuse('all', real, `${real} is the kernel's own file; no grant reaches it`, 'kernel-file');
    }
  }
  if (ctx.strictSymlinks) call.require(kind, real, real, 'strict-symlink');
}

/** The lexical checks that need no file system: run for every path before the op touches anything. */
export function guardLexical(ctx: BrokerContext, call: OpCall, kind: 'read' | 'write', abs: string): void {
  if (!ctx.kernelFiles) return;
  if (ctx.kernelFiles.secret.some((f) => f.path === abs)) call.refuse('all', abs, `${abs} is the kernel's own file; no grant reaches it`, 'kernel-file');
  if (kind === 'write' && ctx.kernelFiles.noWrite.some((dir) => abs === dir || abs.startsWith(`${dir}/`))) call.refuse('all', abs, `${abs} is in the kernel's own cache; no grant writes there`, 'kernel-file');
}

/**
 * Resolves and checks `abs` (already granted lexically for `kind`) for `intent`; see the
 * module comment. `options.createNew`/`create` shape the write-file case as Deno's
 * writeFile options do.
 */
export function guardPath(ctx: BrokerContext, call: OpCall, kind: 'read' | 'write', abs: string, intent: FsIntent, options: { create?: boolean; createNew?: boolean } = {}): GuardedPath {
  guardLexical(ctx, call, kind, abs);
  const strict = ctx.strictSymlinks;
  const resolvedName = () => realOrNull(abs) ?? abs;
  switch (intent) {
    case 'read-file':
    case 'read-dir':
    case 'stat': {
      let target = abs;
      if (strict) {
        // A dangling link outside the grant is refused; inside it, stat's ENOENT is the op's NotFound.
        target = strictLocation(abs);
        checkLocation(ctx, call, kind, target, intent);
      }
      const stats = statSync(target);
      checkInode(ctx, call, stats, strict ? () => target : resolvedName);
      return { abs, target, resolved: strict, stats };
    }
    case 'lstat':
    case 'remove': {
      // The entry itself: its own inode says whether it lives on /proc, /sys or /dev (an
      // intermediate folder link included); strict mode checks the real parent plus the name.
      let target = abs;
      if (strict) {
        target = path.join(strictLocation(path.dirname(abs)), path.basename(abs));
        checkLocation(ctx, call, kind, target, intent);
      }
      const stats = lstatSync(target, { throwIfNoEntry: false });
      if (stats) checkInode(ctx, call, stats, () => target);
      return { abs, target, resolved: strict, stats };
    }
    case 'real-path': {
      if (strict) checkLocation(ctx, call, kind, strictLocation(abs), intent);
      const real = realpathSync.native(abs);
      checkLocation(ctx, call, kind, real, intent);
      const stats = statSync(real);
      checkInode(ctx, call, stats, () => real);
      return { abs, target: real, resolved: true, stats, real };
    }
    case 'create-dir': {
      const { real, existing } = realLocation(abs);
      const where = strict ? strictLocation(abs) : real;
      if (where !== abs || strict) checkLocation(ctx, call, kind, where, intent);
      const stats = statSync(existing, { throwIfNoEntry: false });
      if (stats) checkInode(ctx, call, stats, () => existing);
      return { abs, target: strict ? where : abs, resolved: strict, stats: undefined };
    }
    case 'write-file': {
      const existing = options.createNew ? undefined : statSync(abs, { throwIfNoEntry: false });
      if (existing) {
        let target = abs;
        if (strict) {
          target = strictLocation(abs);
          checkLocation(ctx, call, kind, target, intent);
        }
        checkInode(ctx, call, existing, strict ? () => target : resolvedName);
        return { abs, target, resolved: strict, stats: existing };
      }
      const entry = lstatSync(abs, { throwIfNoEntry: false });
      // Strict: where a dangling link leads must be granted too, or it answers NotFound for inside and NotCapable for outside alike.
      if (entry?.isSymbolicLink() && strict) checkLocation(ctx, call, kind, strictLocation(abs), intent);
      if (entry?.isSymbolicLink()) {
        // A dangling link: Deno creates nothing and answers NotFound (AlreadyExists with createNew).
        if (options.createNew) throw Object.assign(new Error(`EEXIST: ${abs}`), { code: 'EEXIST', path: abs });
        throw enoent(abs);
      }
      // createNew on an existing entry, or a race: the O_EXCL create answers EEXIST.
      if (entry) return { abs, target: abs, resolved: false, stats: null };
      if (options.create === false) throw enoent(abs);
      // A new file: its folder (links followed) must not be special; strict mode checks the
      // real folder plus the name. A missing folder is the op's NotFound.
      let target = abs;
      if (strict) {
        target = strictLocation(abs);
        checkLocation(ctx, call, kind, target, intent);
      }
      const folder = statSync(path.dirname(target));
      checkInode(ctx, call, folder, () => realOrNull(path.dirname(target)) ?? path.dirname(target));
      return { abs, target, resolved: strict, stats: null };
    }
  }
}
