/**
 * Deno's special-path rule, as the broker applies it to every `read` and `write` need of any
 * op (broker.ts): anything under /proc, /sys and /dev, except a few harmless devices,
 * requires `--allow-all`. In the process tier the broker does every file op, so `/proc/self`
 * is the kernel (its environment holds API keys) and `/dev/stdout` the kernel's own output.
 * On the public surface because it is one rule with three users: the broker, the Deno fs
 * ops (sandboxes/deno/ops/special-files.ts adds what a path really reaches, by inode) and the
 * module loader (sandboxes/loader/import-scope.ts).
 */

/** The trees Deno treats as special. */
export const SPECIAL_ROOTS: readonly string[] = ['/proc', '/sys', '/dev'];

/** Deno 2.9.6's harmless devices (measured): no `--allow-all` needed. */
export const HARMLESS_PATHS: ReadonlySet<string> = new Set(['/dev/null', '/dev/zero', '/dev/random', '/dev/urandom', '/dev/tty']);

/** `p` is `root` or beneath it. */
export function isUnder(p: string, root: string): boolean {
  return p === root || p.startsWith(`${root}/`);
}

/** Deno's path rule, on an absolute normalized path. */
export function isSpecialPath(p: string): boolean {
  if (HARMLESS_PATHS.has(p)) return false;
  return SPECIAL_ROOTS.some((root) => isUnder(p, root));
}
