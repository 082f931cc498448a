/**
 * Host modules: plugins that run in the kernel's own process rather than an isolate
 * (persistence backends, which need native sqlite and the fsync path). The kernel imports
 * them by their entry's path. The precompiled CLI (bin/build-cli.mjs) bundles the
 * first-party ones and registers them here by path, so they are the bundle's own modules
 * (one copy of every kernel module); any other is imported from its file, a TypeScript one
 * through tsx, registered on first need when the running CLI is the precompiled one.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** Loaders of the bundled host modules (each a chunk of the build, loaded on first use). */
const registered = new Map<string, () => Promise<Record<string, unknown>>>();
let tsLoader: Promise<void> | undefined;

/** Called by the precompiled CLI's entry: the host modules bundled into it, by absolute path. */
export function registerHostModules(modules: Record<string, () => Promise<Record<string, unknown>>>): void {
  for (const [file, load] of Object.entries(modules)) registered.set(path.resolve(file), load);
}

/** True in the precompiled CLI (it registers its bundled host modules before anything runs). */
export function precompiled(): boolean {
  return registered.size > 0;
}

/** The module at `file`: the bundled copy when there is one, else an import of the file. */
export async function importHostModule(file: string): Promise<Record<string, unknown>> {
  const known = registered.get(path.resolve(file));
  if (known) return known();
  if (precompiled() && /\.(c|m)?ts$/.test(file)) {
    tsLoader ??= import('tsx/esm/api').then(({ register }) => void register());
    await tsLoader;
  }
  return (await import(pathToFileURL(file).href)) as Record<string, unknown>;
}
