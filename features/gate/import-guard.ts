/**
 * Before a draft's module is bundled for real, a guarded esbuild pass checks that every file
 * the bundle would take in lies inside the draft's snapshot. The check runs in esbuild's
 * load hook, so a file outside is refused before its bytes are read: a draft importing
 * `../../../home/user/.ssh/config.json` (or a package from the host's node_modules) would
 * otherwise have its contents copied into the bundle, and so into the sandbox and into the
 * evidence package. Only relative and absolute file imports are allowed; bare, `npm:`,
 * `jsr:` and remote specifiers are refused, as the sandbox does not support them.
 */
import path from 'node:path';
import type * as esbuild from 'esbuild';
import { loadEsbuild } from '../../sandboxes/loader/esbuild.ts';
import { isInside } from '../skills/read-reference.ts';

export type GuardResult = { ok: true } | { ok: false; reason: string };

export async function guardImports(entry: string, root: string): Promise<GuardResult> {
  const guard: esbuild.Plugin = {
    name: 'gate-import-guard',
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, (args) => ({
        errors: [{ text: `import "${args.path}" is not a relative file import (bare, npm:, jsr: and remote imports are not supported)` }],
      }));
      build.onLoad({ filter: /.*/ }, (args) => {
        if (args.namespace === 'file' && !isInside(root, args.path)) {
          return { errors: [{ text: `import of ${args.path} leaves the draft folder` }] };
        }
        return undefined;
      });
    },
  };
  try {
    await (await loadEsbuild()).build({
      entryPoints: [entry],
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'neutral',
      target: 'es2022',
      logLevel: 'silent',
      absWorkingDir: path.dirname(entry),
      plugins: [guard],
    });
    return { ok: true };
  } catch (error) {
    const first = (error as esbuild.BuildFailure).errors?.[0];
    if (!first) return { ok: false, reason: String(error) };
    const where = first.location ? `${path.relative(root, path.resolve(path.dirname(entry), first.location.file))}:${first.location.line}:${first.location.column}: ` : '';
    return { ok: false, reason: `${where}${first.text}` };
  }
}
