/** The shim as a compiled source: bundled once per kernel (cached on disk), code-cached like any bundle. */
import path from 'node:path';
import { bundleEntry, readCodeCache, writeCodeCache } from '../../kernel/build/bundle.ts';
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

export async function loadShim(cacheDir: string): Promise<CompiledSource> {
  const bundle = await bundleEntry(SHIM_ENTRY, cacheDir, 'shim');
  return withCodeCache(bundle.code, bundle.digest, 'runtimectl:shim', cacheDir);
}
