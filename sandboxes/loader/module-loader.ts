/**
 * The kernel's ModuleLoader (kernel/sandbox.ts) over this folder's build: bundles cached in
 * `cacheDir`, and the files of that cache no sandboxed op may reach (the folder itself, where
 * nothing is written from a sandbox, and the key the cache's seals are made with).
 */
import { realpathSync } from 'node:fs';
import type { KernelFiles } from '../../kernel/broker/op.ts';
import type { ModuleLoader } from '../../kernel/sandbox.ts';
import { bundleEntry } from './bundle.ts';
import { cacheKeyFile } from './cache-integrity.ts';

/** The build cache as the broker keeps it out of reach: no write under it, its key never opened. */
export function kernelFilesOf(cacheDir: string): KernelFiles {
  let real = cacheDir;
  try {
    real = realpathSync(cacheDir);
  } catch {
    // not made yet: the key below makes it
  }
  const key = cacheKeyFile(cacheDir);
  return { noWrite: [...new Set([cacheDir, real])], secret: [key] };
}

export function moduleLoader(cacheDir: string): ModuleLoader {
  return {
    cacheDir,
    bundle: async (entry) => {
      const built = await bundleEntry(entry, cacheDir);
      return { code: built.code, digest: built.digest, inputs: built.inputs };
    },
    protectedFiles: () => kernelFilesOf(cacheDir),
  };
}
