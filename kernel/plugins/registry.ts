/**
 * The one plugin registry. Plugins are found on a search path of folders, each holding
 * plugin folders (`<root>/<folder>/plugin.yaml`): the repository's `plugins/` first, then
 * `RUNTIMECTL_PLUGIN_PATH` (folders separated by `:`), then each `--plugins-dir`. Every
 * manifest is validated and checked against its sandbox profile's ceiling; a bad plugin is
 * refused with the reason, nothing is loaded in its place, and the others are unaffected.
 *
 * Declared vs resolved: the manifest is what a plugin declares (never mutated); a
 * LoadedPlugin is what the kernel resolved from it (folder, entry file, sandbox profile, and
 * the search-path folder it came from). One scan per start: the registry is built once and
 * handed to everything that needs a plugin (the loop, replay, persistence, the CLI).
 *
 * Ids are unique across the whole search path. Two plugins with one id are both refused (the
 * kernel will not guess which one an operator meant), with one line naming both folders.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { isKernelError, kernelError, type KernelError } from '../errors.ts';
import { readManifestFile } from '../manifest/load.ts';
import { pluginManifestSchema, type PluginKind, type PluginManifest } from '../manifest/plugin-manifest.ts';
import { loadSandboxProfile, type SandboxProfile } from '../manifest/sandbox-profile.ts';
import { toPermissionSet } from '../manifest/permissions-schema.ts';
import type { PermissionName } from '../permissions/descriptors.ts';
import { PermissionGate } from '../permissions/gate.ts';
import { PROJECT_ROOT } from '../version.ts';
import { shownPath } from '../shown-path.ts';

export const PLUGINS_DIR = path.join(PROJECT_ROOT, 'plugins');
/** Extra plugin folders, separated by `:` (like PATH). */
export const PLUGIN_PATH_ENV = 'RUNTIMECTL_PLUGIN_PATH';

/** A plugin as resolved: the manifest as declared plus where it lives and what it runs under. */
export interface LoadedPlugin {
  readonly manifest: PluginManifest;
  readonly dir: string;
  readonly entry: string;
  readonly profile: SandboxProfile;
  /** the search-path folder the plugin was found in (its parent folder) */
  readonly source: string;
}

export interface Refusal {
  dir: string;
  /** the manifest's id when it could be read (a duplicate, a ceiling refusal), else undefined */
  id?: string;
  error: KernelError;
}

export interface PluginScan {
  plugins: LoadedPlugin[];
  refused: Refusal[];
}

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

export function loadPlugin(dir: string, source = path.dirname(dir)): LoadedPlugin {
  const file = path.join(dir, 'plugin.yaml');
  const manifest = readManifestFile(pluginManifestSchema, file);
  const where = displayPath(file);
  if (manifest.mcp) return loadMount(manifest, dir, file, source);
  const entry = path.resolve(dir, manifest.entry!);
  if (!existsSync(entry)) throw kernelError('RTC_ERR_MANIFEST_INVALID', `${where}: entry: file "${manifest.entry}" does not exist`, { details: { file: where, field: 'entry' } });
  const profile = loadSandboxProfile(manifest.sandbox);
  const over = overCeiling(manifest, dir, profile);
  if (over.length > 0) {
    throw kernelError('RTC_ERR_PERMISSION_CEILING', `${where}: permissions: asks for ${over.join(', ')} beyond the "${profile.name}" profile's ceiling`, { details: { file: where, over } });
  }
  return { manifest, dir, entry, profile, source };
}

/**
 * A tool plugin that mounts an MCP server: no code to resolve (`entry` is its plugin.yaml),
 * and its command must be one its own manifest asks to run, within its profile's ceiling.
 */
