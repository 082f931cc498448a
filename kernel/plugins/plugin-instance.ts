/**
 * One running plugin: its isolate (in this process, or resident in its own sandbox host
 * process for process-tier profiles), its broker (grant = manifest ∩ caller's allowance ∩
 * profile ceiling) and its calls. A call that breaks a limit gets the named kernel error;
 * the isolate is disposed and a fresh one is built on the next call, so one bad call
 * never poisons later ones and never touches other plugins.
 */
import { bundleEntry, defaultCacheDir, readSourceMap } from '../build/bundle.ts';
import { locateError, parseSourceMap } from './error-location.ts';
import { CapabilityBroker } from '../broker/broker.ts';
import type { AuditEvent, WorldSources } from '../broker/op.ts';
import type { Tape } from '../broker/tape.ts';
import { isKernelError, kernelError } from '../errors.ts';
import { chargedFor, reportCallUsage } from '../tools/call-usage.ts';
import { toPermissionSet, type PathVariables } from '../manifest/permissions-schema.ts';
import type { Limits } from '../manifest/sandbox-profile.ts';
import type { PermissionSet } from '../permissions/descriptors.ts';
import { brokerContext, profileLayer } from '../run/grant.ts';
import { IsolateRuntime, type CompiledSource } from '../../sandboxes/isolate/isolate-runtime.ts';
import { withCodeCache } from '../../sandboxes/isolate/shim-source.ts';
import { RemoteRuntime } from '../../sandboxes/pool/remote-runtime.ts';
import type { LoadedPlugin } from './registry.ts';

export interface InstanceOptions {
  shim: CompiledSource;
  /** what the caller (a persona) allows this plugin; intersected with the manifest and ceiling */
  allow: PermissionSet;
  vars?: PathVariables;
  cwd: string;
  env?: Record<string, string>;
  cacheDir?: string;
  audit?: (event: AuditEvent) => void;
  onOutput?: (fd: 1 | 2, text: string) => void;
  /** record every effect on this tape, or answer from it (replay) */
  tape?: Tape;
  /** the clock and randomness the plugin sees (default: the host's) */
  sources?: WorldSources;
  /** run this bundle instead of building the manifest's entry (replay of a recorded bundle) */
  bundle?: { code: string; digest: string };
}

/** CPU time an isolate has spent so far (in this process, or reported by its host process). */
function cpuOf(runtime: IsolateRuntime | RemoteRuntime): number {
  if (runtime instanceof RemoteRuntime) return runtime.cpuMs;
  return runtime.disposed ? 0 : runtime.usage().cpuMs;
}

export class PluginInstance {
  readonly plugin: LoadedPlugin;
  readonly limits: Limits;
  readonly broker: CapabilityBroker;
  readonly #options: InstanceOptions;
  #source: CompiledSource | undefined;
  #runtime: IsolateRuntime | RemoteRuntime | undefined;
  #bundle: { code: string; digest: string } | undefined;
  #exportNames: readonly string[] | undefined;
  #sourceMap: ReturnType<typeof parseSourceMap>;
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
    const vars = { plugin: plugin.dir, ...options.vars };
    const layers = [
      { label: `manifest:${plugin.manifest.id}`, set: toPermissionSet(plugin.manifest.permissions, plugin.dir, vars) },
      { label: 'caller', set: options.allow },
      profileLayer(plugin.profile, plugin.dir),
    ];
    this.broker = new CapabilityBroker(
      brokerContext({ subject: plugin.manifest.id, layers, cwd: options.cwd, env: options.env ?? {}, profile: plugin.profile, limits: this.limits, audit: options.audit, tape: options.tape, sources: options.sources, cacheDir: options.cacheDir ?? defaultCacheDir() }),
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

  async #ensure(): Promise<IsolateRuntime | RemoteRuntime> {
    if (this.#runtime && !this.#runtime.disposed) return this.#runtime;
    const cacheDir = this.#options.cacheDir ?? defaultCacheDir();
    if (!this.#source) {
      const bundle = this.#options.bundle ?? (await bundleEntry(this.plugin.entry, cacheDir));
      this.#bundle = { code: bundle.code, digest: bundle.digest };
      // The map kept (and sealed) beside the bundle; without one (a recorded bundle built elsewhere) errors keep their bundle positions.
      this.#sourceMap = parseSourceMap(readSourceMap(bundle.digest, cacheDir));
      this.#source = withCodeCache(bundle.code, bundle.digest, `plugin:${this.plugin.manifest.id}`, cacheDir);
    }
    if (this.plugin.profile.tier === 'process') {
      this.builds++;
      this.#runtime = await RemoteRuntime.start({
        cacheDir,
        shim: this.#options.shim,
        source: this.#source,
        limits: this.limits,
        webAssembly: this.plugin.profile.webAssembly,
        rssCapMb: this.plugin.profile.rssCapMb ?? 512,
        ops: this.broker,
        onOutput: this.#options.onOutput ?? (() => undefined),
      });
      this.#exportNames = this.#runtime.exportNames;
      return this.#runtime;
    }
    const runtime = IsolateRuntime.create(this.#options.shim, {
      limits: this.limits,
      webAssembly: this.plugin.profile.webAssembly,
      args: [],
      syncMode: 'callback',
      ops: this.broker,
      onOutput: this.#options.onOutput ?? (() => undefined),
    });
    this.builds++;
    try {
      this.#exportNames = await runtime.load(this.#source);
    } catch (error) {
      runtime.dispose();
      throw error;
    }
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
    const cpuBefore = cpuOf(runtime);
    let ended: string | undefined;
    try {
      return runtime instanceof RemoteRuntime ? await runtime.call(name, args) : await runtime.call(name, args, true);
    } catch (error) {
      if (isKernelError(error)) ended = error.code;
      if (isKernelError(error) && (error.isLimit || error.code === 'RTC_ERR_SANDBOX_DISPOSED')) runtime.dispose();
      throw locateError(error, `plugin:${this.plugin.manifest.id}`, this.#sourceMap, this.plugin.dir);
    } finally {
      const wallMs = performance.now() - started;
      // A runtime disposed by a limit can no longer say what it used: charge its wall time, up to the CPU limit;
      // a call ended by its CPU or wall limit is charged at least that limit (call-usage.ts).
      const measured = { cpuMs: runtime.disposed ? Math.min(wallMs, this.limits.cpuMs) : Math.max(0, cpuOf(runtime) - cpuBefore), wallMs };
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
    if (!(runtime instanceof IsolateRuntime) || runtime.disposed) {
      throw kernelError('RTC_ERR_SANDBOX_DISPOSED', `plugin ${this.plugin.manifest.id}: no live in-process isolate for a synchronous call (it was lost to a limit; the next asynchronous call rebuilds it)`);
    }
    try {
      return runtime.callSync(name, args);
    } catch (error) {
      if (isKernelError(error) && (error.isLimit || error.code === 'RTC_ERR_SANDBOX_DISPOSED')) runtime.dispose();
      throw locateError(error, `plugin:${this.plugin.manifest.id}`, this.#sourceMap, this.plugin.dir);
    }
  }

  /**
   * The functions the bundle really exports, found by loading it (building the isolate when
   * there is none): what the manifest's `exports` is checked against at start.
   */
  async exportNames(): Promise<readonly string[]> {
    await this.#ensure();
    return this.#exportNames ?? [];
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
