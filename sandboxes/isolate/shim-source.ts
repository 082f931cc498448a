/** The shim as a compiled source: bundled once per kernel (cached on disk), code-cached like any bundle. */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { bundleEntry, readCodeCache, writeCodeCache, type BuiltBundle } from '../loader/bundle.ts';
import { PARTS_DIR } from '../loader/shim-part-links.ts';
import { PROJECT_ROOT } from '../../kernel/version.ts';
import type { CompiledSource } from './isolate-runtime.ts';

export const SHIM_ENTRY = path.join(PROJECT_ROOT, 'sandboxes', 'shim', 'index.ts');

/** Loads a bundle's code cache if intact and arranges for a new one to be saved. */
export function withCodeCache(code: string, digest: string, filename: string, cacheDir: string): CompiledSource {
  const cachedData = readCodeCache(digest, cacheDir);
  const source: CompiledSource = {
    code,
    digest,
    filename,
    ...(cachedData ? { cachedData } : {}),
    // Kept on the source too: the next isolate built from it in this process compiles from cache.
    onCachedData: (data) => {
      source.cachedData = data;
      writeCodeCache(digest, data, cacheDir);
    },
  };
  return source;
}

/** The shim parts' entries: `parts/<name>.ts` or `parts/<name>/index.ts`. */
export function listShimParts(): { name: string; entry: string }[] {
  return readdirSync(PARTS_DIR, { withFileTypes: true })
    .map((e) => (e.isDirectory() ? { name: e.name, entry: path.join(PARTS_DIR, e.name, 'index.ts') } : e.name.endsWith('.ts') ? { name: e.name.slice(0, -3), entry: path.join(PARTS_DIR, e.name) } : null))
    .filter((p): p is { name: string; entry: string } => p !== null && existsSync(p.entry))
    .sort((a, b) => a.name.localeCompare(b.name));
}

export async function loadShim(cacheDir: string): Promise<CompiledSource> {
  const [bundle, ...parts] = await Promise.all([
    bundleEntry(SHIM_ENTRY, cacheDir, 'shim'),
    ...listShimParts().map(async (p) => [p.name, (await bundleEntry(p.entry, cacheDir, 'part')).code] as const),
  ]);
  const source = withCodeCache((bundle as BuiltBundle).code, (bundle as BuiltBundle).digest, 'runtimectl:shim', cacheDir);
  source.parts = Object.freeze(Object.fromEntries(parts as (readonly [string, string])[]));
  return source;
}
