/**
 * esbuild, loaded on first use: a command that bundles nothing (`--version`, `status`,
 * `tools list`) does not pay for loading it.
 */
let loaded: Promise<typeof import('esbuild')> | undefined;

export function loadEsbuild(): Promise<typeof import('esbuild')> {
  loaded ??= import('esbuild');
  return loaded;
}
