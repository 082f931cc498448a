/**
 * Keeps host paths out of what the loop logs. Paths the loop itself writes are already
 * relative to the state directory; this catches the ones inside messages from elsewhere (a
 * plugin's error, a spawn failure), replacing the state directory, the kernel's folder and
 * the home directory with placeholders. Longest prefixes go first.
 */
import { realpathSync } from 'node:fs';
import os from 'node:os';
import { PROJECT_ROOT } from '../../kernel/version.ts';
import type { PathScrubber } from '../../kernel/loop/persona-paths.ts';

/** The shape is the kernel's (the loop hands it to steps); this file fills it. */
export type { PathScrubber } from '../../kernel/loop/persona-paths.ts';

/** A folder as given and as its real path (they differ under a symlink): both are scrubbed. */
export function pathVariants(dir: string): string[] {
  const out = [dir];
  try {
    const real = realpathSync(dir);
    if (real !== dir) out.push(real);
  } catch {
    // not there (yet): the lexical form is enough
  }
  return out;
}

export function hostPathScrubber(stateDir: string): PathScrubber {
  const pairs: [string, string][] = [
    ...pathVariants(stateDir).map((p): [string, string] => [p, '<state>']),
    ...pathVariants(PROJECT_ROOT).map((p): [string, string] => [p, '<runtimectl>']),
    ...pathVariants(os.homedir()).map((p): [string, string] => [p, '~']),
  ]
    .filter(([p]) => p.length > 1)
    .sort((a, b) => b[0].length - a[0].length);
  // One scan says whether any prefix occurs at all (most strings of a cycle event hold none),
  // instead of one includes() per prefix on every string; the replacement itself is unchanged.
  const anyPrefix = new RegExp(pairs.map(([p]) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'));
  const scrubString = (text: string): string => {
    if (pairs.length === 0 || !anyPrefix.test(text)) return text;
    let out = text;
    for (const [from, to] of pairs) if (out.includes(from)) out = out.split(from).join(to);
    return out;
  };
  const walk = (value: unknown): unknown => {
    if (typeof value === 'string') return scrubString(value);
    if (Array.isArray(value)) return value.map(walk);
    if (value !== null && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) out[k] = walk(v);
      return out;
    }
    return value;
  };
  return <T>(value: T) => walk(value) as T;
}
