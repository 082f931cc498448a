/**
 * Building a shim part (sandboxes/shim/parts/<name>.ts or parts/<name>/index.ts): a part
 * runs in an isolate that already holds the shim's core, so it must share the core's module
 * instances (the host binding, the error classes) rather than bundle copies of them. An
 * import of a core module becomes `require("rtc:<path>")` and an import of another part
 * `require("rtc-part:<name>")`; the shim's part loader answers both (parts-loader.ts). An npm
 * polyfill's bare import of a Node built-in the shim implements (`buffer`, `events`, `process`)
 * becomes `require("rtc-node:<name>")`, the shim's one instance of it.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type * as esbuild from 'esbuild';
import { PROJECT_ROOT } from '../../kernel/version.ts';
import { PART_NODE_ALIASES } from '../shim/node/modules.ts';

export const SHIM_DIR = path.join(PROJECT_ROOT, 'sandboxes', 'shim');
export const PARTS_DIR = path.join(SHIM_DIR, 'parts');

/** The part a file belongs to: `parts/<name>.ts` or anything under `parts/<name>/`. */
export function partOwning(file: string): string | undefined {
  const rel = path.relative(PARTS_DIR, file);
  if (rel.startsWith('..') || path.isAbsolute(rel)) return undefined;
  const parts = rel.split(path.sep);
  return parts.length === 1 ? rel.replace(/\.ts$/, '') : parts[0];
}

function resolveFile(dir: string, specifier: string): string {
  const target = path.resolve(dir, specifier);
  if (existsSync(target) && !target.endsWith(path.sep)) return target;
  for (const candidate of [`${target}.ts`, path.join(target, 'index.ts')]) if (existsSync(candidate)) return candidate;
  return target;
}

export function shimPartLinks(entry: string): esbuild.Plugin {
  return {
    name: 'shim-part-links',
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, (args) => {
        const name = Object.prototype.hasOwnProperty.call(PART_NODE_ALIASES, args.path) ? PART_NODE_ALIASES[args.path] : undefined;
        return name === undefined ? undefined : { path: `rtc-node:${name}`, external: true };
      });
      build.onResolve({ filter: /^\.\.?\// }, (args) => {
        const file = resolveFile(args.resolveDir, args.path);
        const inShim = !path.relative(SHIM_DIR, file).startsWith('..');
        if (!inShim) return undefined;
        // Another part's file is reached through that part's entry (which re-exports it),
        // so both parts share one copy of its classes.
        const owner = partOwning(file);
        if (owner !== undefined) return owner === partOwning(entry) ? undefined : { path: `rtc-part:${owner}`, external: true };
        return { path: `rtc:${path.relative(SHIM_DIR, file).split(path.sep).join('/')}`, external: true };
      });
    },
  };
}
