/**
 * The process tier: a warm pool of sandbox host processes, each running one isolate at a
 * time. The kernel keeps three guards outside the child, because a hostile script can
 * take a whole V8 process down or hang it where isolated-vm's own timeout does not reach:
 *  - a wall-clock watchdog: no answer by the wall limit plus a grace period, and the
 *    process is killed;
 *  - an RSS cap, read from /proc while a run is active: above it, the process is killed
 *    (WebAssembly memory and big strings are not counted by the isolate's heap limit);
 *  - respawn: a dead process is replaced and the run that killed it gets a named error.
 * Ops the child forwards are answered by the kernel's broker, so the child has no authority.
 */
import type { Limits } from '../../kernel/manifest/sandbox-profile.ts';
import type { OpHandler } from '../../kernel/sandbox.ts';
import type { CompiledSource, RunOutcome, Usage } from '../isolate/isolate-runtime.ts';
import { limitError, type LimitReason } from '../isolate/limit-errors.ts';
import type { FromHost } from './protocol.ts';
import { SandboxHost, deathReason } from './sandbox-host.ts';

export interface PoolRunRequest {
  source: CompiledSource;
  limits: Limits;
  webAssembly: boolean;
  args: readonly string[];
  rssCapMb: number;
  ops: OpHandler;
  onOutput(fd: 1 | 2, text: string): void;
}

export interface PoolOptions {
  size: number;
  cacheDir: string;
  shim: CompiledSource;
  /** extra time past the wall limit before the kernel kills an unanswering process */
  graceMs?: number;
}

interface ActiveRun {
  runId: number;
  request: PoolRunRequest;
  resolve(result: { outcome: RunOutcome; usage: Usage }): void;
  started: number;
}

export class ProcessPool {
  readonly #options: PoolOptions;
  readonly #idle: SandboxHost[] = [];
  readonly #waiters: ((host: SandboxHost) => void)[] = [];
  readonly #all = new Set<SandboxHost>();
  readonly #active = new Map<SandboxHost, ActiveRun>();
  #nextRun = 1;
  #closed = false;
  readonly #starting = new Set<Promise<SandboxHost>>();
  /** sandbox host processes started so far, including respawns (for tests and status) */
  spawned = 0;

  constructor(options: PoolOptions) {
    this.#options = options;
  }

