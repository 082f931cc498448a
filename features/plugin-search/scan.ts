/**
 * Finding plugins on disk (features/plugin-search): the search path, loading each plugin folder,
 * and the scan the kernel's registry (kernel/plugins/registry.ts) is built over. Plugins are found
 * on a search path of folders, each holding plugin folders (`<root>/<folder>/plugin.yaml`): the
 * repository's `plugins/` first, then `RUNTIMECTL_PLUGIN_PATH` (folders separated by `:`), then
 * each `--plugins-dir`. Every manifest is validated and checked against its sandbox profile's
 * ceiling; a bad plugin is refused with the reason, nothing is loaded in its place, and the
 * others are unaffected. Ids are unique across the whole search path: two plugins with one id
 * are both refused, with one line naming both folders.
 *
 * First-party: a plugin whose real location is inside the checkout's plugins/, or inside the
 * search path's first, built-in folder when that is another one, runs under the sandbox profile
 * its manifest names whatever it is. A plugin from anywhere else (RUNTIMECTL_PLUGIN_PATH,
 * --plugins-dir, a link in plugins/ to a folder elsewhere) that asks for an in-process profile
 * (trusted, persistence) runs under "default", the isolating process tier, with the profile it
 * asked for as its `requested` (the registry's header says why, and how an operator grants it).
 */
