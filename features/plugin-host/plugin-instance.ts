/**
 * One running plugin: its isolate (in this process, or resident in its own sandbox host
 * process for process-tier profiles), its broker (grant = manifest ∩ caller's allowance ∩
 * profile ceiling) and its calls. A call that breaks a limit gets the named kernel error;
 * the isolate is disposed and a fresh one is built on the next call, so one bad call
 * never poisons later ones and never touches other plugins.
 */
import { CapabilityBroker } from '../../kernel/broker/broker.ts';
import { opTable, type OpTable } from '../../kernel/broker/extension.ts';
import { PERSONA_BINDING_OPS } from './binding-ops.ts';
import type { AuditEvent, WorldSources } from '../../kernel/broker/op.ts';
import type { Tape } from '../../kernel/broker/tape.ts';
import { isKernelError, kernelError } from '../../kernel/errors.ts';
import { chargedFor, reportCallUsage } from './call-usage.ts';
import { toPermissionSet, type PathVariables } from '../../kernel/manifest/permissions-schema.ts';
import type { Limits } from '../../kernel/manifest/sandbox-profile.ts';
import type { PermissionSet } from '../../kernel/permissions/descriptors.ts';
import { brokerContext, grantLayers } from '../../kernel/broker/context.ts';
import type { Sandbox, SandboxKit } from '../../kernel/sandbox.ts';
import type { LoadedPlugin } from '../../kernel/plugins/registry.ts';

export interface InstanceOptions {
  /** how the plugin's sandbox is made (the composition's: sandboxes/index.ts defaultSandboxKit) */
  kit: SandboxKit;
  /** what the caller (a persona) allows this plugin; intersected with the manifest and ceiling */
  allow: PermissionSet;
  vars?: PathVariables;
  cwd: string;
  env?: Record<string, string>;
  audit?: (event: AuditEvent) => void;
  onOutput?: (fd: 1 | 2, text: string) => void;
  /** record every effect on this tape, or answer from it (replay) */
  tape?: Tape;
  /** the clock and randomness the plugin sees (default: the host's) */
  sources?: WorldSources;
  /** run this bundle instead of building the manifest's entry (replay of a recorded bundle) */
  bundle?: { code: string; digest: string };
}

/**
 * The op table of a kit's plugins, made once per kit: the extensions the composition hands in
 * with the kit (the sandbox's Deno ops, and whatever its plugins are served: a gate's
 * bindings, the storage bindings) and the persona's bindings, which the plugin instance
 * composes itself (binding-ops.ts says why). The kernel names no implementation extension.
 */
const tables = new WeakMap<SandboxKit, OpTable>();

function opsOf(kit: SandboxKit): OpTable {
  let table = tables.get(kit);
  if (!table) tables.set(kit, (table = opTable([PERSONA_BINDING_OPS, ...kit.extensions])));
  return table;
}

export class PluginInstance {
  readonly plugin: LoadedPlugin;
  readonly limits: Limits;
  readonly broker: CapabilityBroker;
  readonly #options: InstanceOptions;
  #runtime: Sandbox | undefined;
  #bundle: { code: string; digest: string } | undefined;
  /** isolates built so far (a rebuild after a limit adds one) */
  builds = 0;
  /** CPU and wall time of the last call (what a tool call is metered by) */
  lastCall: { cpuMs: number; wallMs: number } = { cpuMs: 0, wallMs: 0 };
  /** calls in flight on this instance */
  #calls = 0;

  constructor(plugin: LoadedPlugin, options: InstanceOptions) {
    this.plugin = plugin;
    this.#options = options;
    this.limits = { ...plugin.profile.limits, ...plugin.manifest.limits };
    const layers = grantLayers({ subject: plugin.manifest.id, permissions: plugin.manifest.permissions, dir: plugin.dir, ...(options.vars ? { vars: options.vars } : {}), allow: options.allow, profile: plugin.profile });
    this.broker = new CapabilityBroker(
      brokerContext({ subject: plugin.manifest.id, layers, cwd: options.cwd, env: options.env ?? {}, profile: plugin.profile, limits: this.limits, audit: options.audit, tape: options.tape, sources: options.sources, kernelFiles: options.kit.loader.protectedFiles() }),
      opsOf(options.kit),
    );
  }

  /** Whether the manifest's path grants name one of `names` (`${session}`). */
  namesVariable(name: string): boolean {
    const p = this.plugin.manifest.permissions;
    const side = (v: true | string[] | undefined) => Array.isArray(v) && v.some((e) => e.includes(`\${${name}}`));
    return side(p?.read) || side(p?.write) || side(p?.deny?.read) || side(p?.deny?.write);
  }

