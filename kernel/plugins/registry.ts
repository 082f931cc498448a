/**
 * Finds plugins (`plugins/<folder>/plugin.yaml`), validates each manifest, and checks what
 * it asks for against its sandbox profile's ceiling. A bad plugin is refused with the
 * reason; nothing is loaded in its place, and the others are unaffected.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { isKernelError, kernelError, type KernelError } from '../errors.ts';
import { readManifestFile } from '../manifest/load.ts';
import { pluginManifestSchema, type PluginManifest } from '../manifest/plugin-manifest.ts';
import { loadSandboxProfile, type SandboxProfile } from '../manifest/sandbox-profile.ts';
import { toPermissionSet } from '../manifest/permissions-schema.ts';
import type { PermissionName } from '../permissions/descriptors.ts';
import { PermissionGate } from '../permissions/gate.ts';
import { PROJECT_ROOT } from '../version.ts';

export const PLUGINS_DIR = path.join(PROJECT_ROOT, 'plugins');

/** A plugin as resolved: the manifest as declared plus where it lives and what it runs under. */
export interface LoadedPlugin {
  readonly manifest: PluginManifest;
  readonly dir: string;
  readonly entry: string;
  readonly profile: SandboxProfile;
}

export interface PluginScan {
  plugins: LoadedPlugin[];
  refused: { dir: string; error: KernelError }[];
}

/** Every value the manifest requests that the ceiling does not grant, as `kind:value`. */
export function overCeiling(manifest: PluginManifest, dir: string, profile: SandboxProfile): string[] {
  const requested = toPermissionSet(manifest.permissions, dir, { plugin: dir });
  const ceiling = new PermissionGate([{ label: `profile:${profile.name}`, set: toPermissionSet(profile.ceiling, dir, { plugin: dir }) }]);
  const problems: string[] = [];
  for (const kind of ['read', 'write', 'net', 'env', 'run'] as PermissionName[]) {
    const allow = requested[kind].allow;
    if (allow === true) {
      if (ceiling.query(kind).state !== 'granted') problems.push(`${kind}:*`);
    } else {
      for (const value of allow) if (ceiling.query(kind, value).state !== 'granted') problems.push(`${kind}:${value}`);
    }
  }
  return problems;
}

export function loadPlugin(dir: string): LoadedPlugin {
  const manifest = readManifestFile(pluginManifestSchema, path.join(dir, 'plugin.yaml'), PROJECT_ROOT);
  const where = path.relative(PROJECT_ROOT, path.join(dir, 'plugin.yaml'));
  const entry = path.resolve(dir, manifest.entry);
  if (!existsSync(entry)) throw kernelError('RTC_ERR_MANIFEST_INVALID', `${where}: entry: file "${manifest.entry}" does not exist`);
  const profile = loadSandboxProfile(manifest.sandbox);
  const over = overCeiling(manifest, dir, profile);
  if (over.length > 0) {
    throw kernelError('RTC_ERR_PERMISSION_CEILING', `${where}: permissions: asks for ${over.join(', ')} beyond the "${profile.name}" profile's ceiling`, { details: { file: where, over } });
  }
  return { manifest, dir, entry, profile };
}

export function scanPlugins(root = PLUGINS_DIR): PluginScan {
  const scan: PluginScan = { plugins: [], refused: [] };
  const seen = new Map<string, string>();
  const dirs = existsSync(root) ? readdirSync(root, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => path.join(root, d.name)).sort() : [];
  for (const dir of dirs) {
    if (!existsSync(path.join(dir, 'plugin.yaml'))) continue;
    try {
      const plugin = loadPlugin(dir);
      const other = seen.get(plugin.manifest.id);
      if (other) throw kernelError('RTC_ERR_PLUGIN_DUPLICATE', `${path.relative(PROJECT_ROOT, dir)}/plugin.yaml: id: "${plugin.manifest.id}" is also used by ${path.relative(PROJECT_ROOT, other)}`);
      seen.set(plugin.manifest.id, dir);
      scan.plugins.push(plugin);
    } catch (error) {
      if (!isKernelError(error)) throw error;
      scan.refused.push({ dir, error });
    }
  }
  return scan;
}
