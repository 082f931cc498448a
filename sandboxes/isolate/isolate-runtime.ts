/**
 * One isolate, one plugin or script: creates the isolate and context, runs the shim,
 * loads a bundle, calls its exports, and enforces the limits. Used directly by the
 * in-process tier and inside each sandbox host process by the process tier.
 *
 * Every value crosses as a string produced inside the isolate (under its own time limit),
 * so a hostile getter never runs on the host's side of a copy. Ops the isolate asks for
 * go to the `OpHandler` (the broker, or a pipe to it); four ops are the runtime's own:
 * output, exit, uncaught errors and timers, because they steer the run itself.
 */
import ivm from 'isolated-vm';
import { kernelError, type KernelError } from '../../kernel/errors.ts';
import type { Limits } from '../../kernel/manifest/sandbox-profile.ts';
import type { OpHandler } from '../../kernel/sandbox.ts';
import { exitWithoutHeapTeardown } from './exit-without-teardown.ts';
import { isDisposedError, limitError, reasonOfIvmError, type LimitReason } from './limit-errors.ts';

/**
 * What still works after the script called Deno.exit (and caught it): reports of attempts
 * (kernel/broker/broker.ts: an unsupported API Deno gates behind a permission, a call the shim
 * answered itself) and the shim's own code, loaded on first use. Neither performs anything,
 * and without them an attempt made after the exit would be answered before it could be
 * reported; every other op is answered Interrupted and reported as attempted.
 */
const REPORT_OPS: ReadonlySet<string> = new Set(['attempt.unanswered', 'attempt.unsupported', 'shim.part']);


export interface CompiledSource {
  code: string;
  digest: string;
  /** V8 code cache for `code`, when one is known good */
  cachedData?: Uint8Array;
  /** called with a freshly produced code cache, so the caller can store it */
  onCachedData?: (data: Uint8Array) => void;
  filename: string;
  /** the shim only: its parts' code by name, handed to the isolate on first use (parts-loader.ts) */
  parts?: Readonly<Record<string, string>>;
}

export interface RuntimeOptions {
  limits: Limits;
  webAssembly: boolean;
  args: readonly string[];
  /** `reference` when sync ops must wait on a promise (the process tier's pipe) */
  syncMode: 'callback' | 'reference';
  ops: OpHandler;
  /** fd 3 carries `sandbox test` reporter events (JSON), never the script's own output */
  onOutput(fd: 1 | 2 | 3, text: string): void;
  /** `test`: Deno.test registers tests for the test runner (features/sandbox-run/runner/test-runner.ts) */
  mode?: 'run' | 'test';
  /** `script`: `sandbox run`, whose globals are Deno's alone (no `Runtimectl` bindings object); default `plugin` */
  surface?: 'plugin' | 'script';
}

export interface RunOutcome {
  exitCode: number;
  /** the uncaught error, as Deno reports it, when the script ended on one */
  error: { name: string; message: string; code?: string } | null;
  /** set when a limit ended the run */
  limit?: KernelError;
}

export interface Usage {
  cpuMs: number;
  wallMs: number;
  heapBytes: number;
}

interface Answer {
  ok?: unknown;
  err?: { class: string; name: string; message: string; stack: string; code?: string };
  pending?: number;
}

const okJson = (value: unknown): string => JSON.stringify({ ok: value === undefined ? null : value });
const errJson = (cls: string, message: string): string => JSON.stringify({ err: { class: cls, message } });


/** Wall-time bound of installing the shim in a fresh isolate (kernel code only). */
const SHIM_INSTALL_WALL_MS = 30_000;

/**
 * Isolates still alive when the process exits are disposed first, in the `exit` handler, while
 * the host's environment still exists. Left to isolated-vm's own teardown, an isolate with work
 * pending (a resident plugin, a shared persistence instance) has aborted the process now and
 * then under load (`IsolateEnvironment::GetCurrent(): Assertion environment != nullptr`), turning
 * a clean exit into SIGABRT. Disposing is not enough for the handles still in Node's heap:
 * exit-without-teardown.ts ends the process before the final GC can reach them.
 */
