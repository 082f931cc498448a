/**
 * The one path check every file op makes after its grant (`needs`) passed, so each op gets
 * the same rules; new fs ops call `guardPath` for each path they touch, then act on
 * `target` (and read or write through sandboxes/fs-safety/safe-open.ts):
 *
 *  - special files (special-files.ts): decided on what the path really reaches, for every
 *    op. The entry a path names is looked at with lstat (its inode says whether it lives on
 *    /proc, /sys or /dev, whatever links led there), and when it is a link, each hop of the
 *    link chain is checked too, so a link in a granted folder to /proc/self/environ, or to
 *    /proc/self/fd/N (a file the kernel holds open), is that special file and needs
 *    `--allow-all`. The kernel's own stdio and secret files are refused even then. When the
 *    path is not a link this costs one lstat, the stat the op needs anyway;
 *  - `strictSymlinks` (the `community-draft` profile): the real location (every link
 *    followed, dangling ones too) must itself be granted: for `lstat`, `remove` and new
 *    entries that is the real parent plus the name; `realPath` answers only granted paths.
 *    The op then acts on the real path, opened with O_NOFOLLOW;
 *  - a write through a dangling link creates nothing, in every profile (Deno answers
 *    NotFound): new files are created with O_EXCL|O_NOFOLLOW.
 *
 * Checks that pass are audited as granted by `call`; refusals are Refusals, audited by the
 * broker. OS errors (ENOENT, ...) are thrown as Node errors for the op to word as Deno does.
 */
import { closeSync, constants, lstatSync, openSync, readlinkSync, realpathSync, statSync, type Stats } from 'node:fs';
import path from 'node:path';
import { inHeld, withParentHeld } from '../../fs-safety/no-follow.ts';
import { UnsafeFileError } from '../../../kernel/storage/unsafe-file.ts';
import type { BrokerContext, OpCall } from '../../../kernel/broker/op.ts';
import { isSpecialPath } from '../../../kernel/broker/special-paths.ts';
import { isKernelStdio, isSpecialInode } from './special-files.ts';

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
   * what `target` is, when the guard looked (what it reaches for read-file, write-file,
   * read-dir, stat; the entry itself for lstat and remove); `null` for a write-file that
   * creates a new file; undefined when there is nothing there
   */
  stats: Stats | null | undefined;
  /** real-path: the answer */
  real?: string;
}

const MAX_LINKS = 40;

function errno(code: string, p: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: ${p}`), { code, path: p });
}

/**
 * lstat, or undefined when nothing is there. A try/catch, not `throwIfNoEntry: false`: on
 * Node 20 that option costs more than the exception it saves, and this is the fast path.
 */
function entryAt(p: string): Stats | undefined {
  try {
    return lstatSync(p);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    throw error;
  }
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
    const entry = entryAt(next);
    if (!entry) return path.join(next, ...pending.reverse());
    if (!entry.isSymbolicLink()) {
      at = next;
      continue;
    }
    // Too many links is ELOOP for the op itself; the location checked is where it stopped.
    if (++links > MAX_LINKS) return path.join(next, ...pending.reverse());
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

function isSecret(ctx: BrokerContext, stats: Stats): boolean {
  const secret = ctx.kernelFiles?.secret;
  if (!secret) return false;
  for (const f of secret) if (f.dev === stats.dev && f.ino === stats.ino) return true;
  return false;
}

/**
 * Special or secret, by what `stats` is. The refusal names `name`, or, when `resolve` is
 * set, what `name` really resolves to (as Deno names the target of a link); computed only
 * on a refusal, so the fast path makes no closure and no realpath.
 */
function checkInode(ctx: BrokerContext, call: OpCall, stats: Stats, name: string, resolve: boolean): void {
  const kernelOwn = isSecret(ctx, stats) || isKernelStdio(stats);
  const special = !kernelOwn && isSpecialInode(stats);
  if (!kernelOwn && !special) return;
  const named = resolve ? (realOrNull(name) ?? name) : name;
  if (kernelOwn) call.refuse('all', named, `${named} is the kernel's own file; no grant reaches it`, 'kernel-file');
  call.requireAll(named, 'special-file');
}

