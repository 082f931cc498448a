/**
 * The plugins one persona runs (its executor and its budget policy), each a PluginInstance
 * in the sandbox built as plugin-options.ts says (grant, bindings, limits). While a cycle is
 * being recorded, every call goes through its CycleRecorder, so the trace holds each call
 * with the effects it made.
 *
 * A plugin that is not installed, or of the wrong kind, is an error for the cycle that asked
 * for it; the next cycle looks again (it may have been installed since).
 */
import { statSync } from 'node:fs';
import { kernelError } from '../errors.ts';
import type { PluginInstance } from '../plugins/plugin-instance.ts';
import { PLUGINS_DIR, scanPlugins, type LoadedPlugin } from '../plugins/registry.ts';
import type { CycleRecorder } from '../replay/cycle-recorder.ts';
import { grantView } from '../../sandboxes/subprocess/os-sandbox/grant-view.ts';
import { buildPersonaPlugin, type PersonaPluginKind, type PersonaPluginOptions } from './plugin-options.ts';
import type { ResidentIsolates } from './resident-isolates.ts';

/**
 * The installed plugins, scanned once per process. A missing id triggers a rescan only when
 * the plugins folder changed since (a plugin installed meanwhile): a scan validates every
 * manifest, which is too slow to repeat on every cycle of a persona with a typo in its profile.
 */
export class PluginDirectory {
  readonly root: string;
  #plugins = new Map<string, LoadedPlugin>();
  #refused: string[] = [];
  #scannedAt = -1;

  constructor(root = PLUGINS_DIR) {
    this.root = root;
    this.#scan();
  }

  #mtime(): number {
    try {
      return statSync(this.root).mtimeMs;
    } catch {
      return -1;
    }
  }

  #scan(): void {
    this.#scannedAt = this.#mtime();
    const scan = scanPlugins(this.root);
    this.#plugins = new Map(scan.plugins.map((p) => [p.manifest.id, p]));
    this.#refused = scan.refused.map((r) => r.error.message);
  }

  find(id: string, kind: LoadedPlugin['manifest']['kind']): LoadedPlugin {
    if (!this.#plugins.has(id) && this.#mtime() !== this.#scannedAt) this.#scan();
    const plugin = this.#plugins.get(id);
    if (!plugin) {
      const refusedNote = this.#refused.length > 0 ? `; refused manifests: ${this.#refused.join(' | ')}` : '';
      throw kernelError('RTC_ERR_PLUGIN_UNKNOWN', `plugin ${id} is not installed (have: ${[...this.#plugins.keys()].sort().join(', ')})${refusedNote}`, { details: { plugin: id } });
    }
    if (plugin.manifest.kind !== kind) {
      throw kernelError('RTC_ERR_PLUGIN_UNKNOWN', `plugin ${id} is a ${plugin.manifest.kind} plugin, not ${kind === 'executor' ? 'an executor' : `a ${kind}`}`, { details: { plugin: id } });
    }
    return plugin;
  }
}

/** What the cycle holds of a plugin: its calls (recorded while a recorder is set). */
export interface PluginHandle {
  readonly id: string;
  call(name: string, ...args: unknown[]): Promise<unknown>;
}

export class PersonaPlugins {
  readonly #options: PersonaPluginOptions;
  readonly #directory: PluginDirectory;
  readonly #instances = new Map<string, PluginInstance>();
  /** set for the length of a recorded cycle */
  recorder: CycleRecorder | undefined;

  readonly #resident: ResidentIsolates | undefined;

  /** `resident`: the kernel-wide bound on live isolates (none: every instance keeps its isolate). */
  constructor(options: PersonaPluginOptions, directory: PluginDirectory, resident?: ResidentIsolates) {
    this.#options = options;
    this.#directory = directory;
    this.#resident = resident;
  }

  /** Plugin `id`, its instance built on first use. */
  get(id: string, kind: PersonaPluginKind): PluginHandle {
    const instance = this.#instance(id, kind);
    return {
      id,
      call: (name, ...args) => {
        const run = () => (this.recorder ? this.recorder.call(instance, name, args) : instance.call(name, ...args));
        return this.#resident ? this.#resident.use(instance, run) : run();
      },
    };
  }

  /** The hosts a plugin's subprocesses may reach (its grant's `net`): all, or these. */
  netGrant(id: string, kind: PersonaPluginKind): true | string[] {
    const view = grantView(this.#instance(id, kind).broker.context.gate);
    return view.netAll || (view.netAny && view.netHosts.length === 0) ? true : view.netHosts;
  }

  #instance(id: string, kind: PersonaPluginKind): PluginInstance {
    const existing = this.#instances.get(id);
    if (existing) return existing;
    const instance = buildPersonaPlugin(this.#options, this.#directory.find(id, kind), kind);
    this.#instances.set(id, instance);
    return instance;
  }

  /** Drops every instance: the next call of each plugin builds a fresh isolate. */
  dispose(): void {
    for (const instance of this.#instances.values()) {
      instance.dispose();
      this.#resident?.forget(instance);
    }
    this.#instances.clear();
  }
}