const LIVE = new Set<IsolateRuntime>();
let exitHooked = false;
function disposeAtExit(runtime: IsolateRuntime): void {
  LIVE.add(runtime);
  if (exitHooked) return;
  exitHooked = true;
  process.once('exit', () => {
    for (const live of LIVE) {
      try {
        live.dispose();
      } catch {
        // exiting: nothing more to do for it
      }
    }
  });
  exitWithoutHeapTeardown();
}
export class IsolateRuntime {
  readonly isolate: ivm.Isolate;
  readonly #context: ivm.Context;
  readonly #options: RuntimeOptions;
  #dispatch!: { call: ivm.Reference; boot: ivm.Reference; settle: ivm.Reference; ping: ivm.Reference };
  #outputBytes = 0;
  #limitHit: LimitReason | undefined;
  #exitCode: number | undefined;
  #uncaught: { name: string; message: string; stack: string; isError: boolean } | undefined;
  #pendingOps = 0;
  #activity = 0;
  /** `counted`: the timer keeps the run alive (not unref'd), so it is in #pendingOps */
  #timers = new Map<number, { stop: () => void; resolve: (cancelled: boolean) => void; counted: boolean }>();
  #wake: (() => void) | undefined;
  #exportNames: string[] = [];
  /** set by the shim, synchronously, when the module body's promise settles */
  #mainSettled = false;
  #parts: Readonly<Record<string, string>> = {};
  /** how each script was compiled: from a V8 code cache or from source */
  readonly compiles: { filename: string; fromCache: boolean }[] = [];
  /** the shim parts this isolate asked for, in order (each is loaded on first use, once) */
  readonly partsLoaded: string[] = [];

  /** Rejects when the isolate is disposed: every wait on isolate work races it. */
  readonly #disposed: Promise<never>;
  #rejectDisposed!: (error: Error) => void;

  private constructor(options: RuntimeOptions) {
    this.#options = options;
    this.#disposed = new Promise<never>((_, reject) => (this.#rejectDisposed = reject));
    this.#disposed.catch(() => undefined);
    this.isolate = new ivm.Isolate({ memoryLimit: options.limits.memoryMb });
    this.#context = this.isolate.createContextSync();
    disposeAtExit(this);
  }

  /** A new isolate with the shim installed and nothing else. */
  static create(shim: CompiledSource, options: RuntimeOptions): IsolateRuntime {
    const runtime = new IsolateRuntime(options);
    runtime.#parts = shim.parts ?? {};
    try {
      runtime.#installShim(shim);
    } catch (error) {
      runtime.dispose();
      throw error;
    }
    return runtime;
  }

  get disposed(): boolean {
    return this.isolate.isDisposed;
  }

  get exportNames(): readonly string[] {
    return this.#exportNames;
  }

  usage(): Usage {
    // Disposed (a limit, the end of a run): what it had used when it was disposed, never 0.
    if (this.isolate.isDisposed) return this.#finalUsage ?? { cpuMs: 0, wallMs: 0, heapBytes: 0 };
    const heap = this.isolate.getHeapStatisticsSync();
    return {
      cpuMs: Number(this.isolate.cpuTime) / 1e6,
      wallMs: Number(this.isolate.wallTime) / 1e6,
      heapBytes: heap.used_heap_size + heap.externally_allocated_size,
    };
  }

  /** What the isolate had used when it was disposed (a limit disposes it before anyone asks). */
  #finalUsage: Usage | undefined;

  dispose(): void {
    if (!this.isolate.isDisposed && this.#finalUsage === undefined) {
      try {
        this.#finalUsage = { cpuMs: Number(this.isolate.cpuTime) / 1e6, wallMs: Number(this.isolate.wallTime) / 1e6, heapBytes: 0 };
      } catch {
        // an isolate that cannot say any more leaves 0
      }
    }
    for (const { stop, resolve } of this.#timers.values()) {
      stop();
      resolve(true);
    }
    this.#timers.clear();
    LIVE.delete(this);
    if (!this.isolate.isDisposed) this.isolate.dispose();
    this.#rejectDisposed(new Error('Isolate is disposed'));
    this.#wake?.();
  }

