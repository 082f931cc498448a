/**
 * Where gate checks come from: every `kind: gate-check` plugin in the plugin folders, the
 * repository's `plugins/` first, then each folder of `RUNTIMECTL_PLUGIN_PATH` (separated by
 * ":") and each `--plugins-dir`. Adding a check is dropping a plugin folder
 * (`gate-check-<name>/` with plugin.yaml and mod.ts) into one of them. An id found in two
 * folders is refused in both, rather than one silently shadowing the other.
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { kernelError, type KernelError } from '../../kernel/errors.ts';
import { GATE_CHECK_ID_PREFIX } from '../../kernel/contracts/gate-check.ts';
import { PLUGINS_DIR, scanPlugins, type LoadedPlugin } from '../../kernel/plugins/registry.ts';

export interface GateCheckPlugins {
  /** by check name (the id without `gate-check.`) */
  checks: Map<string, LoadedPlugin>;
  /** manifests that did not load, by the folder they are in */
  refused: { dir: string; error: KernelError }[];
  /** the folders searched, in order */
  dirs: string[];
}

/** The plugin folders: the repository's, then `RUNTIMECTL_PLUGIN_PATH`, then the extra ones given. */
export function pluginSearchPath(env: Readonly<Record<string, string | undefined>>, extra: readonly string[] = [], cwd = process.cwd()): string[] {
  const fromEnv = (env.RUNTIMECTL_PLUGIN_PATH ?? '').split(':').map((d) => d.trim()).filter((d) => d !== '');
  const named = [...fromEnv.map((d) => ({ dir: path.resolve(cwd, d), from: 'RUNTIMECTL_PLUGIN_PATH' })), ...extra.map((d) => ({ dir: path.resolve(cwd, d), from: '--plugins-dir' }))];
  for (const { dir, from } of named) {
    if (!existsSync(dir) || !statSync(dir).isDirectory()) throw kernelError('RTC_ERR_CLI_FILE_NOT_FOUND', `plugin folder ${dir} does not exist or is not a folder (from ${from})`, { details: { dir } });
  }
  return [...new Set([PLUGINS_DIR, ...named.map((n) => n.dir)])];
}

export function scanGateChecks(dirs: readonly string[]): GateCheckPlugins {
  const checks = new Map<string, LoadedPlugin>();
  const refused: GateCheckPlugins['refused'] = [];
  const seenIn = new Map<string, string>();
  const duplicate = new Set<string>();
  for (const dir of dirs) {
    const scan = scanPlugins(dir);
    refused.push(...scan.refused);
    for (const plugin of scan.plugins) {
      if (plugin.manifest.kind !== 'gate-check') continue;
      const name = plugin.manifest.id.slice(GATE_CHECK_ID_PREFIX.length);
      const other = seenIn.get(name);
      if (other !== undefined) {
        duplicate.add(name);
        refused.push({ dir: plugin.dir, error: kernelError('RTC_ERR_PLUGIN_DUPLICATE', `${path.join(plugin.dir, 'plugin.yaml')}: id: "${plugin.manifest.id}" is also used by ${other}`) });
        continue;
      }
      seenIn.set(name, plugin.dir);
      checks.set(name, plugin);
    }
  }
  for (const name of duplicate) checks.delete(name);
  return { checks, refused, dirs: [...dirs] };
}

/** Why a check named in a profile is not available, in one line. */
export function missingCheckReason(name: string, found: GateCheckPlugins): string {
  const folder = `gate-check-${name}`;
  const refused = found.refused.find((r) => path.basename(r.dir) === folder || r.error.message.includes(`"${GATE_CHECK_ID_PREFIX}${name}"`));
  if (refused) return `the gate-check plugin "${GATE_CHECK_ID_PREFIX}${name}" was refused: ${refused.error.message}`;
  const have = [...found.checks.keys()].sort();
  return `no gate-check plugin "${GATE_CHECK_ID_PREFIX}${name}" is installed (looked in ${found.dirs.join(', ')}; have: ${have.join(', ') || 'none'})`;
}
