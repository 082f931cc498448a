/**
 * A resident plugin instance in the process tier: one isolate kept loaded inside its own
 * sandbox host process, called over IPC. The kernel's guards (wall kill, RSS cap) are
 * armed while a call is in flight; if the process dies, every call in flight gets the
 * named limit error and the instance is dead until its owner rebuilds it.
 */
import { kernelError, type ErrorCode, type KernelError } from '../../kernel/errors.ts';
import type { Limits } from '../../kernel/manifest/sandbox-profile.ts';
import type { OpHandler } from '../../kernel/sandbox.ts';
import type { CompiledSource } from '../isolate/isolate-runtime.ts';
import { limitError } from '../isolate/limit-errors.ts';
import { answerOp } from './process-pool.ts';
import type { FromHost, WireError } from './protocol.ts';
import { SandboxHost, deathReason } from './sandbox-host.ts';

export interface RemoteRuntimeOptions {
  cacheDir: string;
  shim: CompiledSource;
  source: CompiledSource;
  limits: Limits;
  webAssembly: boolean;
  rssCapMb: number;
  ops: OpHandler;
  onOutput(fd: 1 | 2 | 3, text: string): void;
  graceMs?: number;
  /** `test`: a test file for the test runner (Deno.test registers) */
  mode?: 'run' | 'test';
  args?: readonly string[];
}

const INSTANCE = 1;

function toKernelError(error: WireError): KernelError {
  const code = (error.code?.startsWith('RTC_ERR_') ? error.code : 'RTC_ERR_SANDBOX_SCRIPT') as ErrorCode;
  return kernelError(code, error.message, { details: { name: error.name, ...(error.script ?? {}) } });
}

export class RemoteRuntime {
  readonly #host: SandboxHost;
  readonly #options: RemoteRuntimeOptions;
  readonly #inFlight = new Map<number, { resolve(value: unknown): void; reject(error: KernelError): void; stop(): void }>();
  #nextCall = 1;
  #disposed = false;
  exportNames: readonly string[] = [];
  /** CPU time the isolate spent in calls so far, as its host reports it with each result */
  cpuMs = 0;

  private constructor(host: SandboxHost, options: RemoteRuntimeOptions) {
    this.#host = host;
    this.#options = options;
    host.onExit((code, signal) => {
      this.#disposed = true;
      const { reason, detail } = deathReason(host, code, signal, options.rssCapMb);
      const error = limitError(reason, options.limits, detail);
      for (const call of this.#inFlight.values()) {
        call.stop();
        call.reject(error);
      }
      this.#inFlight.clear();
    });
    host.child.on('message', (m: FromHost) => this.#onMessage(m));
  }

  static async start(options: RemoteRuntimeOptions): Promise<RemoteRuntime> {
    const host = await SandboxHost.start(options.cacheDir, options.shim);
    const runtime = new RemoteRuntime(host, options);
    const loaded = new Promise<void>((resolve, reject) => {
      const stop = host.guard(options.limits.wallMs, options.graceMs ?? 1000, options.rssCapMb);
      runtime.#inFlight.set(0, { resolve: () => resolve(), reject, stop });
    });
    host.send({ t: 'load', runId: INSTANCE, source: host.wire(options.source), limits: options.limits, webAssembly: options.webAssembly, ...(options.mode ? { mode: options.mode } : {}), ...(options.args ? { args: options.args } : {}) });
    try {
      await loaded;
    } catch (error) {
      runtime.dispose();
      throw error;
    }
    return runtime;
  }

  get disposed(): boolean {
    return this.#disposed || this.#host.dead;
  }

  #settle(id: number, outcome: { value?: unknown; error?: WireError }): void {
    const call = this.#inFlight.get(id);
    if (!call) return;
    this.#inFlight.delete(id);
    call.stop();
    if (outcome.error) call.reject(toKernelError(outcome.error));
    else call.resolve(outcome.value);
  }

  #onMessage(m: FromHost): void {
    if (m.t === 'ready' || !('runId' in m) || m.runId !== INSTANCE) return;
    switch (m.t) {
      case 'op':
        answerOp(this.#host, this.#options.ops, m);
        break;
      case 'out':
        this.#options.onOutput(m.fd, m.text);
        break;
      case 'loaded':
        if (m.exports) this.exportNames = m.exports;
        this.#settle(0, m.error ? { error: m.error } : {});
        break;
      case 'result':
        this.cpuMs += m.cpuMs ?? 0;
        this.#settle(m.callId, m.error ? { error: m.error } : { value: m.json === undefined ? undefined : JSON.parse(m.json) });
        break;
      default:
        break;
    }
  }

  call(name: string, args: readonly unknown[]): Promise<unknown> {
    if (this.disposed) return Promise.reject(kernelError('RTC_ERR_SANDBOX_DISPOSED', 'the sandbox host process is gone'));
    const argsJson = JSON.stringify(args);
    if (argsJson.length > this.#options.limits.transferBytes) return Promise.reject(limitError('transfer', this.#options.limits, `arguments of ${name}`));
    const callId = this.#nextCall++;
    return new Promise((resolve, reject) => {
      const stop = this.#host.guard(this.#options.limits.wallMs, this.#options.graceMs ?? 1000, this.#options.rssCapMb);
      this.#inFlight.set(callId, { resolve, reject, stop });
      this.#host.send({ t: 'call', runId: INSTANCE, callId, name, argsJson });
    });
  }

  dispose(): void {
    this.#disposed = true;
    void this.#host.stop();
  }
}
