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
 *
 * Trust: only first-party plugins (whose real location is inside the checkout's plugins/, or
 * inside the search path's first, built-in folder when that is another one) run under the sandbox profile
 * their manifest names whatever it is. A plugin from anywhere else (RUNTIMECTL_PLUGIN_PATH,
 * --plugins-dir, a link in plugins/ to a folder elsewhere) that asks for an in-process profile
 * (trusted, persistence) runs under "default", the isolating process tier, because one fatal
 * V8 error in an in-process isolate aborts the kernel and every persona (SANDBOX-HAZARDS.md).
 * An operator grants more per persona: the profile's `trust:` names the plugin ids that may
 * run under the profile they ask for (`registry.granting(ids)` is that persona's view).
 */
import { existsSync, readdirSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { isKernelError, kernelError, type KernelError } from '../errors.ts';
import { readManifestFile } from '../manifest/load.ts';
import { DEFAULT_PLUGIN_PROFILE, pluginManifestSchema, type PluginKind, type PluginManifest } from '../manifest/plugin-manifest.ts';
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
  /** found in the built-in folder (the checkout's plugins/), its real location inside it */
  readonly firstParty: boolean;
  /**
   * The in-process profile the manifest asks for when the plugin runs under another one
   * (`profile`, the isolating tier) because it is not first-party and no operator granted it.
   */
  readonly requested?: SandboxProfile;
  /** true when a persona's `trust:` granted the profile the manifest asks for (registry.granting) */
  readonly granted?: boolean;
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
 * an in-process profile it may not have without an operator's grant (see the top of this file).
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

function article(kind: string): string {
  return /^[aeiou]/.test(kind) ? `an ${kind}` : `a ${kind}`;
}

/** `plugin` as a persona whose profile trusts `ids` runs it: under the profile its manifest asks for when it is one of them. */
export function withGrant(plugin: LoadedPlugin, ids: readonly string[]): LoadedPlugin {
  if (plugin.requested === undefined || !ids.includes(plugin.manifest.id)) return plugin;
  const { requested, ...rest } = plugin;
  return { ...rest, profile: requested, granted: true };
}

/** The plugins found on one search path, scanned once. */
export class PluginRegistry {
  readonly roots: readonly string[];
  readonly #plugins: Map<string, LoadedPlugin>;
  readonly refused: readonly Refusal[];

  readonly #scan: PluginScan;

  constructor(scan: PluginScan, roots: readonly string[]) {
    this.roots = roots;
    this.#scan = scan;
    this.#plugins = new Map(scan.plugins.map((p) => [p.manifest.id, p]));
    this.refused = scan.refused;
  }

  /**
   * This registry as a persona whose profile trusts `ids` sees it: each of those plugins runs
   * under the in-process profile its manifest asks for. Ids that are not plugins here are the
   * caller's to refuse (unknownTrust); a first-party plugin needs no grant.
   */
  granting(ids: readonly string[]): PluginRegistry {
    if (ids.length === 0) return this;
    return new PluginRegistry({ plugins: this.#scan.plugins.map((p) => withGrant(p, ids)), refused: this.#scan.refused }, this.roots);
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