import { existsSync, readdirSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { isKernelError, kernelError } from '../../kernel/errors.ts';
import { readManifestFile } from '../../kernel/manifest/load.ts';
import { DEFAULT_PLUGIN_PROFILE, pluginManifestSchema, type PluginManifest } from '../../kernel/manifest/plugin-manifest.ts';
import { loadSandboxProfile, type SandboxProfile } from '../../kernel/manifest/sandbox-profile.ts';
import { toPermissionSet } from '../../kernel/manifest/permissions-schema.ts';
import type { PermissionName } from '../../kernel/permissions/descriptors.ts';
import { PermissionGate } from '../../kernel/permissions/gate.ts';
import { PluginRegistry, type LoadedPlugin, type PluginScan, type Refusal } from '../../kernel/plugins/registry.ts';
import { PROJECT_ROOT } from '../../kernel/version.ts';
import { shownPath } from '../../kernel/shown-path.ts';

export const PLUGINS_DIR = path.join(PROJECT_ROOT, 'plugins');
/** Extra plugin folders, separated by `:` (like PATH). */
export const PLUGIN_PATH_ENV = 'RUNTIMECTL_PLUGIN_PATH';

/** How a path is shown in messages: relative to the folder the command runs in when inside it, else absolute. */
export function displayPath(file: string): string {
  return shownPath(file);
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

/** Whether `dir` really is inside `root` (after symlinks): a link in plugins/ to a folder elsewhere is not. */
function realInside(dir: string, root: string): boolean {
  try {
    const rel = path.relative(realpathSync(root), realpathSync(dir));
    return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
  } catch {
    return false;
  }
}

/**
 * The profile a plugin runs under by default, and the one its manifest asked for when that is
 * an in-process profile it may not have without an operator's grant (see the top of this file and kernel/plugins/registry.ts).
 */
function profileFor(manifest: PluginManifest, firstParty: boolean): { profile: SandboxProfile; requested?: SandboxProfile } {
  const asked = loadSandboxProfile(manifest.sandbox);
  if (firstParty || asked.tier !== 'in-process') return { profile: asked };
  return { profile: loadSandboxProfile(DEFAULT_PLUGIN_PROFILE), requested: asked };
}

function checkCeilings(manifest: PluginManifest, dir: string, where: string, profiles: readonly SandboxProfile[]): void {
  for (const profile of profiles) {
    const over = overCeiling(manifest, dir, profile);
    if (over.length > 0) {
      throw kernelError('RTC_ERR_PERMISSION_CEILING', `${where}: permissions: asks for ${over.join(', ')} beyond the "${profile.name}" profile's ceiling`, { details: { file: where, over } });
    }
  }
}

/**
 * Loads the plugin in `dir`, found in search-path folder `source`; `builtIn` is the search
 * path's first folder (the checkout's plugins/): only its own folders are first-party.
 */
export function loadPlugin(dir: string, source = path.dirname(dir), builtIn: string = PLUGINS_DIR): LoadedPlugin {
  const file = path.join(dir, 'plugin.yaml');
  const manifest = readManifestFile(pluginManifestSchema, file);
  const where = displayPath(file);
  // The checkout's own code wherever it is linked from, or a folder of the built-in root that really is there.
  const firstParty = realInside(dir, PLUGINS_DIR) || (path.resolve(source) === path.resolve(builtIn) && realInside(dir, builtIn));
  if (manifest.mcp) return loadMount(manifest, dir, file, source, firstParty);
  if (manifest.entry === undefined) throw kernelError('RTC_ERR_MANIFEST_INVALID', `${where}: entry: is required for a plugin in a plugins folder (a skill's scripts-only plugin.yaml belongs beside its SKILL.md)`, { details: { file: where, field: 'entry' } });
  const entry = path.resolve(dir, manifest.entry);
  if (!existsSync(entry)) throw kernelError('RTC_ERR_MANIFEST_INVALID', `${where}: entry: file "${manifest.entry}" does not exist`, { details: { file: where, field: 'entry' } });
  const { profile, requested } = profileFor(manifest, firstParty);
  // Within the ceiling of the profile it runs under, and of the one it asks for (which a grant gives it).
  checkCeilings(manifest, dir, where, requested ? [requested, profile] : [profile]);
  return { manifest, dir, entry, profile, source, firstParty, ...(requested ? { requested } : {}) };
}

/**
 * A tool plugin that mounts an MCP server: no code to resolve (`entry` is its plugin.yaml),
 * and its command must be one its own manifest asks to run, within its profile's ceiling.
 */
function loadMount(manifest: PluginManifest, dir: string, file: string, source: string, firstParty: boolean): LoadedPlugin {
  const where = displayPath(file);
  const { profile, requested } = profileFor(manifest, firstParty);
  checkCeilings(manifest, dir, where, requested ? [requested, profile] : [profile]);
  const command = manifest.mcp!.command;
  const gate = new PermissionGate([{ label: `manifest:${manifest.id}`, set: toPermissionSet(manifest.permissions, dir, { plugin: dir }) }]);
  if (gate.query('run', command).state !== 'granted') {
    throw kernelError('RTC_ERR_MANIFEST_INVALID', `${where}: mcp.command: "${command}" is not in permissions.run (the server runs under the plugin's run grant: add it there)`, { details: { file: where, field: 'mcp.command' } });
  }
  return { manifest, dir, entry: file, profile, source, firstParty, ...(requested ? { requested } : {}) };
}

/** The plugin folders of one search-path folder, sorted (folders without a plugin.yaml are not plugins). */
function pluginFolders(root: string): string[] {
  if (!existsSync(root)) return [];
  // A linked plugin folder counts (operators link plugins in); existsSync follows the link.
  return readdirSync(root, { withFileTypes: true })
    .filter((d) => (d.isDirectory() || d.isSymbolicLink()) && existsSync(path.join(root, d.name, 'plugin.yaml')))
    .map((d) => path.join(root, d.name))
    .sort();
}

/** The id a refused manifest declares, when its YAML can be read that far (for duplicate detection). */
function declaredId(dir: string): string | undefined {
  try {
    const text = readManifestFile(z.looseObject({ id: z.string() }), path.join(dir, 'plugin.yaml'));
    return text.id;
  } catch {
    return undefined;
  }
}

/** Scans the search path (a folder or several, in order). */
export function scanPlugins(roots: string | readonly string[] = PLUGINS_DIR): PluginScan {
  const list = typeof roots === 'string' ? [roots] : roots;
  const found: LoadedPlugin[] = [];
  const refused: Refusal[] = [];
  for (const root of list) {
    for (const dir of pluginFolders(root)) {
      try {
        found.push(loadPlugin(dir, root, list[0]));
      } catch (error) {
        if (!isKernelError(error)) throw error;
        const id = declaredId(dir);
        refused.push({ dir, ...(id !== undefined ? { id } : {}), error });
      }
    }
  }
  // Ids are unique across the whole path: every holder of a shared id is refused, naming the others.
  const holders = new Map<string, string[]>();
  for (const p of found) holders.set(p.manifest.id, [...(holders.get(p.manifest.id) ?? []), p.dir]);
  const plugins: LoadedPlugin[] = [];
  for (const p of found) {
    const dirs = holders.get(p.manifest.id)!;
    if (dirs.length === 1) {
      plugins.push(p);
      continue;
    }
    const others = dirs.filter((d) => d !== p.dir).map(displayPath);
    refused.push({
      dir: p.dir,
      id: p.manifest.id,
      error: kernelError('RTC_ERR_PLUGIN_DUPLICATE', `${displayPath(path.join(p.dir, 'plugin.yaml'))}: id: "${p.manifest.id}" is also the id of ${others.join(', ')}; plugin ids must be unique across the plugin search path`, {
        details: { plugin: p.manifest.id, folders: dirs.map(displayPath) },
      }),
    });
  }
  return { plugins, refused };
}

/** The search path: the built-in folder, then `RUNTIMECTL_PLUGIN_PATH`, then `--plugins-dir` folders, each once. */
export function pluginSearchPath(options: { env?: Readonly<Record<string, string | undefined>>; dirs?: readonly string[]; builtIn?: string; cwd?: string } = {}): string[] {
  const cwd = options.cwd ?? process.cwd();
  const fromEnv = (options.env?.[PLUGIN_PATH_ENV] ?? '')
    .split(':')
    .map((d) => d.trim())
    .filter((d) => d !== '');
  const all = [options.builtIn ?? PLUGINS_DIR, ...fromEnv, ...(options.dirs ?? [])].map((d) => path.resolve(cwd, d));
  for (const dir of all.slice(1)) {
    if (!existsSync(dir) || !statSync(dir).isDirectory()) {
      throw kernelError('RTC_ERR_CLI_FILE_NOT_FOUND', `plugin folder ${dir} does not exist or is not a folder (from ${fromEnv.includes(dir) ? PLUGIN_PATH_ENV : '--plugins-dir'})`, { details: { dir } });
    }
  }
  return [...new Set(all)];
}

/** Scans the search path (a folder or several, in order) into the registry a start hands to everything that needs a plugin. */
export function scanRegistry(roots: string | readonly string[] = PLUGINS_DIR): PluginRegistry {
  const list = typeof roots === 'string' ? [roots] : [...roots];
  return new PluginRegistry(scanPlugins(list), list);
}
