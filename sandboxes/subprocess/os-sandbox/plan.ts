/**
 * The file-system view of one sandboxed child, planned from its grant. The rules:
 *
 * - what the grant lets the code write is bound read-write, what it lets it read read-only;
 *   nothing else of the host is visible (the root is an empty read-only tmpfs);
 * - the child's own install (the resolved command, the node_modules tree it lives in, its
 *   `#!` interpreter), the directories on its PATH, system libraries (/usr and the merged-usr
 *   links) and a short list of /etc files programs need are visible read-only;
 * - /tmp is private, /proc is the child's own pid namespace, /dev holds only the harmless
 *   devices, /sys and /run are not there;
 * - kernel-owned trees (the state directory with every persona in it, the kernel's cache)
 *   are masked even under `read: true`; a grant may reach into them only within the
 *   persona's own folder, and a grant that names another persona's state is refused;
 * - what the grant denies inside a visible tree is masked (read) or bound read-only (write).
 *
 * Grants that bind mounts cannot express are refused, never widened: a path writable but
 * not readable, a denied path that does not exist yet inside a writable tree (the child could
 * create it), a granted path that is a link to somewhere the grant does not cover, a HOME the
 * grant does not let the child write.
 */
import { closeSync, lstatSync, openSync, readSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { kernelError } from '../../../kernel/errors.ts';
import { pathCovers } from '../../../kernel/permissions/matchers.ts';
import type { OsSandboxView } from '../../../kernel/sandbox.ts';
import { minimalTrees, pathAllowed, type GrantView } from './grant-view.ts';

export type Mount =
  | { kind: 'ro' | 'rw'; src: string; dest: string }
  | { kind: 'mask-dir'; dest: string }
  | { kind: 'mask-file'; dest: string }
  | { kind: 'symlink'; target: string; dest: string }
  | { kind: 'dir'; dest: string }
  /** the sandbox's own /proc (its pid namespace), minimal /dev and private /tmp */
  | { kind: 'proc' | 'dev' | 'tmpfs'; dest: string };

/** What the sandbox shows beyond the grant: the kernel's own contract (kernel/sandbox.ts). */
export type SandboxContext = OsSandboxView;

export interface PlanInput {
  grant: GrantView;
  context: SandboxContext;
  /** the command as it will be executed: an absolute path */
  executable: string;
  cwd: string;
  /** the child's PATH (its entries are visible read-only) */
  searchPath: string;
  /** read-only helper trees the sandbox itself needs (its init script, the node for the net bridge) */
  helpers: readonly string[];
}

/** What the sandbox shows, for the session record and the audit: relative to nothing, host paths. */
export interface SandboxView {
  writable: string[];
  readOnly: string[];
  masked: string[];
  /** granted paths that are not bound, with why (they do not exist, or the sandbox supplies its own) */
  skipped: string[];
}

export interface SandboxPlan {
  mounts: Mount[];
  /** masked trees and the root, made read-only after every mount is in place */
  remountReadOnly: string[];
  view: SandboxView;
}

const MERGED_USR = ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];
/** What programs read from /etc: name resolution, users, certificates, the loader, time zones. */
const ETC = [
  '/etc/resolv.conf', '/etc/hosts', '/etc/host.conf', '/etc/gai.conf', '/etc/nsswitch.conf', '/etc/protocols', '/etc/services',
  '/etc/passwd', '/etc/group', '/etc/ssl', '/etc/ca-certificates', '/etc/ca-certificates.conf', '/etc/pki', '/etc/crypto-policies',
  '/etc/ld.so.cache', '/etc/ld.so.conf', '/etc/ld.so.conf.d', '/etc/alternatives', '/etc/localtime', '/etc/timezone',
  '/etc/mime.types', '/etc/os-release', '/etc/debian_version', '/etc/terminfo', '/etc/gitconfig',
];
/** Trees the sandbox supplies itself: a grant inside them is not bound (/tmp itself is private, what is beneath it on the host may be). */
const SUPPLIED = ['/proc', '/dev'];
/** Host trees hidden even when the grant covers them (system state, host sockets). */
const NEVER = ['/sys', '/run', '/var/run'];

