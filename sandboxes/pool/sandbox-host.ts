/**
 * One sandbox host process, seen from the kernel: started from a plain-JS bundle of
 * `host-main.ts` (no TS loader in the child), with an empty environment, talking JSON
 * over IPC. `guard` puts the kernel's two outside guards around one piece of work: a
 * wall-clock kill and a resident-memory cap read from /proc.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type * as esbuild from 'esbuild';
import { loadEsbuild } from '../../kernel/build/esbuild.ts';
import { sha256 } from '../../kernel/build/bundle.ts';
import { PROJECT_ROOT } from '../../kernel/version.ts';
import type { FromHost, ToHost } from './protocol.ts';

const HOST_ENTRY = path.join(PROJECT_ROOT, 'sandboxes', 'pool', 'host-main.ts');
// Checked this often while work is in flight; a memory bomb grows ~1 GB/s, so keep it short.
const RSS_POLL_MS = 10;

let hostScript: Promise<string> | undefined;

/** The host process's code, bundled once to plain JS so a child starts without a TS loader. */
export function buildHostScript(cacheDir: string): Promise<string> {
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
    const code = result.outputFiles[0]!.text;
    const file = path.join(cacheDir, 'pool', `host-${sha256(code).slice(0, 16)}.cjs`);
    if (!existsSync(file)) {
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(`${file}.${process.pid}.tmp`, code);
      renameSync(`${file}.${process.pid}.tmp`, file);
    }
    return file;
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
      for (const handler of this.#exitHandlers) handler(code, signal);
    });
    this.child.send(init);
  }

  static async start(cacheDir: string, init: ToHost): Promise<SandboxHost> {
    const host = new SandboxHost(await buildHostScript(cacheDir), init);
    await host.ready;
    return host;
  }

  send(message: ToHost): void {
    if (!this.dead && this.child.connected) this.child.send(message);
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
