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
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as esbuild from 'esbuild';
import { sha256 } from '../../kernel/build/bundle.ts';
import type { Limits } from '../../kernel/manifest/sandbox-profile.ts';
import { PROJECT_ROOT } from '../../kernel/version.ts';
import type { CompiledSource, OpHandler, RunOutcome, Usage } from '../isolate/isolate-runtime.ts';
import { limitError } from '../isolate/limit-errors.ts';
import type { FromHost, ToHost, WireSource } from './protocol.ts';

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

const HOST_ENTRY = path.join(PROJECT_ROOT, 'sandboxes', 'pool', 'host-main.ts');
// Checked this often while a run is active; a memory bomb grows ~1 GB/s, so keep it short.
const RSS_POLL_MS = 10;

let hostScript: Promise<string> | undefined;

/** The host process's code, bundled once to plain JS so a child starts without a TS loader. */
function buildHostScript(cacheDir: string): Promise<string> {
  hostScript ??= (async () => {
    const result = await esbuild.build({
      entryPoints: [HOST_ENTRY],
      bundle: true,
      write: false,
      format: 'cjs',
      platform: 'node',
      target: 'node20',
      external: ['isolated-vm', 'esbuild'],
      logLevel: 'silent',
    });
    const code = result.outputFiles[0]!.text;
    const file = path.join(cacheDir, 'pool', `host-${sha256(code).slice(0, 16)}.cjs`);
    const { mkdirSync, writeFileSync, existsSync } = await import('node:fs');
    if (!existsSync(file)) {
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(`${file}.tmp`, code);
      (await import('node:fs')).renameSync(`${file}.tmp`, file);
    }
    return file;
  })();
  return hostScript;
}

function wire(source: CompiledSource): WireSource {
  return { code: source.code, digest: source.digest, filename: source.filename };
}

