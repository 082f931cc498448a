/**
 * A copy of the repository's plugins/ a test may change. Persistence backends are host
 * modules importing the kernel by relative path, so they are linked, not copied; so are the
 * shared folders (`executor-shared`, ...): a plugin imports only from its own folder and the
 * kernel's source (sandboxes/loader/import-scope.ts), which the links lead back to.
 */
import { cpSync, readdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { PLUGINS_DIR } from '../../features/plugin-search/scan.ts';

export function copyPlugins(dest: string): string {
  // Persistence backends and the ledger bundle shared code from features/ by relative path: linked, not copied.
  const linked = (name: string) => name.startsWith('persistence-') || name === 'ledger' || name.endsWith('-shared');
  cpSync(PLUGINS_DIR, dest, { recursive: true, filter: (src) => !linked(path.basename(src)) });
  for (const name of readdirSync(PLUGINS_DIR).filter(linked)) symlinkSync(path.join(PLUGINS_DIR, name), path.join(dest, name));
  return dest;
}
