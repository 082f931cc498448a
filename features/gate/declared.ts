/**
 * What a draft declares it needs: the permissions of its plugin.yaml, read from the snapshot
 * with the kernel's own parser. No plugin.yaml, or one that does not validate (the
 * skill-manifest check says why), declares nothing: its tests then run with their scratch
 * folder only, and every other effect they attempt is refused and named.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { isKernelError } from '../../kernel/errors.ts';
import { parseYaml, validateManifest } from '../../kernel/manifest/load.ts';
import type { PermissionsManifest } from '../../kernel/manifest/permissions-schema.ts';
import { pluginManifestSchema } from '../../kernel/manifest/plugin-manifest.ts';

export function declaredPermissions(draft: string): PermissionsManifest | null {
  const file = path.join(draft, 'plugin.yaml');
  if (!existsSync(file)) return null;
  try {
    return validateManifest(pluginManifestSchema, parseYaml(readFileSync(file, 'utf8'), 'plugin.yaml'), 'plugin.yaml').permissions;
  } catch (error) {
    // A manifest that does not parse declares nothing (skill-manifest fails it, naming why).
    if (isKernelError(error) || error instanceof Error) return null;
    throw error;
  }
}