function readRssBytes(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /VmRSS:\s+(\d+) kB/.exec(status);
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

interface ActiveRun {
  runId: number;
  request: PoolRunRequest;
  resolve(result: { outcome: RunOutcome; usage: Usage }): void;
  killedFor?: 'wall' | 'memory';
  started: number;
}

class SandboxHost {
  readonly child: ChildProcess;
  readonly ready: Promise<void>;
  active: ActiveRun | undefined;
  dead = false;
  #exitHandlers: (() => void)[] = [];

  constructor(script: string, init: ToHost) {
    this.child = fork(script, [], {
      execArgv: ['--no-node-snapshot'],
      env: { NODE_PATH: path.join(PROJECT_ROOT, 'node_modules'), RTC_PROJECT_ROOT: PROJECT_ROOT },
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      serialization: 'json',
    });
    this.child.stderr?.on('data', () => undefined);
    this.ready = new Promise((resolve, reject) => {
      const onMessage = (m: FromHost) => {
        if (m.t === 'ready') {
          this.child.off('message', onMessage);
          resolve();
        }
      };
      this.child.on('message', onMessage);
      this.child.once('exit', () => reject(new Error('sandbox host process exited during start-up')));
    });
    this.ready.catch(() => undefined);
    this.child.on('exit', (code, signal) => {
      this.dead = true;
      for (const handler of this.#exitHandlers) handler();
      const run = this.active;
      this.active = undefined;
      if (run) {
        const reason = run.killedFor ?? 'crashed';
        const detail = reason === 'crashed' ? (signal === 'SIGABRT' || code === 134 ? 'SIGABRT, most likely a fatal V8 out-of-memory' : `exit ${code ?? signal}`) : reason === 'memory' ? `resident memory above ${run.request.rssCapMb} MB` : '';
        const limit = limitError(reason, run.request.limits, detail);
        run.resolve({ outcome: { exitCode: 1, error: { name: limit.name, message: limit.message + (reason === 'memory' ? ` (${detail})` : ''), code: limit.code }, limit }, usage: { cpuMs: 0, wallMs: performance.now() - run.started, heapBytes: 0 } });
      }
    });
    this.child.send(init);
  }

  onExit(handler: () => void): void {
    this.#exitHandlers.push(handler);
  }

  kill(): void {
    if (!this.dead) this.child.kill('SIGKILL');
  }
}

export class ProcessPool {
  readonly #options: PoolOptions;
  readonly #idle: SandboxHost[] = [];
  readonly #waiters: ((host: SandboxHost) => void)[] = [];
  #all = new Set<SandboxHost>();
  #nextRun = 1;
  #closed = false;
  /** sandbox host processes started so far, including respawns (for tests and status) */
  spawned = 0;

  constructor(options: PoolOptions) {
    this.#options = options;
  }

  async #spawn(): Promise<SandboxHost> {
    const script = await buildHostScript(this.#options.cacheDir);
    const host = new SandboxHost(script, { t: 'init', shim: wire(this.#options.shim), cacheDir: this.#options.cacheDir });
    this.spawned++;
    this.#all.add(host);
    host.onExit(() => {
      this.#all.delete(host);
      const i = this.#idle.indexOf(host);
      if (i !== -1) this.#idle.splice(i, 1);
      // Keep the pool warm: replace a dead process unless the pool is closing.
      if (!this.#closed && this.#all.size < this.#options.size) void this.#spawn().then((h) => this.#release(h), () => undefined);
    });
    host.child.on('message', (m: FromHost) => this.#onMessage(host, m));
    await host.ready;
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
    const run = host.active;
    if (!run || m.t === 'ready' || m.runId !== run.runId) return;
    switch (m.t) {
      case 'out':
        run.request.onOutput(m.fd, m.text);
        break;
      case 'op': {
        const reply = (answer: string) => {
          if (!host.dead) host.child.send({ t: 'op-reply', callId: m.callId, answer } satisfies ToHost);
        };
        run.request.ops.any(m.op, m.json).then(reply, (error: unknown) => reply(JSON.stringify({ err: { class: 'Error', message: String(error) } })));
        break;
      }
      case 'done': {
        host.active = undefined;
        const limit = m.outcome.limit ? limitError(limitReason(m.outcome.limit.code), run.request.limits) : undefined;
        run.resolve({ outcome: { exitCode: m.outcome.exitCode, error: m.outcome.error, ...(limit ? { limit } : {}) }, usage: m.usage });
        this.#release(host);
        break;
      }
    }
  }

  async run(request: PoolRunRequest): Promise<{ outcome: RunOutcome; usage: Usage }> {
    if (this.#closed) throw new Error('the process pool is closed');
    const host = await this.#acquire();
    const runId = this.#nextRun++;
    return new Promise((resolve) => {
      const active: ActiveRun = { runId, request, resolve, started: performance.now() };
      host.active = active;
      const grace = this.#options.graceMs ?? 1000;
      const wall = setTimeout(() => {
        active.killedFor = 'wall';
        host.kill();
      }, request.limits.wallMs + grace);
      const rssCap = request.rssCapMb * 1024 * 1024;
      const rss = setInterval(() => {
        if (host.child.pid && readRssBytes(host.child.pid) > rssCap) {
          active.killedFor = 'memory';
          host.kill();
        }
      }, RSS_POLL_MS);
      const done = active.resolve;
      active.resolve = (result) => {
        clearTimeout(wall);
        clearInterval(rss);
        done(result);
      };
      host.child.send({ t: 'run', runId, source: wire(request.source), limits: request.limits, webAssembly: request.webAssembly, args: request.args } satisfies ToHost);
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    const exits = [...this.#all].map((host) => new Promise<void>((resolve) => (host.dead ? resolve() : host.child.once('exit', () => resolve()))));
    for (const host of this.#all) {
      // Let the child dispose its isolates and exit on its own (dispose-then-exit can segfault).
      if (host.child.connected) host.child.disconnect();
    }
    const timer = setTimeout(() => {
      for (const host of this.#all) host.kill();
    }, 1000);
    await Promise.all(exits);
    clearTimeout(timer);
  }
}

function limitReason(code: string): 'memory' | 'cpu' | 'wall' | 'output' | 'transfer' | 'crashed' {
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
