/**
 * One sandbox host process, seen from the kernel: started from `host-loader.cjs`, which
 * compiles the host's code the kernel sends it (a plain-JS bundle of `host-main.ts`, built
 * here in memory from the kernel's own sources: no file in a cache is ever run as the
 * host), with an empty environment, talking JSON over IPC. `guard` puts the kernel's two
 * outside guards around one piece of work: a wall-clock kill and a resident-memory cap read
 * from /proc. The host has no file access of its own: code caches travel over IPC, and one
 * it produces is sealed by the kernel and kept apart from the kernel's own (bundle.ts).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type * as esbuild from 'esbuild';
import { loadEsbuild } from '../loader/esbuild.ts';
import { readCodeCache, writeCodeCache } from '../loader/bundle.ts';
import { PROJECT_ROOT } from '../../kernel/version.ts';
import { kernelError } from '../../kernel/errors.ts';
import type { CompiledSource } from '../isolate/isolate-runtime.ts';
import type { BootMessage, FromHost, ToHost, WireSource } from './protocol.ts';

const HOST_ENTRY = path.join(PROJECT_ROOT, 'sandboxes', 'pool', 'host-main.ts');
const HOST_LOADER = path.join(PROJECT_ROOT, 'sandboxes', 'pool', 'host-loader.cjs');
// Checked this often while work is in flight; a memory bomb grows ~1 GB/s, so keep it short.
const RSS_POLL_MS = 10;
/** A code cache a host sends back larger than this is dropped, not kept. */
const MAX_HOST_CODE_CACHE_BYTES = 64 * 1024 * 1024;

let hostScript: Promise<string> | undefined;

/** The host process's code, bundled once per kernel process, in memory, so a child starts without a TS loader. */
export function buildHostScript(): Promise<string> {
  hostScript ??= (async () => {
    const result = await (await loadEsbuild()).build({
      entryPoints: [HOST_ENTRY],
      bundle: true,
      write: false,
      format: 'cjs',
      platform: 'node',
      target: 'node20',
      external: ['isolated-vm', 'esbuild'],
      logLevel: 'silent',
    });
    return result.outputFiles[0]!.text;
  })();
  return hostScript;
}

export function readRssBytes(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

export type KillReason = 'wall' | 'memory';

export class SandboxHost {
  readonly child: ChildProcess;
  readonly ready: Promise<void>;
  dead = false;
  /** why the kernel killed this process, if it did */
  killedFor: KillReason | undefined;
  #exitHandlers: ((code: number | null, signal: NodeJS.Signals | null) => void)[] = [];
  readonly #cacheDir: string;
  /** digests of the sources sent to this process: the only ones it may send a code cache for */
  readonly #sent = new Set<string>();

  constructor(code: string, cacheDir: string, shim: CompiledSource) {
    this.#cacheDir = cacheDir;
    this.child = fork(HOST_LOADER, [], {
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
      // Killed (OOM killer, an operator, a hostile neighbour) before it was ready: a named error, never a kernel bug.
      this.child.once('exit', (code, signal) =>
        reject(kernelError('RTC_ERR_SANDBOX_CRASHED', `the sandbox host process died during start-up (${signal ? `signal ${signal}` : `exit code ${code}`})`, { details: { limit: 'crashed' } })),
      );
    });
    this.ready.catch(() => undefined);
    this.child.on('exit', (exitCode, signal) => {
      this.dead = true;
      for (const handler of this.#exitHandlers) handler(exitCode, signal);
    });
    this.child.on('message', (m: FromHost) => {
      if (m.t === 'code-cache') this.#keepCodeCache(m.digest, m.data);
    });
    this.child.send({ t: 'boot', code, root: PROJECT_ROOT } satisfies BootMessage);
    this.child.send({ t: 'init', shim: this.wire(shim) } satisfies ToHost);
  }

  static async start(cacheDir: string, shim: CompiledSource): Promise<SandboxHost> {
    const host = new SandboxHost(await buildHostScript(), cacheDir, shim);
    await host.ready;
    return host;
  }

  /** A source as sent to this process, with the code cache an earlier host process made for it, if sealed. */
  wire(source: CompiledSource): WireSource {
    this.#sent.add(source.digest);
    const cached = readCodeCache(source.digest, this.#cacheDir, 'host');
    return { code: source.code, digest: source.digest, filename: source.filename, ...(source.parts ? { parts: source.parts } : {}), ...(cached ? { cachedData: cached.toString('base64') } : {}) };
  }

  #keepCodeCache(digest: string, data: unknown): void {
    if (!this.#sent.has(digest) || typeof data !== 'string' || data.length > (MAX_HOST_CODE_CACHE_BYTES * 4) / 3) return;
    try {
      writeCodeCache(digest, Buffer.from(data, 'base64'), this.#cacheDir, 'host');
    } catch {
      // a cache that cannot be written is only a slower next start
    }
  }

  /** Sends a message; `written` is called once it has left through the pipe (or at once, if the process is gone). */
  send(message: ToHost, written?: () => void): void {
    if (this.dead || !this.child.connected) {
      written?.();
      return;
    }
    this.child.send(message, written ? () => written() : undefined);
  }

  onExit(handler: (code: number | null, signal: NodeJS.Signals | null) => void): void {
    this.#exitHandlers.push(handler);
  }

  kill(reason?: KillReason): void {
    if (this.dead) return;
    if (reason) this.killedFor ??= reason;
    this.child.kill('SIGKILL');
  }

  /** Kills the process if the work in flight passes `wallMs` + `graceMs` or the RSS cap; returns the stop function. */
  guard(wallMs: number, graceMs: number, rssCapMb: number): () => void {
    const wall = setTimeout(() => this.kill('wall'), wallMs + graceMs);
    const cap = rssCapMb * 1024 * 1024;
    const rss = setInterval(() => {
      if (this.child.pid && readRssBytes(this.child.pid) > cap) this.kill('memory');
    }, RSS_POLL_MS);
    return () => {
      clearTimeout(wall);
      clearInterval(rss);
    };
  }

  /** Disconnects so the child disposes its isolates and exits on its own; kills it after 1 s. */
  async stop(): Promise<void> {
    if (this.dead) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    if (this.child.connected) this.child.disconnect();
    const timer = setTimeout(() => this.kill(), 1000);
    await exited;
    clearTimeout(timer);
  }
}

/** The limit reason and detail for a host that died while work was in flight. */
export function deathReason(host: SandboxHost, code: number | null, signal: NodeJS.Signals | null, rssCapMb: number): { reason: 'wall' | 'memory' | 'crashed'; detail: string } {
  if (host.killedFor === 'wall') return { reason: 'wall', detail: '' };
  if (host.killedFor === 'memory') return { reason: 'memory', detail: `resident memory above ${rssCapMb} MB` };
  return { reason: 'crashed', detail: signal === 'SIGABRT' || code === 134 ? 'SIGABRT, most likely a fatal V8 out-of-memory' : `exit ${code ?? signal}` };
}
