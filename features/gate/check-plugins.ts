/**
 * Where gate checks come from: every `kind: gate-check` plugin on the plugin search path (the
 * one scan, features/plugin-search/scan.ts: the repository's `plugins/` first, then each
 * folder of `RUNTIMECTL_PLUGIN_PATH` and each `--plugins-dir`). Adding a check is dropping a
 * plugin folder (`gate-check-<name>/` with plugin.yaml and mod.ts) into one of them. An id
 * found in two folders is refused in both by the registry, rather than one silently
 * shadowing the other.
 */
import path from 'node:path';
import { GATE_CHECK_ID_PREFIX } from '../../kernel/contracts/gate-check.ts';
import { type LoadedPlugin, PluginRegistry, type Refusal } from '../../kernel/plugins/registry.ts';
import { displayPath, scanRegistry } from '../plugin-search/scan.ts';

export interface GateCheckPlugins {
  /** by check name (the id without `gate-check.`) */
  checks: Map<string, LoadedPlugin>;
  /** manifests that did not load (or share an id), by the folder they are in */
  refused: readonly Refusal[];
  /** the folders searched, in order */
  dirs: readonly string[];
}

/** The gate-check plugins of a registry (or of a search path, scanned once here). */
export function gateChecksOf(source: PluginRegistry | readonly string[]): GateCheckPlugins {
  const registry = source instanceof PluginRegistry ? source : scanRegistry(source);
  const checks = new Map<string, LoadedPlugin>();
  for (const plugin of registry.list()) {
    if (plugin.manifest.kind === 'gate-check') checks.set(plugin.manifest.id.slice(GATE_CHECK_ID_PREFIX.length), plugin);
  }
  return { checks, refused: registry.refused, dirs: registry.roots };
}

/** Why a check named in a profile is not available, in one line. */
export function missingCheckReason(name: string, found: GateCheckPlugins): string {
  const id = `${GATE_CHECK_ID_PREFIX}${name}`;
  const folder = `gate-check-${name}`;
  const refused = found.refused.find((r) => r.id === id) ?? found.refused.find((r) => path.basename(r.dir) === folder);
  if (refused) return `the gate-check plugin "${id}" was refused: ${refused.error.message}`;
  const have = [...found.checks.keys()].sort();
  return `no gate-check plugin "${id}" is installed (looked in ${found.dirs.map(displayPath).join(', ')}; have: ${have.join(', ') || 'none'})`;
}