  /**
   * Starts a host process; close() waits for every start in flight. Without that, a respawn
   * begun just before close() (a run that ended on a limit retires its process) added its
   * process after close() had stopped the others, and that process kept the kernel alive.
   */
  #spawn(): Promise<SandboxHost> {
    const starting = this.#startHost();
    this.#starting.add(starting);
    const settled = () => this.#starting.delete(starting);
    starting.then(settled, settled);
    return starting;
  }

  async #startHost(): Promise<SandboxHost> {
    const host = await SandboxHost.start(this.#options.cacheDir, this.#options.shim);
    if (this.#closed) {
      await host.stop();
      throw new Error('the process pool is closed');
    }
    this.spawned++;
    this.#all.add(host);
    host.onExit((code, signal) => {
      this.#all.delete(host);
      const i = this.#idle.indexOf(host);
      if (i !== -1) this.#idle.splice(i, 1);
      const run = this.#active.get(host);
      this.#active.delete(host);
      if (run) {
        const { reason, detail } = deathReason(host, code, signal, run.request.rssCapMb);
        const limit = limitError(reason, run.request.limits, detail);
        const message = reason === 'memory' ? `${limit.message} (${detail})` : limit.message;
        run.resolve({ outcome: { exitCode: 1, error: { name: limit.name, message, code: limit.code }, limit }, usage: { cpuMs: 0, wallMs: performance.now() - run.started, heapBytes: 0 } });
      }
      // Keep the pool warm: replace a dead process unless the pool is closing.
      if (!this.#closed && this.#all.size < this.#options.size) void this.#spawn().then((h) => this.#release(h), () => undefined);
    });
    host.child.on('message', (m: FromHost) => this.#onMessage(host, m));
    return host;
  }

  #release(host: SandboxHost): void {
    if (host.dead || this.#closed) return;
    const waiter = this.#waiters.shift();
    if (waiter) waiter(host);
    else this.#idle.push(host);
  }

  async #acquire(): Promise<SandboxHost> {
    const idle = this.#idle.pop();
    if (idle && !idle.dead) return idle;
    if (this.#all.size < this.#options.size) return this.#spawn();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** Starts the pool's processes ahead of the first run. */
  async warm(): Promise<void> {
    const hosts = await Promise.all(Array.from({ length: Math.max(0, this.#options.size - this.#all.size) }, () => this.#spawn()));
    for (const host of hosts) this.#release(host);
  }

  #onMessage(host: SandboxHost, m: FromHost): void {
    const run = this.#active.get(host);
    if (!run || m.t === 'ready' || !('runId' in m) || m.runId !== run.runId) return;
    switch (m.t) {
      case 'out':
        // fd 3 is the test reporter's channel, which a plain run never opens
        if (m.fd !== 3) run.request.onOutput(m.fd, m.text);
        break;
      case 'op':
        answerOp(host, run.request.ops, m);
        break;
      case 'done': {
        this.#active.delete(host);
        const limit = m.outcome.limit ? limitError(limitReason(m.outcome.limit.code), run.request.limits) : undefined;
        run.resolve({ outcome: { exitCode: m.outcome.exitCode, error: m.outcome.error, ...(limit ? { limit } : {}) }, usage: m.usage });
        // A run that ended on a limit may leave the process holding memory it cannot give
        // back (WebAssembly pages, a wedged isolate thread): retire the process, never reuse it.
        if (limit) host.kill();
        else this.#release(host);
        break;
      }
      default:
        break;
    }
  }

  async run(request: PoolRunRequest): Promise<{ outcome: RunOutcome; usage: Usage }> {
    if (this.#closed) throw new Error('the process pool is closed');
    const host = await this.#acquire();
    const runId = this.#nextRun++;
    return new Promise((resolve) => {
      const stop = host.guard(request.limits.wallMs, this.#options.graceMs ?? 1000, request.rssCapMb);
      this.#active.set(host, {
        runId,
        request,
        started: performance.now(),
        resolve: (result) => {
          stop();
          resolve(result);
        },
      });
      host.send({ t: 'run', runId, source: host.wire(request.source), limits: request.limits, webAssembly: request.webAssembly, args: request.args });
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    // Starts in flight stop their own process when they see the pool closed.
    await Promise.allSettled([...this.#starting]);
    await Promise.all([...this.#all].map((host) => host.stop()));
  }
}

/**
 * Answers an op a sandbox host process forwarded, with the kernel's broker. The answer is
 * delivered through the broker, which keeps the op's place in its run until the answer has
 * left through the pipe: a host that reads slowly slows its own run, never fills the kernel.
 */
export function answerOp(host: SandboxHost, ops: OpHandler, m: Extract<FromHost, { t: 'op' }>): void {
  const deliver = (answer: string) => new Promise<void>((resolve) => host.send({ t: 'op-reply', callId: m.callId, answer }, resolve));
  ops.any(m.op, m.json, deliver).catch((error: unknown) => deliver(JSON.stringify({ err: { class: 'Error', message: String(error) } })));
}

export function limitReason(code: string): LimitReason {
  switch (code) {
    case 'RTC_ERR_SANDBOX_MEMORY':
      return 'memory';
    case 'RTC_ERR_SANDBOX_CPU':
      return 'cpu';
    case 'RTC_ERR_SANDBOX_WALL':
      return 'wall';
    case 'RTC_ERR_SANDBOX_OUTPUT':
      return 'output';
    case 'RTC_ERR_SANDBOX_TRANSFER':
      return 'transfer';
    default:
      return 'crashed';
  }
}