function refuse(message: string): never {
  throw kernelError('RTC_ERR_OSBOX_GRANT', message, { details: { reason: message } });
}

function kindOf(p: string): 'dir' | 'file' | 'missing' {
  const st = statSync(p, { throwIfNoEntry: false });
  if (!st) return 'missing';
  return st.isDirectory() ? 'dir' : 'file';
}

function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

/** The tree a program is installed in: its node_modules (packages reach their siblings), else its folder. */
export function installTree(file: string): string {
  const marker = `${path.sep}node_modules${path.sep}`;
  const at = file.indexOf(marker);
  return at >= 0 ? file.slice(0, at + marker.length - 1) : path.dirname(file);
}

/** The `#!` interpreter of a script, when it names an absolute path (`/usr/bin/env` is under /usr). */
function interpreter(file: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const buf = Buffer.alloc(256);
    const n = readSync(fd, buf, 0, buf.length, 0);
    const head = buf.subarray(0, n).toString('latin1');
    if (!head.startsWith('#!')) return undefined;
    const first = head.slice(2).split('\n')[0]!.trim().split(/\s+/)[0];
    return first && path.isAbsolute(first) ? first : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The trees a program needs read-only to start: where it is linked from, where it really lives, its interpreter's. */
export function programTrees(executable: string): string[] {
  const trees = new Set<string>([path.dirname(executable)]);
  const resolved = real(executable);
  trees.add(installTree(resolved));
  const interp = interpreter(resolved);
  if (interp) {
    trees.add(path.dirname(interp));
    trees.add(installTree(real(interp)));
  }
  return [...trees];
}

export function planSandbox(input: PlanInput): SandboxPlan {
  const { grant, context } = input;
  const view: SandboxView = { writable: [], readOnly: [], masked: [], skipped: [] };
  // Both spellings of each kernel tree: the one the grant names and the one a link resolves to.
  const hiddenRoots = minimalTrees(context.hide.flatMap((h) => [path.resolve(h), real(path.resolve(h))]));
  const own = context.own ? path.resolve(context.own) : undefined;
  const underHidden = (p: string) => hiddenRoots.find((h) => pathCovers(h, p));
  const reachable = (p: string) => !underHidden(p) || (own !== undefined && pathCovers(own, p));

  // 1. The grant's trees, checked first: anything here the sandbox cannot express is refused.
  type Entry = { path: string; mode: 'ro' | 'rw' };
  const grantEntries: Entry[] = [];
  const writeTrees = grant.write.all ? ['/'] : grant.write.paths;
  const readTrees = grant.read.all ? ['/'] : grant.read.paths;
  for (const [trees, mode] of [[writeTrees, 'rw'], [readTrees, 'ro']] as const) {
    const g = mode === 'rw' ? grant.write : grant.read;
    for (const p of trees) {
      if (!pathAllowed(g, p)) continue; // denied above it
      if (mode === 'rw' && !pathAllowed(grant.read, p)) {
        refuse(`${p} is writable but not readable under this grant; bind mounts cannot give write without read (grant read too, or drop the write)`);
      }
      if (p === '/tmp' || SUPPLIED.some((s) => pathCovers(s, p)) || NEVER.some((s) => pathCovers(s, p))) {
        view.skipped.push(`${p} (the sandbox supplies its own)`);
        continue;
      }
      if (p !== '/' && !reachable(p)) refuse(`${p} is kernel or another persona's state; the OS sandbox never shows it to a child`);
      const k = kindOf(p);
      if (k === 'missing') {
        view.skipped.push(`${p} (does not exist)`);
        continue;
      }
      const rp = real(p);
      if (rp !== p && p !== '/') {
        if (!pathAllowed(g, rp)) refuse(`${p} is a link to ${rp}, which the grant does not ${mode === 'rw' ? 'let the code write' : 'let the code read'}`);
        if (!reachable(rp)) refuse(`${p} is a link into kernel or another persona's state (${rp})`);
      }
      if (mode === 'ro' && grantEntries.some((e) => e.mode === 'rw' && pathCovers(e.path, p))) continue;
      grantEntries.push({ path: p, mode });
    }
  }
  for (const tree of context.kernelWrite ?? []) {
    if (underHidden(tree)) refuse(`${tree} is hidden from this child; it cannot also be bound for the kernel`);
    if (kindOf(tree) === 'dir') grantEntries.push({ path: path.resolve(tree), mode: 'rw' });
  }
  // The private /tmp hides what a broad grant (`-A`, read `/`) shows of the host's /tmp: a path
  // there is shown only by a grant entry beneath /tmp, or by its own bind (the cwd, the install).
  const belowTmpEntry = (p: string) => grantEntries.some((e) => e.path !== '/tmp' && pathCovers('/tmp', e.path) && pathCovers(e.path, p));
  const hiddenByTmp = (p: string) => p !== '/tmp' && pathCovers('/tmp', p) && !belowTmpEntry(p);
  const covered = (p: string) => grantEntries.some((e) => pathCovers(e.path, p)) && !hiddenByTmp(p);

  // 2. HOME must be writable by the grant and exist.
  if (context.home) {
    const home = path.resolve(context.home);
    if (!pathAllowed(grant.write, home) || !pathAllowed(grant.read, home)) {
      refuse(`HOME ${home} is not readable and writable under this grant (the executor's provider home must be inside its write grant)`);
    }
    if (kindOf(home) !== 'dir') refuse(`HOME ${home} is not a folder`);
  }

  // 3. What the program needs read-only: system trees, its install, its PATH, the sandbox's helpers.
  const systemEntries: Entry[] = [];
  const symlinks: Mount[] = [];
  const addSystem = (p: string) => {
    if (kindOf(p) === 'missing' || covered(p) || underHidden(p)) return;
    systemEntries.push({ path: p, mode: 'ro' });
  };
  addSystem('/usr');
  for (const dir of MERGED_USR) {
    try {
      const st = statSync(dir, { throwIfNoEntry: false });
      if (!st) continue;
      const link = realpathSync(dir);
      if (link !== dir && !covered(dir)) symlinks.push({ kind: 'symlink', target: path.relative('/', link), dest: dir });
      else addSystem(dir);
    } catch {
      // unreadable: leave it out
    }
  }
  for (const file of ETC) addSystem(file);
  for (const tree of [...programTrees(input.executable), ...(context.programs ?? []).flatMap(programTrees), ...(context.readOnly ?? []), ...input.helpers]) addSystem(tree);
  for (const dir of input.searchPath.split(':')) if (path.isAbsolute(dir)) addSystem(path.normalize(dir));

  // The cwd exists (the runner checked). One under the host's /tmp that only a broader grant
  // covers would be hidden by the private /tmp: the grant lets the child see it, so it is bound
  // there (before the masks, so a kernel tree inside it stays masked).
  const cwd = path.resolve(input.cwd);
  const readDenies = grant.read.deny === true ? [] : grant.read.deny;
  const writeDenies = grant.write.deny === true ? [] : grant.write.deny;
  const cwdEntries: Entry[] = [];
  if (hiddenByTmp(cwd) && pathAllowed(grant.read, cwd) && reachable(cwd) && !readDenies.some((d) => pathCovers(d, cwd))) {
    const rw = pathAllowed(grant.write, cwd) && !writeDenies.some((d) => pathCovers(d, cwd));
    cwdEntries.push({ path: cwd, mode: rw ? 'rw' : 'ro' });
    (rw ? view.writable : view.readOnly).push(cwd);
  }

  // 4. Masks: kernel trees and denied paths that some visible tree would otherwise show.
  const visible = (p: string) =>
    systemEntries.some((e) => pathCovers(e.path, p)) || cwdEntries.some((e) => pathCovers(e.path, p)) || (grantEntries.some((e) => pathCovers(e.path, p)) && !hiddenByTmp(p));
  const masks: Mount[] = [];
  for (const root of [...hiddenRoots, ...NEVER]) {
    // A link (/var/run → /run) is masked where it points; only real folders and files here.
    const st = lstatSync(root, { throwIfNoEntry: false });
    if (!st || st.isSymbolicLink() || !visible(root)) continue;
    masks.push({ kind: st.isDirectory() ? 'mask-dir' : 'mask-file', dest: root });
    view.masked.push(root);
  }
  const writable = (p: string) => grantEntries.some((e) => e.mode === 'rw' && pathCovers(e.path, p));
  for (const d of readDenies) {
    if (!visible(d)) continue;
    const k = kindOf(d);
    if (k === 'missing') {
      if (writable(d)) refuse(`${d} is denied but does not exist inside a writable tree; the child could create it (create it first, or narrow the write grant)`);
      continue;
    }
    masks.push({ kind: k === 'dir' ? 'mask-dir' : 'mask-file', dest: d });
    view.masked.push(d);
  }
  const readOnlyOverlays: Entry[] = [];
  for (const d of writeDenies) {
    if (!writable(d) || readDenies.some((r) => pathCovers(r, d))) continue;
    if (kindOf(d) === 'missing') refuse(`writing ${d} is denied but it does not exist inside a writable tree; the child could create it`);
    readOnlyOverlays.push({ path: d, mode: 'ro' });
  }

  // 5. Order: shallow before deep, so a deeper mount (a persona's folder inside the masked
  // state root, a read-only overlay inside a writable tree) lands on top.
  const depth = (p: string) => (p === '/' ? 0 : p.split('/').length - 1);
  const all: { depth: number; order: number; mount: Mount }[] = [];
  const push = (p: string, order: number, mount: Mount) => all.push({ depth: depth(p), order, mount });
  for (const e of systemEntries) push(e.path, 0, { kind: 'ro', src: real(e.path), dest: e.path });
  for (const e of grantEntries) push(e.path, 1, { kind: e.mode, src: real(e.path), dest: e.path });
  for (const m of masks) push(m.dest, 2, m);
  push('/proc', 2, { kind: 'proc', dest: '/proc' });
  push('/dev', 2, { kind: 'dev', dest: '/dev' });
  push('/tmp', 2, { kind: 'tmpfs', dest: '/tmp' });
  for (const e of cwdEntries) push(e.path, 1, { kind: e.mode, src: real(e.path), dest: e.path });
  for (const e of readOnlyOverlays) push(e.path, 3, { kind: 'ro', src: real(e.path), dest: e.path });
  all.sort((a, b) => a.depth - b.depth || a.order - b.order);
  const mounts: Mount[] = [...symlinks, ...all.map((m) => m.mount)];
  // When no tree shows the cwd, an empty folder stands in.
  if (cwdEntries.length === 0 && (!visible(cwd) || masks.some((m) => pathCovers(m.dest, cwd) && !grantEntries.some((e) => pathCovers(m.dest, e.path) && pathCovers(e.path, cwd))))) {
    mounts.push({ kind: 'dir', dest: cwd });
  }

  view.writable = [...grantEntries.filter((e) => e.mode === 'rw').map((e) => e.path), ...view.writable];
  view.readOnly = [...grantEntries.filter((e) => e.mode === 'ro').map((e) => e.path), ...readOnlyOverlays.map((e) => e.path), ...view.readOnly];
  return { mounts, remountReadOnly: masks.filter((m) => m.kind === 'mask-dir').map((m) => m.dest), view };
}
