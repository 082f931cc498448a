/**
 * The plugins one persona runs (its executor, budget policy, phase selector, tools), each a
 * PluginInstance in the sandbox built as plugin-options.ts says (grant, bindings, limits).
 * While a cycle is being recorded, every call goes through its CycleRecorder, so the trace
 * holds each call with the effects it made.
 *
 * Plugins come from the kernel's one registry (scanned once per start); everything a persona
 * names was checked at its start (start-check.ts), so a miss here is a plugin removed since.
 */
import type { PluginInstance } from '../plugins/plugin-instance.ts';
import type { PluginRegistry } from '../plugins/registry.ts';
import type { CycleRecorder } from '../replay/cycle-recorder.ts';
import { grantView } from '../../sandboxes/subprocess/os-sandbox/grant-view.ts';
import { buildPersonaPlugin, type PersonaPluginKind, type PersonaPluginOptions } from './plugin-options.ts';
import type { ResidentIsolates } from './resident-isolates.ts';

/** What the cycle holds of a plugin: its calls (recorded while a recorder is set). */
export interface PluginHandle {
  readonly id: string;
  call(name: string, ...args: unknown[]): Promise<unknown>;
}

export class PersonaPlugins {
  readonly #options: PersonaPluginOptions;
  readonly #registry: PluginRegistry;
  readonly #instances = new Map<string, PluginInstance>();
  /** set for the length of a recorded cycle */
  recorder: CycleRecorder | undefined;

  readonly #resident: ResidentIsolates | undefined;

  /** `resident`: the kernel-wide bound on live isolates (none: every instance keeps its isolate). */
  constructor(options: PersonaPluginOptions, registry: PluginRegistry, resident?: ResidentIsolates) {
    this.#options = options;
    this.#registry = registry;
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
    const instance = buildPersonaPlugin(this.#options, this.#registry.find(id, kind), kind);
    this.#instances.set(id, instance);
    return instance;
  }

  /** The persona's plugin options (grant, bindings, limits): what a throwaway instance for a check is built with. */
  get options(): PersonaPluginOptions {
    return this.#options;
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
