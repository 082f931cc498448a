/**
 * The plugins one persona runs (its executor, budget policy, phase selector, tools), each a
 * PluginInstance in the sandbox built as plugin-options.ts says (grant, bindings, limits).
 * While a cycle is being recorded, every call goes through its CycleRecorder, so the trace
 * holds each call with the effects it made.
 *
 * Plugins come from the kernel's one registry (scanned once per start); everything a persona
 * names was checked at its start (start-check.ts), so a miss here is a plugin removed since.
 */
import type { PluginInstance } from '../plugin-host/plugin-instance.ts';
import type { PermissionGate, PermissionLayer } from '../../kernel/permissions/gate.ts';
import type { SandboxProfile } from '../../kernel/manifest/sandbox-profile.ts';
import type { MountedServer, ScriptCallee, ToolGrant, ToolRunners } from './tools/runners.ts';
import type { ScriptToolSpec } from './tools/script-spec.ts';
import type { PluginRegistry } from '../../kernel/plugins/registry.ts';
import type { OsSandboxSettings } from '../../kernel/broker/op.ts';
import type { CycleRecorder } from '../cycle-recording/cycle-recorder.ts';
import { buildPersonaPlugin, type PersonaPluginKind, type PersonaPluginOptions } from './plugin-options.ts';
import type { ResidentIsolates } from './resident-isolates.ts';
import type { PluginHandle, StepPlugins } from '../../kernel/loop/steps.ts';

export type { PluginHandle };

export class PersonaPlugins implements StepPlugins {
  readonly #options: PersonaPluginOptions;
  readonly #registry: PluginRegistry;
  readonly #instances = new Map<string, PluginInstance>();
  readonly #mounts = new Map<string, MountedServer>();
  readonly #scripts = new Map<string, ScriptCallee>();
  /** how mounts and script tools are made (the composition's), made on first need and closed with the instances */
  #runners: ToolRunners | undefined;
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

  /**
   * The MCP server tool plugin `id` mounts (started on first use, under the persona's grant).
   * Its calls go through `callMount`, recorded like any plugin call while a cycle is.
   */
  mount(id: string): MountedServer {
    let mount = this.#mounts.get(id);
    if (!mount) {
      const o = this.#options;
      mount = this.#tools().mount(this.#registry.find(id, 'tool'), { allow: o.allow, vars: { ...o.vars, session: null }, env: o.env, cwd: o.otherCwd, audit: o.audit, os: this.#osSettings() });
      this.#mounts.set(id, mount);
    }
    return mount;
  }

  /** How the server plugin `id` mounts is contained, once started (McpMount.osSandbox); undefined for anything else. */
  mountSandbox(id: string): string | undefined {
    return this.#mounts.get(id)?.osSandbox;
  }

  /** Calls tool `name` of the server plugin `id` mounts (recorded on `recorder`, else the cycle's). */
  callMount(id: string, name: string, args: unknown, recorder: CycleRecorder | undefined = this.recorder): Promise<unknown> {
    const mount = this.mount(id);
    return recorder ? recorder.call(mount, name, [args]) : mount.call(name, args);
  }

  /** The tool a skill's script is (ToolRunners.script), under the persona's grant; each call a fresh run. */
  script(spec: ScriptToolSpec): ScriptCallee {
    let tool = this.#scripts.get(spec.traceId);
    if (!tool || tool.spec !== spec) {
      const o = this.#options;
      tool = this.#tools().script(spec, {
        allow: o.allow,
        vars: { ...o.vars, session: null },
        env: o.env,
        cwd: o.otherCwd,
        cpuSeconds: o.cpuSeconds,
        audit: o.audit,
        ...(o.sources ? { sources: o.sources } : {}),
        os: this.#osSettings(),
      });
      this.#scripts.set(spec.traceId, tool);
    }
    return tool;
  }

  /** What a tool with these layers may do, summarized for `tools list` (ToolRunners.grant). */
  toolGrant(layers: readonly PermissionLayer[], profile: Pick<SandboxProfile, 'name' | 'tier'>): ToolGrant {
    return this.#tools().grant(layers, profile);
  }

  #tools(): ToolRunners {
    this.#runners ??= this.#options.tools(this.#options.kit);
    return this.#runners;
  }

  /** The OS sandbox of what the persona's tools start (a script's children, a mounted server): its state hidden but its own folder. */
  #osSettings(): OsSandboxSettings {
    const o = this.#options;
    return { mode: o.osSandbox, hide: o.hidden, own: o.personaDir, ...(o.tracker ? { tracker: o.tracker } : {}), ...(o.hostEnv ? { hostEnv: o.hostEnv } : {}) };
  }

  /** Runs the script tool `spec` with `args` (recorded on `recorder`, else the cycle's). */
  callScript(spec: ScriptToolSpec, args: unknown, recorder: CycleRecorder | undefined = this.recorder): Promise<unknown> {
    const tool = this.script(spec);
    return recorder ? recorder.call(tool, 'run', [args]) : tool.call('run', args);
  }

  /** Calls `method` of plugin `id` recorded on `recorder` (a tool call outside any cycle), within the bound on live isolates. */
  callRecorded(id: string, kind: PersonaPluginKind, recorder: CycleRecorder | undefined, method: string, args: unknown[]): Promise<unknown> {
    recorder ??= this.recorder;
    const instance = this.#instance(id, kind);
    const run = () => (recorder ? recorder.call(instance, method, args) : instance.call(method, ...args));
    return this.#resident ? this.#resident.use(instance, run) : run();
  }

  /**
   * The CPU and wall limits one call of tool plugin `id` (or of the script `spec`) runs under:
   * what the call reserves of the persona's tool budget while it is in flight.
   */
  callLimits(id: string, spec?: ScriptToolSpec): { cpuMs: number; wallMs: number } {
    if (spec) return this.script(spec).limits;
    const known = this.#mounts.get(id) ?? this.#instances.get(id);
    if (known) return known.limits;
    return this.#registry.find(id, 'tool').manifest.mcp ? this.mount(id).limits : this.#instance(id, 'tool').limits;
  }

  /** What the last call of plugin `id` (an instance or a mount) used: what a tool call is metered by. */
  lastCall(id: string): { cpuMs: number; wallMs: number } {
    return (this.#mounts.get(id) ?? this.#scripts.get(id) ?? this.#instances.get(id))?.lastCall ?? { cpuMs: 0, wallMs: 0 };
  }

  /**
   * Binds `${session}` of the persona's plugins to the folder of the executor session that
   * starts now (null when it ends): the executor's grant, and so the OS sandbox of its
   * command, holds that one session's folder, never the sessions folder with its siblings
   * (where a session could plant files for the kernel to trust). Instances built later get it too.
   */
  bindSession(dir: string | null): void {
    (this.#options.session ??= { dir: null }).dir = dir;
    for (const instance of this.#instances.values()) if (instance.namesVariable('session')) instance.rebindPaths({ session: dir });
  }

  /** The grant plugin `id` runs under (manifest ∩ the persona's allow ∩ its profile's ceiling): what its subprocesses' OS sandbox is planned from. */
  gate(id: string, kind: PersonaPluginKind): PermissionGate {
    return this.#instance(id, kind).broker.context.gate;
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
    for (const mount of this.#mounts.values()) mount.dispose();
    this.#mounts.clear();
    this.#scripts.clear();
    // what the runners keep warm (a script runner's host processes) ends with them
    void this.#runners?.close();
    this.#runners = undefined;
  }
}
