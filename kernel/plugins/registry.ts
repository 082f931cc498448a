/**
 * The one plugin registry: which plugin is id X, over a scan it is handed. Finding plugins on
 * disk (the search path, loading and validating each manifest, its sandbox profile's ceiling,
 * which plugins are first-party) is features/plugin-search; a bad plugin is refused there with
 * the reason, nothing is loaded in its place, and the others are unaffected.
 *
 * Declared vs resolved: the manifest is what a plugin declares (never mutated); a
 * LoadedPlugin is what the kernel resolved from it (folder, entry file, sandbox profile, and
 * the search-path folder it came from). One scan per start: the registry is built once and
 * handed to everything that needs a plugin (the loop, replay, persistence, the CLI).
 *
 * Ids are unique across the whole search path. Two plugins with one id are both refused (the
 * kernel will not guess which one an operator meant), with one line naming both folders.
 *
 * Trust: only first-party plugins (features/plugin-search decides which) run under the sandbox
 * profile their manifest names whatever it is. A plugin from anywhere else that asks for an
 * in-process profile (trusted, persistence) runs under "default", the isolating process tier,
 * because one fatal V8 error in an in-process isolate aborts the kernel and every persona
 * (SANDBOX-HAZARDS.md); the profile it asked for is its `requested`. An operator grants more
 * per persona: the profile's `trust:` names the plugin ids that may run under the profile they
 * ask for (`registry.granting(ids)` is that persona's view).
 */
import { kernelError, type KernelError } from '../errors.ts';
import type { PluginKind, PluginManifest } from '../manifest/plugin-manifest.ts';
import type { SandboxProfile } from '../manifest/sandbox-profile.ts';
import { shownPath } from '../shown-path.ts';

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

function article(kind: string): string {
  return /^[aeiou]/.test(kind) ? `an ${kind}` : `a ${kind}`;
}

/** `plugin` as a persona whose profile trusts `ids` runs it: under the profile its manifest asks for when it is one of them. */
export function withGrant(plugin: LoadedPlugin, ids: readonly string[]): LoadedPlugin {
  if (plugin.requested === undefined || !ids.includes(plugin.manifest.id)) return plugin;
  const { requested, ...rest } = plugin;
  return { ...rest, profile: requested, granted: true };
}

/** The plugins found on one search path, scanned once (features/plugin-search `scanRegistry` scans it). */
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
      const unreadable = this.refused.filter((r) => r.id === undefined).map((r) => shownPath(r.dir));
      const note = unreadable.length > 0 ? `; manifests that could not be read: ${unreadable.join(', ')}` : '';
      throw kernelError('RTC_ERR_PLUGIN_UNKNOWN', `plugin ${id} is not installed (${kind ? `${kind} plugins` : 'plugins'}: ${same.join(', ') || 'none'})${note}`, { details: { plugin: id, known: same } });
    }
    if (kind !== undefined && plugin.manifest.kind !== kind) {
      throw kernelError('RTC_ERR_PLUGIN_KIND', `plugin ${id} is ${article(plugin.manifest.kind)} plugin, not ${article(kind)} plugin`, { details: { plugin: id, kind: plugin.manifest.kind, wanted: kind } });
    }
    return plugin;
  }
}