/**
 * What `abs` reaches, as stat sees it, with every step checked: the entry itself (lstat:
 * one syscall when it is no link), and each hop of its link chain (a hop under /proc, /sys
 * or /dev, a /proc/self/fd/N among them, is special). Undefined when nothing is there.
 */
function probe(ctx: BrokerContext, call: OpCall, abs: string): Stats | undefined {
  let entry = entryAt(abs);
  if (!entry) {
    // Nothing there: its folder still says whether the path is special (no oracle into /proc, /sys, /dev).
    const parent = path.dirname(abs);
    if (parent !== abs) probe(ctx, call, parent);
    return undefined;
  }
  checkInode(ctx, call, entry, abs, true);
  let at = abs;
  for (let links = 0; entry.isSymbolicLink(); links++) {
    if (links >= MAX_LINKS) throw errno('ELOOP', abs);
    if (isSpecialPath(at)) {
      // A /proc magic link (fd/N, cwd, exe...) names no path readlink could follow: let
      // the kernel follow it (allowed only under --allow-all, checked above) and check what it reached.
      const reached = statSync(at, { throwIfNoEntry: false });
      if (reached) checkInode(ctx, call, reached, abs, true);
      return reached;
    }
    // A relative target is relative to the folder the link really is in.
    const next = path.resolve(realOrNull(path.dirname(at)) ?? path.dirname(at), readlinkSync(at));
    if (isSpecialPath(next)) call.requireAll(realOrNull(abs) ?? next, 'special-file');
    const hop = entryAt(next);
    if (!hop) return undefined;
    checkInode(ctx, call, hop, abs, true);
    entry = hop;
    at = next;
  }
  return entry;
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

/** Strict: the real location, dangling links followed, must be granted before anything is looked at. */
function located(ctx: BrokerContext, call: OpCall, kind: 'read' | 'write', p: string, intent: FsIntent): string {
  const where = strictLocation(p);
  checkLocation(ctx, call, kind, where, intent);
  return where;
}

/** The checks that need no file system: the kernel's own files by their lexical path. */
export function guardLexical(ctx: BrokerContext, call: OpCall, kind: 'read' | 'write', abs: string): void {
  const files = ctx.kernelFiles;
  if (!files) return;
  for (const f of files.secret) if (f.path === abs) call.refuse('all', abs, `${abs} is the kernel's own file; no grant reaches it`, 'kernel-file');
  if (kind !== 'write') return;
  for (const dir of files.noWrite) if (abs === dir || abs.startsWith(`${dir}/`)) call.refuse('all', abs, `${abs} is in the kernel's own cache; no grant writes there`, 'kernel-file');
}

/**
 * Resolves and checks `abs` (already granted lexically for `kind`) for `intent`; see the
 * module comment. `options.createNew`/`create` shape the write-file case as Deno's
 * writeFile options do.
 */
export function guardPath(ctx: BrokerContext, call: OpCall, kind: 'read' | 'write', abs: string, intent: FsIntent, options: { create?: boolean; createNew?: boolean } = {}): GuardedPath {
  guardLexical(ctx, call, kind, abs);
  const strict = ctx.strictSymlinks;
  switch (intent) {
    case 'read-file':
    case 'read-dir':
    case 'stat': {
      const target = strict ? located(ctx, call, kind, abs, intent) : abs;
      const stats = probe(ctx, call, target);
      if (!stats) throw errno('ENOENT', abs);
      return { abs, target, resolved: strict, stats };
    }
    case 'lstat':
    case 'remove': {
      // The entry itself: its own inode says whether it lives on /proc, /sys or /dev, an
      // intermediate folder link included; strict mode checks the real parent plus the name.
      const target = strict ? path.join(located(ctx, call, kind, path.dirname(abs), intent), path.basename(abs)) : abs;
      if (strict) checkLocation(ctx, call, kind, target, intent);
      const stats = entryAt(target);
      if (stats) checkInode(ctx, call, stats, target, false);
      // Nothing there: its folder still says whether the path is special (no oracle into /proc, /sys, /dev).
      else probe(ctx, call, path.dirname(target));
      return { abs, target, resolved: strict, stats };
    }
    case 'real-path': {
      if (strict) located(ctx, call, kind, abs, intent);
      if (!probe(ctx, call, abs)) throw errno('ENOENT', abs);
      const real = realpathSync.native(abs);
      checkLocation(ctx, call, kind, real, intent);
      return { abs, target: real, resolved: true, stats: undefined, real };
    }
    case 'create-dir': {
      const { real, existing } = realLocation(abs);
      const where = strict ? located(ctx, call, kind, abs, intent) : real;
      if (!strict && where !== abs) checkLocation(ctx, call, kind, where, intent);
      probe(ctx, call, existing);
      return { abs, target: strict ? where : abs, resolved: strict, stats: undefined };
    }
    case 'write-file': {
      const target = strict ? located(ctx, call, kind, abs, intent) : abs;
      const existing = options.createNew ? undefined : probe(ctx, call, target);
      if (existing) return { abs, target, resolved: strict, stats: existing };
      const entry = entryAt(abs);
      if (entry?.isSymbolicLink()) {
        // A dangling link: Deno creates nothing and answers NotFound (AlreadyExists with createNew).
        throw errno(options.createNew ? 'EEXIST' : 'ENOENT', abs);
      }
      // createNew on an existing entry, or a race: the O_EXCL create answers EEXIST.
      if (entry) return { abs, target, resolved: strict, stats: null };
      if (options.create === false) throw errno('ENOENT', abs);
      // A new file: its folder (links followed, each hop checked) must be there and not special.
      if (!probe(ctx, call, path.dirname(target))) throw errno('ENOENT', abs);
      return { abs, target, resolved: strict, stats: null };
    }
  }
}

/**
 * Runs `fn` on the path an op acts on. Under strict symlinks `target` was checked free of
 * links; the op acts on its entry through its folder held by descriptor (no-follow.ts), so a
 * folder on the way swapped for a link since the check is refused, not followed. The entry
 * itself is as the op's own syscall treats it (mkdir, unlink, rename and symlink never follow
 * a final link).
 */
export function actOn<T>(g: GuardedPath, fn: (at: string) => T): T {
  if (!g.resolved || path.dirname(g.target) === g.target) return fn(g.target);
  return withParentHeld(g.target, {}, (dirFd, name) => fn(inHeld(dirFd, name)));
}

/**
 * For the ops that follow a final link (chmod, chown, utime): under strict symlinks, `fn` gets
 * a descriptor of the entry opened with O_NOFOLLOW (a link planted since the check is refused),
 * or, when it cannot be opened for reading (mode 000), its held path after an lstat saw no link.
 */
export function actOnFollowed(g: GuardedPath, byFd: (fd: number) => void, byPath: (at: string) => void): void {
  if (!g.resolved) return byPath(g.target);
  actOn(g, (at) => {
    let fd: number | undefined;
    try {
      fd = openSync(at, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ELOOP') throw new UnsafeFileError('link', g.target, 'symbolic link', `${g.target} is a symbolic link`);
      if (code !== 'EACCES' && code !== 'EPERM' && code !== 'ENXIO') throw error;
    }
    if (fd === undefined) {
      if (lstatSync(at).isSymbolicLink()) throw new UnsafeFileError('link', g.target, 'symbolic link', `${g.target} is a symbolic link`);
      return byPath(at);
    }
    try {
      byFd(fd);
    } finally {
      closeSync(fd);
    }
  });
}