  /**
   * Isolate work can outlive a dispose: isolated-vm copies an unhandled rejection's value
   * at the end of each task, outside any timeout, and a hostile getter there never ends.
   * So no caller waits on isolate work without also watching for the dispose.
   */
  #guard<T>(work: Promise<T>): Promise<T> {
    return Promise.race([work, this.#disposed]);
  }

  #compile(source: CompiledSource): ivm.Script {
    const script = this.isolate.compileScriptSync(source.code, {
      filename: source.filename,
      ...(source.cachedData ? { cachedData: new ivm.ExternalCopy(source.cachedData.buffer.slice(source.cachedData.byteOffset, source.cachedData.byteOffset + source.cachedData.byteLength) as ArrayBuffer) } : { produceCachedData: true }),
    });
    const produced = (script as unknown as { cachedData?: ivm.ExternalCopy<ArrayBuffer>; cachedDataRejected?: boolean });
    this.compiles.push({ filename: source.filename, fromCache: Boolean(source.cachedData) && produced.cachedDataRejected !== true });
    if (source.onCachedData && produced.cachedData && (!source.cachedData || produced.cachedDataRejected)) {
      source.onCachedData(new Uint8Array(produced.cachedData.copy()));
    }
    return script;
  }

  #installShim(shim: CompiledSource): void {
    const global = this.#context.global;
    global.setSync('globalThis', global.derefInto());
    if (!this.#options.webAssembly) this.#context.evalSync('delete globalThis.WebAssembly');
    // The shim is the kernel's own code: its install is bounded in wall time by a kernel bound, not
    // by the plugin's CPU limit (isolated-vm's timeout is wall time: on a loaded host a 500 ms
    // plugin failed before any of its code ran). The plugin's own code runs under its limits.
    const shimWallMs = Math.max(this.#options.limits.cpuMs, SHIM_INSTALL_WALL_MS);
    const install = this.#compile(shim).runSync(this.#context, { reference: true, timeout: shimWallMs }) as ivm.Reference;
    const sync = this.#options.syncMode === 'reference'
      ? new ivm.Reference((op: string, json: string) => this.#onAsyncOp(op, json, true))
      : new ivm.Callback((op: string, json: string) => this.#onSyncOp(op, json));
    // A host function that returns a promise must be a Reference the isolate applies with `result.promise`.
    const asyncFn = new ivm.Reference((op: string, json: string) => this.#onAsyncOp(op, json, false));
    const config = JSON.stringify({
      args: this.#options.args,
      transferBytes: this.#options.limits.transferBytes,
      syncMode: this.#options.syncMode,
      mode: this.#options.mode ?? 'run',
      surface: this.#options.surface ?? 'plugin',
      build: { os: 'linux', arch: process.arch === 'x64' ? 'x86_64' : process.arch === 'arm64' ? 'aarch64' : process.arch },
    });
    const dispatcher = install.applySync(undefined, [sync, asyncFn, config], { result: { reference: true }, timeout: shimWallMs }) as ivm.Reference;
    this.#dispatch = {
      call: dispatcher.getSync('call', { reference: true }) as ivm.Reference,
      settle: dispatcher.getSync('settle', { reference: true }) as ivm.Reference,
      boot: dispatcher.getSync('boot', { reference: true }) as ivm.Reference,
      ping: dispatcher.getSync('ping', { reference: true }) as ivm.Reference,
    };
    install.release();
  }

  // ---- ops from the isolate -------------------------------------------------------------

  #checkTransfer(json: string, what: string): void {
    if (json.length > this.#options.limits.transferBytes) this.#hitLimit('transfer', what);
  }

  #hitLimit(reason: LimitReason, detail = ''): never {
    this.#limitHit ??= reason;
    this.#limitDetail ||= detail;
    this.#wake?.();
    // Ends the isolate's current stretch of work; the caller reports the limit.
    setImmediate(() => this.dispose());
    throw new Error(`sandbox limit: ${reason}`);
  }

  #limitDetail = '';

  #local(op: string, json: string): string | undefined {
    switch (op) {
      case 'io.write': {
        const { fd, text } = JSON.parse(json) as { fd: 1 | 2 | 3; text: string };
        if (this.#exitCode !== undefined || this.#limitHit) return okJson(null);
        if (fd === 3) {
          if (this.#options.mode === 'test') this.#options.onOutput(3, text);
          return okJson(null);
        }
        this.#outputBytes += Buffer.byteLength(text);
        if (this.#outputBytes > this.#options.limits.outputBytes) this.#hitLimit('output');
        this.#options.onOutput(fd === 2 ? 2 : 1, text);
        return okJson(null);
      }
      case 'process.exit': {
        const { code } = JSON.parse(json) as { code: number };
        this.#exitCode ??= code & 0xff;
        this.#wake?.();
        return okJson(null);
      }
      case 'process.uncaught': {
        this.#uncaught ??= JSON.parse(json) as { name: string; message: string; stack: string; isError: boolean };
        // The test runner hears of it at once: it fails the file, as deno test does.
        if (this.#options.mode === 'test') this.#options.onOutput(3, JSON.stringify({ type: 'uncaught', error: this.#uncaught }));
        this.#wake?.();
        return okJson(null);
      }
      case 'main.settled':
        this.#mainSettled = true;
        return okJson(null);
      case 'process.memoryUsage': {
        // The isolate's own heap: what Deno.memoryUsage() means for this script.
        const heap = this.isolate.getHeapStatisticsSync();
        return okJson({ rss: heap.total_physical_size, heapTotal: heap.total_heap_size, heapUsed: heap.used_heap_size, external: heap.externally_allocated_size });
      }
      case 'shim.part': {
        // Code of the shim itself, not an effect: answered here, never recorded or metered.
        const { name } = JSON.parse(json) as { name: string };
        const code = Object.prototype.hasOwnProperty.call(this.#parts, name) ? this.#parts[name] : undefined;
        if (code !== undefined) this.partsLoaded.push(name);
        return code === undefined ? errJson('Error', `no shim part "${name}"`) : okJson(code);
      }
      case 'sandbox.limit': {
        const { detail, op: attempted, attempt } = JSON.parse(json) as { detail: string; op?: unknown; attempt?: unknown };
        if (typeof attempted === 'string') this.#reportUnanswered(attempted, JSON.stringify(attempt ?? {}), 'limit');
        this.#hitLimit('transfer', detail);
      }
      // falls through: #hitLimit never returns
      case 'timer.cancel': {
        const { id } = JSON.parse(json) as { id: number };
        const entry = this.#timers.get(id);
        if (entry) {
          entry.stop();
          this.#timers.delete(id);
          entry.resolve(true);
        }
        return okJson(null);
      }
      case 'timer.ref': {
        // An unref'd timer no longer keeps the run alive (Deno.unrefTimer, timeout.unref()).
        const { id, ref } = JSON.parse(json) as { id: number; ref: boolean };
        const entry = this.#timers.get(id);
        if (entry && entry.counted !== ref) {
          entry.counted = ref;
          this.#pendingOps += ref ? 1 : -1;
          this.#activity++;
          if (this.#pendingOps === 0) this.#wake?.();
        }
        return okJson(null);
      }
      default:
        return undefined;
    }
  }

  /**
   * A call answered here, never reaching the broker's ops (the script had exited; its
   * arguments passed the transfer cap): what it attempted is reported to the broker all the
   * same, which audits it (kernel/broker/attempts.ts). Fire and forget: the report needs no
   * answer, and in the process tier it travels the same pipe as the ops, ahead of the run's end.
   */
  #reportUnanswered(op: string, argsJson: string, why: 'after-exit' | 'limit'): void {
    const report = `{"op":${JSON.stringify(op)},"why":"${why}","args":${argsJson.length > 0 ? argsJson : '{}'}}`;
    try {
      void Promise.resolve(this.#options.ops.any('attempt.unanswered', report)).catch(() => undefined);
    } catch {
      // a handler that cannot take it has no audit to keep
    }
  }

  /** The transfer cap, seen by the host (the shim checks it first): the call's attempt is reported before the run ends. */
  #checkCall(json: string, op: string): void {
    if (json.length > this.#options.limits.transferBytes) {
      this.#reportUnanswered(op, '{}', 'limit');
      this.#hitLimit('transfer', op);
    }
  }

  #onSyncOp(op: string, json: string): string {
    this.#checkCall(json, op);
    if (this.#exitCode !== undefined && !REPORT_OPS.has(op)) {
      this.#reportUnanswered(op, json, 'after-exit');
      return errJson('Interrupted', 'the script has exited');
    }
    const local = this.#local(op, json);
    if (local !== undefined) return local;
    const answer = this.#options.ops.sync(op, json);
    this.#checkTransfer(answer, `${op} result`);
    return answer;
  }

  async #onAsyncOp(op: string, json: string, syncCaller: boolean): Promise<string> {
    if (syncCaller) {
      this.#checkCall(json, op);
      const local = this.#local(op, json);
      if (local !== undefined) return local;
      // As in the in-process tier: nothing is performed after Deno.exit, whatever the script caught.
      if (this.#exitCode !== undefined && !REPORT_OPS.has(op)) {
        this.#reportUnanswered(op, json, 'after-exit');
        return errJson('Interrupted', 'the script has exited');
      }
      const answer = await this.#options.ops.async(op, json);
      this.#checkTransfer(answer, `${op} result`);
      return answer;
    }
    if (op === 'timer.sleep') return this.#sleep(json);
    this.#pendingOps++;
    this.#activity++;
    try {
      this.#checkCall(json, op);
      if (this.#exitCode !== undefined && !REPORT_OPS.has(op)) {
        this.#reportUnanswered(op, json, 'after-exit');
        return errJson('Interrupted', 'the script has exited');
      }
      const answer = await this.#options.ops.async(op, json);
      this.#checkTransfer(answer, `${op} result`);
      return answer;
    } finally {
      this.#pendingOps--;
      this.#activity++;
      if (this.#pendingOps === 0) this.#wake?.();
    }
  }

  /** A timer: counted in #pendingOps unless unref'd; delays past 2^31-1 ms are chained. */
  async #sleep(json: string): Promise<string> {
    const { id, ms, unref, immediate } = JSON.parse(json) as { id: number; ms: number; unref?: boolean; immediate?: boolean };
    if (this.#exitCode !== undefined) return errJson('Interrupted', 'the script has exited');
    const entry = { stop: () => undefined as void, resolve: (_cancelled: boolean) => undefined as void, counted: !unref };
    // An unref'd timer is no activity: armed again and again (an unref'd interval), it must not
    // keep an otherwise idle run from ending, as it does not keep Deno's event loop alive.
    if (entry.counted) {
      this.#pendingOps++;
      this.#activity++;
    }
    try {
      const cancelled = await new Promise<boolean>((resolve) => {
        entry.resolve = resolve;
        const fire = (): void => {
          this.#timers.delete(id);
          resolve(false);
        };
        if (immediate) {
          const handle = setImmediate(fire);
          entry.stop = () => clearImmediate(handle);
        } else {
          let remaining = Math.max(0, ms);
          let handle: NodeJS.Timeout;
          const step = (): void => {
            const chunk = Math.min(remaining, 2 ** 31 - 1);
            remaining -= chunk;
            handle = setTimeout(remaining > 0 ? step : fire, chunk);
          };
          step();
          entry.stop = () => clearTimeout(handle);
        }
        this.#timers.set(id, entry);
      });
      return okJson({ cancelled });
    } finally {
      if (entry.counted) {
        this.#pendingOps--;
        this.#activity++;
        if (this.#pendingOps === 0) this.#wake?.();
      }
    }
  }

  // ---- loading, running and calling ----------------------------------------------------

  #decode(answer: unknown): Answer {
    const text = answer as string;
    if (text.length > this.#options.limits.transferBytes) {
      this.#limitHit ??= 'transfer';
      this.#limitDetail ||= `a result of ${text.length} bytes`;
      throw limitError('transfer', this.#options.limits, this.#limitDetail);
    }
    return JSON.parse(text) as Answer;
  }

  /**
   * isolated-vm's `timeout` counts elapsed time, not CPU: on a busy machine it would stop
   * code that used little CPU. Asynchronous stretches are measured by the kernel's own
   * watchdogs (the isolate's CPU time, and the wall clock), so there the isolated-vm
   * timeout is only a backstop past the wall limit. Synchronous stretches (the trusted
   * tier's applySync, compiling) block the thread the watchdogs run on, so there the CPU
   * limit is enforced as elapsed time by isolated-vm: on a loaded machine it errs strict.
   */
  get #backstopMs(): number {
    return this.#options.limits.wallMs + 1000;
  }

  /** Marks a limit from a watchdog: the isolate is disposed, which ends whatever runs in it. */
  #markLimit(reason: LimitReason): void {
    if (this.isolate.isDisposed) return;
    this.#limitHit ??= reason;
    this.dispose();
  }

  /** The kernel error for how a stretch of isolate work ended abnormally. */
  #failure(error: unknown): KernelError {
    if (this.#limitHit) return limitError(this.#limitHit, this.#options.limits, this.#limitDetail);
    const reason = reasonOfIvmError(error);
    if (reason) {
      this.#limitHit = reason;
      return limitError(reason, this.#options.limits);
    }
    if (isDisposedError(error)) return kernelError('RTC_ERR_SANDBOX_DISPOSED', 'the isolate was disposed during the call');
    return kernelError('RTC_ERR_SANDBOX_SCRIPT', error instanceof Error ? error.message : String(error));
  }

  /** Starts CPU and wall watchdogs for an asynchronous stretch; returns their stop function. */
  #watch(): () => void {
    const limits = this.#options.limits;
    const cpuStart = this.isolate.cpuTime;
    const wall = setTimeout(() => this.#markLimit('wall'), limits.wallMs);
    const cpu = setInterval(() => {
      if (this.isolate.isDisposed) return;
      if (Number(this.isolate.cpuTime - cpuStart) / 1e6 > limits.cpuMs) this.#markLimit('cpu');
    }, Math.min(20, Math.max(2, Math.floor(limits.cpuMs / 10))));
    return () => {
      clearTimeout(wall);
      clearInterval(cpu);
    };
  }

  #compileMain(bundle: CompiledSource): ivm.Reference {
    return this.#compile(bundle).runSync(this.#context, { reference: true, timeout: this.#options.limits.cpuMs }) as ivm.Reference;
  }

  async #settle(first: Answer): Promise<Answer> {
    if (first.pending === undefined) return first;
    const timeout = this.#backstopMs;
    const settled = await this.#guard(this.#dispatch.settle.apply(undefined, [first.pending], { result: { promise: true }, timeout }));
    return this.#decode(settled);
  }

  #answerValue(answer: Answer): unknown {
    if (answer.err) {
      const { name, message, code } = answer.err;
      if (answer.err.class === 'NoExport') throw kernelError('RTC_ERR_SANDBOX_NO_EXPORT', message);
      throw kernelError('RTC_ERR_SANDBOX_SCRIPT', `${name}: ${message}`, { details: { name, message, stack: answer.err.stack, ...(code !== undefined ? { code } : {}) } });
    }
    return answer.ok;
  }

  /** Compiles and runs a plugin bundle's module body; its exports become callable. */
  async load(bundle: CompiledSource): Promise<readonly string[]> {
    const stop = this.#watch();
    try {
      const main = this.#compileMain(bundle);
      const first = this.#decode(await this.#guard(this.#dispatch.boot.apply(undefined, [main.derefInto()], { timeout: this.#backstopMs })));
      this.#exportNames = this.#answerValue(await this.#settle(first)) as string[];
      return this.#exportNames;
    } catch (error) {
      throw this.#rethrow(error);
    } finally {
      stop();
    }
  }

  #rethrow(error: unknown): unknown {
    if (error instanceof Error && (error as KernelError).code === 'RTC_ERR_SANDBOX_TRANSFER') return error;
    if (error instanceof Error && (error as KernelError).code?.startsWith('RTC_ERR_SANDBOX_SCRIPT') && !this.#limitHit) return error;
    if (error instanceof Error && (error as KernelError).code === 'RTC_ERR_SANDBOX_NO_EXPORT') return error;
    return this.#failure(error);
  }

  /**
   * Calls an exported function with JSON-able arguments. `sync` runs the first stretch with
   * applySync (the trusted tier's microsecond path); otherwise everything is asynchronous so
   * the host thread stays free for the watchdogs.
   */
  async call(name: string, args: readonly unknown[], sync = false): Promise<unknown> {
    if (this.isolate.isDisposed) throw kernelError('RTC_ERR_SANDBOX_DISPOSED', 'the isolate is disposed');
    const argsJson = JSON.stringify(args);
    if (argsJson.length > this.#options.limits.transferBytes) throw limitError('transfer', this.#options.limits, `arguments of ${name}`);
    const timeout = this.#options.limits.cpuMs;
    if (sync) {
      let first: Answer;
      try {
        first = this.#decode(this.#dispatch.call.applySync(undefined, [name, argsJson], { timeout }));
      } catch (error) {
        throw this.#rethrow(error);
      }
      if (first.pending === undefined) return this.#answerValue(first);
      return this.#finishAsync(first);
    }
    const stop = this.#watch();
    try {
      const first = this.#decode(await this.#guard(this.#dispatch.call.apply(undefined, [name, argsJson], { timeout: this.#backstopMs })));
      return this.#answerValue(await this.#settle(first));
    } catch (error) {
      throw this.#rethrow(error);
    } finally {
      stop();
    }
  }

  /** The synchronous-only fast path: throws when the export returns a promise. */
  callSync(name: string, args: readonly unknown[]): unknown {
    if (this.isolate.isDisposed) throw kernelError('RTC_ERR_SANDBOX_DISPOSED', 'the isolate is disposed');
    const argsJson = JSON.stringify(args);
    if (argsJson.length > this.#options.limits.transferBytes) throw limitError('transfer', this.#options.limits, `arguments of ${name}`);
    let first: Answer;
    try {
      first = this.#decode(this.#dispatch.call.applySync(undefined, [name, argsJson], { timeout: this.#options.limits.cpuMs }));
    } catch (error) {
      throw this.#rethrow(error);
    }
    if (first.pending !== undefined) throw kernelError('RTC_ERR_SANDBOX_SCRIPT', `${name} returned a promise; call it with call()`);
    return this.#answerValue(first);
  }

  async #finishAsync(first: Answer): Promise<unknown> {
    const stop = this.#watch();
    try {
      return this.#answerValue(await this.#settle(first));
    } catch (error) {
      throw this.#rethrow(error);
    } finally {
      stop();
    }
  }

  /** Resolves when something that may end the run happens (an op finished, exit, limit). */
  #nextWake(): Promise<void> {
    return new Promise((resolve) => {
      this.#wake = () => {
        this.#wake = undefined;
        resolve();
      };
    });
  }

  /** True when nothing is pending on the host and a round trip through the isolate's task queue started nothing new. */
  async #confirmIdle(): Promise<boolean> {
    for (let i = 0; i < 2; i++) {
      if (this.#pendingOps !== 0 || this.isolate.isDisposed) return false;
      const before = this.#activity;
      await this.#guard(this.#dispatch.ping.apply(undefined, [], { timeout: this.#backstopMs }));
      if (this.#pendingOps !== 0 || this.#activity !== before) return false;
    }
    return true;
  }

  /**
   * Runs a script the way `deno run` does: evaluates the module, then keeps going while
   * timers or ops are pending; ends on `Deno.exit`, an uncaught error, a limit, or an empty
   * event loop.
   */
  async runMain(bundle: CompiledSource): Promise<RunOutcome> {
    const stop = this.#watch();
    let mainDone = false;
    let mainError: Answer['err'] | undefined;
    try {
      const main = this.#compileMain(bundle);
      const first = this.#decode(await this.#guard(this.#dispatch.boot.apply(undefined, [main.derefInto()], { timeout: this.#backstopMs })));
      const settled = this.#settle(first).then(
        (answer) => {
          mainDone = true;
          mainError = answer.err;
          this.#wake?.();
        },
        (error: unknown) => {
          mainDone = true;
          if (!this.#limitHit && !this.isolate.isDisposed) mainError = { class: 'Error', name: 'Error', message: String(error), stack: '' };
          this.#wake?.();
        },
      );
      void settled;
      for (;;) {
        const woke = this.#nextWake();
        if (this.#limitHit || this.isolate.isDisposed) break;
        if (this.#exitCode !== undefined || this.#uncaught || mainError) break;
        if (this.#pendingOps === 0) {
          let idle = false;
          try {
            idle = await this.#confirmIdle();
          } catch (error) {
            if (!this.#limitHit) throw error;
          }
          if (this.#exitCode !== undefined || this.#uncaught || mainError || this.#limitHit) break;
          // The loop is empty: `process.on("beforeExit")` may start more work, as in Node and Deno.
          if (idle && mainDone && !(await this.#lifecycle('beforeExit'))) break;
          if (this.#exitCode !== undefined || this.#uncaught || this.#limitHit) break;
          if (idle && !this.#mainSettled) {
            mainError = { class: 'Error', name: 'Error', message: 'Top-level await promise never resolved', stack: '' };
            break;
          }
          // The body has settled; its answer is on its way to the host.
        }
        await woke;
      }
    } catch (error) {
      // After Deno.exit, whatever the unwinding threw is not the script's outcome.
      if (this.#exitCode !== undefined && !this.#limitHit) return { exitCode: this.#exitCode, error: null };
      if (!this.#limitHit) {
        const failure = this.#failure(error);
        if (failure.isLimit) return { exitCode: 1, error: { name: failure.name, message: failure.message, code: failure.code }, limit: failure };
        return { exitCode: 1, error: { name: 'Error', message: failure.message, code: failure.code } };
      }
    } finally {
      stop();
      this.#wake = undefined;
    }
    if (this.#limitHit) {
      const limit = limitError(this.#limitHit, this.#options.limits, this.#limitDetail);
      return { exitCode: 1, error: { name: limit.name, message: limit.message, code: limit.code }, limit };
    }
    if (this.#exitCode !== undefined) return { exitCode: this.#exitCode, error: null };
    // A natural end: `process.on("exit")` runs, and the code is the one the script set (process.exitCode).
    let endCode = 0;
    if (!this.#uncaught && !mainError) {
      try {
        endCode = await this.#endCode();
      } catch (error) {
        if (this.#limitHit) {
          const limit = limitError(this.#limitHit, this.#options.limits, this.#limitDetail);
          return { exitCode: 1, error: { name: limit.name, message: limit.message, code: limit.code }, limit };
        }
        if (!this.#uncaught) mainError = { class: 'Error', name: 'Error', message: error instanceof Error ? error.message : String(error), stack: '' };
      }
      if (this.#exitCode !== undefined) return { exitCode: this.#exitCode, error: null };
    }
    const thrown = this.#uncaught ? { name: this.#uncaught.name, message: this.#uncaught.message, stack: this.#uncaught.stack, isError: this.#uncaught.isError } : mainError ? { name: mainError.name, message: mainError.message, stack: mainError.stack, isError: mainError.class !== 'NonError' } : undefined;
    if (thrown) {
      const shown = thrown.isError ? thrown.stack || `${thrown.name}: ${thrown.message}` : thrown.message;
      // The report counts against the output cap like anything the script printed.
      const room = Math.max(0, this.#options.limits.outputBytes - this.#outputBytes - 200);
      const report = shown.length > room ? `${shown.slice(0, room)}… [cut at the output cap of ${this.#options.limits.outputBytes} bytes]` : shown;
      this.#options.onOutput(2, `error: Uncaught (in promise) ${report}\n`);
      const message = thrown.message.length > room ? `${thrown.message.slice(0, room)}…` : thrown.message;
      return { exitCode: 1, error: { name: thrown.name, message } };
    }
    return { exitCode: endCode, error: null };
  }

  /**
   * `beforeExit`: the script's hooks ran; true when they started work that keeps the run going.
   * An error a hook throws ends the run as an uncaught error.
   */
  async #lifecycle(phase: 'beforeExit'): Promise<boolean> {
    const stop = this.#watch();
    try {
      const before = this.#activity;
      const answer = this.#decode(await this.#guard(this.#dispatch.call.apply(undefined, ['\u0000rtc.lifecycle', JSON.stringify([phase])], { timeout: this.#backstopMs })));
      if (answer.err) {
        this.#uncaught ??= { name: answer.err.name, message: answer.err.message, stack: answer.err.stack, isError: answer.err.class !== 'NonError' };
        return false;
      }
      return this.#pendingOps !== 0 || this.#activity !== before;
    } finally {
      stop();
    }
  }

  /** `exit`: the script's hooks ran; the exit code of a run that ended by itself. */
  async #endCode(): Promise<number> {
    const stop = this.#watch();
    try {
      const answer = this.#decode(await this.#guard(this.#dispatch.call.apply(undefined, ['\u0000rtc.lifecycle', JSON.stringify(['exit'])], { timeout: this.#backstopMs })));
      if (answer.err) {
        this.#uncaught ??= { name: answer.err.name, message: answer.err.message, stack: answer.err.stack, isError: answer.err.class !== 'NonError' };
        return 1;
      }
      return typeof answer.ok === 'number' ? answer.ok : 0;
    } finally {
      stop();
    }
  }
}