  /**
   * Re-expands the manifest's read and write grants with `vars` changed: an executor's
   * `${session}` is the folder of the session running now, so its subprocesses (planned from
   * this grant) see that folder and no other session's. The isolate is not rebuilt.
   */
  rebindPaths(vars: PathVariables): void {
    const set = toPermissionSet(this.plugin.manifest.permissions, this.plugin.dir, { plugin: this.plugin.dir, ...this.#options.vars, ...vars });
    this.broker.context.gate.replaceRules(`manifest:${this.plugin.manifest.id}`, { read: set.read, write: set.write });
  }

  async #ensure(): Promise<Sandbox> {
    if (this.#runtime && !this.#runtime.disposed) return this.#runtime;
    const profile = this.plugin.profile;
    // The first build bundles the entry (or takes the recorded bundle), known even when its module fails to load; a rebuild runs the same code again.
    if (!this.#bundle) {
      const built = this.#options.bundle ?? (await this.#options.kit.loader.bundle(this.plugin.entry));
      this.#bundle = { code: built.code, digest: built.digest };
    }
    // A build that fails to load the module still counts: the call that asked for it started fresh.
    this.builds++;
    const runtime = await this.#options.kit.create({
      label: `plugin:${this.plugin.manifest.id}`,
      code: { bundle: this.#bundle },
      tier: profile.tier,
      limits: this.limits,
      webAssembly: profile.webAssembly,
      ...(profile.rssCapMb !== undefined ? { rssCapMb: profile.rssCapMb } : {}),
      ops: this.broker,
      ...(this.#options.onOutput ? { onOutput: this.#options.onOutput } : {}),
      sourceRoot: this.plugin.dir,
    });
    this.#runtime = runtime;
    return runtime;
  }

  /** Calls an exported function the manifest lists; arguments and result are JSON values. */
  async call(name: string, ...args: unknown[]): Promise<unknown> {
    if (!this.plugin.manifest.exports.includes(name)) {
      throw kernelError('RTC_ERR_SANDBOX_NO_EXPORT', `plugin ${this.plugin.manifest.id} does not list "${name}" in its exports (${this.plugin.manifest.exports.join(', ')})`);
    }
    const runtime = await this.#ensure();
    this.#calls++;
    const started = performance.now();
    const cpuBefore = runtime.usage().cpuMs;
    let ended: string | undefined;
    try {
      return await runtime.call(name, args);
    } catch (error) {
      if (isKernelError(error)) ended = error.code;
      if (isKernelError(error) && (error.isLimit || error.code === 'RTC_ERR_SANDBOX_DISPOSED')) runtime.dispose();
      throw error;
    } finally {
      const wallMs = performance.now() - started;
      // A runtime disposed by a limit can no longer say what it used: charge its wall time, up to the CPU limit;
      // a call ended by its CPU or wall limit is charged at least that limit (call-usage.ts).
      const measured = { cpuMs: runtime.disposed ? Math.min(wallMs, this.limits.cpuMs) : Math.max(0, runtime.usage().cpuMs - cpuBefore), wallMs };
      this.lastCall = chargedFor(measured, ended, this.limits);
      reportCallUsage(this.lastCall);
      // A call is a run: what it left in flight (a fetch, a subprocess) ends with the last call out.
      if (--this.#calls === 0) this.broker.endScope();
    }
  }

  /** Builds the isolate (bundling the entry if need be) so that callSync can run. */
  async ready(): Promise<void> {
    await this.#ensure();
  }

  /**
   * Calls an export synchronously, end to end (in-process tier only, after ready()): the
   * export must not return a promise, and its storage ops run as synchronous ops. An isolate
   * lost to a limit is rebuilt by the next ready() or call().
   */
  callSync(name: string, ...args: unknown[]): unknown {
    if (!this.plugin.manifest.exports.includes(name)) {
      throw kernelError('RTC_ERR_SANDBOX_NO_EXPORT', `plugin ${this.plugin.manifest.id} does not list "${name}" in its exports (${this.plugin.manifest.exports.join(', ')})`);
    }
    const runtime = this.#runtime;
    if (!runtime?.callSync || runtime.disposed) {
      throw kernelError('RTC_ERR_SANDBOX_DISPOSED', `plugin ${this.plugin.manifest.id}: no live in-process isolate for a synchronous call (it was lost to a limit; the next asynchronous call rebuilds it)`);
    }
    try {
      return runtime.callSync(name, args);
    } catch (error) {
      if (isKernelError(error) && (error.isLimit || error.code === 'RTC_ERR_SANDBOX_DISPOSED')) runtime.dispose();
      throw error;
    }
  }

  /**
   * The functions the bundle really exports, found by loading it (building the isolate when
   * there is none): what the manifest's `exports` is checked against at start.
   */
  async exportNames(): Promise<readonly string[]> {
    return (await this.#ensure()).exportNames;
  }

  /** What the trace calls this instance: the plugin's id. */
  get traceId(): string {
    return this.plugin.manifest.id;
  }

  /** The bundle the instance runs (sha256 of its code), known after the first call. */
  get bundle(): { code: string; digest: string } | undefined {
    return this.#bundle;
  }

  /** True while the instance holds a live isolate (or host process). */
  get resident(): boolean {
    return this.#runtime !== undefined && !this.#runtime.disposed;
  }

  dispose(): void {
    this.broker.close();
    this.#runtime?.dispose();
    this.broker.endScope();
  }
}