function loadMount(manifest: PluginManifest, dir: string, file: string, source: string): LoadedPlugin {
  const where = displayPath(file);
  const profile = loadSandboxProfile(manifest.sandbox);
  const over = overCeiling(manifest, dir, profile);
  if (over.length > 0) {
    throw kernelError('RTC_ERR_PERMISSION_CEILING', `${where}: permissions: asks for ${over.join(', ')} beyond the "${profile.name}" profile's ceiling`, { details: { file: where, over } });
  }
  const command = manifest.mcp!.command;
  const gate = new PermissionGate([{ label: `manifest:${manifest.id}`, set: toPermissionSet(manifest.permissions, dir, { plugin: dir }) }]);
  if (gate.query('run', command).state !== 'granted') {
    throw kernelError('RTC_ERR_MANIFEST_INVALID', `${where}: mcp.command: "${command}" is not in permissions.run (the server runs under the plugin's run grant: add it there)`, { details: { file: where, field: 'mcp.command' } });
  }
  return { manifest, dir, entry: file, profile, source };
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
        found.push(loadPlugin(dir, root));
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

function article(kind: string): string {
  return /^[aeiou]/.test(kind) ? `an ${kind}` : `a ${kind}`;
}

/** The plugins found on one search path, scanned once. */
export class PluginRegistry {
  readonly roots: readonly string[];
  readonly #plugins: Map<string, LoadedPlugin>;
  readonly refused: readonly Refusal[];

  constructor(scan: PluginScan, roots: readonly string[]) {
    this.roots = roots;
    this.#plugins = new Map(scan.plugins.map((p) => [p.manifest.id, p]));
    this.refused = scan.refused;
  }

  static scan(roots: string | readonly string[] = PLUGINS_DIR): PluginRegistry {
    const list = typeof roots === 'string' ? [roots] : [...roots];
    return new PluginRegistry(scanPlugins(list), list);
  }

  /** Every loaded plugin, by id. */
  list(): LoadedPlugin[] {
    return [...this.#plugins.values()].sort((a, b) => a.manifest.id.localeCompare(b.manifest.id));
  }

  has(id: string): boolean {
    return this.#plugins.has(id);
  }

  /** The plugin `id`, or undefined (no error) when it is not loaded. */
  get(id: string): LoadedPlugin | undefined {
    return this.#plugins.get(id);
  }

  /**
   * Plugin `id` of `kind`. A refused manifest with that id is its refusal (a duplicate names
   * both folders); an unknown id lists the ids of that kind; a wrong kind says which it is.
   */
  find(id: string, kind?: PluginKind): LoadedPlugin {
    const plugin = this.#plugins.get(id);
    if (!plugin) {
      const refusal = this.refused.find((r) => r.id === id);
      if (refusal) {
        if (refusal.error.code === 'RTC_ERR_PLUGIN_DUPLICATE') throw refusal.error;
        throw kernelError('RTC_ERR_PLUGIN_REFUSED', `plugin ${id} was refused: ${refusal.error.message}`, { details: { plugin: id, cause: refusal.error.code }, cause: refusal.error });
      }
      const same = this.list().filter((p) => kind === undefined || p.manifest.kind === kind).map((p) => p.manifest.id);
      const unreadable = this.refused.filter((r) => r.id === undefined).map((r) => displayPath(r.dir));
      const note = unreadable.length > 0 ? `; manifests that could not be read: ${unreadable.join(', ')}` : '';
      throw kernelError('RTC_ERR_PLUGIN_UNKNOWN', `plugin ${id} is not installed (${kind ? `${kind} plugins` : 'plugins'}: ${same.join(', ') || 'none'})${note}`, { details: { plugin: id, known: same } });
    }
    if (kind !== undefined && plugin.manifest.kind !== kind) {
      throw kernelError('RTC_ERR_PLUGIN_KIND', `plugin ${id} is ${article(plugin.manifest.kind)} plugin, not ${article(kind)} plugin`, { details: { plugin: id, kind: plugin.manifest.kind, wanted: kind } });
    }
    return plugin;
  }
}
