/**
 * A mounted MCP server's process, and the MCP transport over its stdin and stdout. The
 * process gets exactly the environment it was given (nothing of the kernel's), its own
 * process group (so a kill reaches whatever it started) and, where util-linux has it, death
 * with the kernel (PR_SET_PDEATHSIG through setpriv). Unlike the SDK's StdioClientTransport,
 * which adds the kernel's HOME, PATH and more to the child and tolerates garbage on stdout,
 * this transport treats anything that is not a JSON-RPC message, a line over the output cap,
 * or more output than the cap since the last answer as the end of the server: it is killed
 * and every call in flight fails with what it did.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { hasSetpriv, launchChild, SETPRIV, type Launch, type OsSandboxRequest } from '../../../sandboxes/subprocess/run-command.ts';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** How much of the server's stderr is kept for error messages (the rest is counted and dropped). */
const STDERR_KEPT = 4096;

export interface ServerSpawn {
  /** the resolved program (absolute) */
  executable: string;
  /** the name it was declared as (argv[0], messages) */
  command: string;
  args: readonly string[];
  cwd: string;
  env: Record<string, string>;
  /** bytes of stdout and stderr the server may write between two answers */
  outputBytes: number;
  /**
   * the OS sandbox to start it in (bubblewrap, planned from the plugin's grant, as a plugin's
   * `run` children are: sandboxes/subprocess); none: a plain child in its own process group
   */
  sandbox?: OsSandboxRequest;
}

/** Why the server is gone: what a call in flight fails with. */
export interface ServerEnd {
  reason: 'exited' | 'garbage' | 'flood' | 'killed';
  message: string;
}

export class ServerProcess implements Transport {
  readonly child: ChildProcess;
  readonly #spec: ServerSpawn;
  /** the sandboxed launch (its handle kills the whole sandbox; its proxy closes with it) */
  readonly #launch: Launch | undefined;
  #buffer: Buffer = Buffer.alloc(0);
  #sinceAnswer = 0;
  #stderr = '';
  #ended: ServerEnd | undefined;
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  /** told once when the server is gone, with why */
  onend?: (end: ServerEnd) => void;

  constructor(spec: ServerSpawn) {
    this.#spec = spec;
    if (spec.sandbox) {
      // The same launch as a plugin's spawn(): bwrap with --die-with-parent, its own pid namespace; throws when the grant cannot be expressed
      this.#launch = launchChild({ command: spec.executable, args: spec.args, cwd: spec.cwd, env: spec.env, searchPath: spec.env.PATH ?? '', sandbox: spec.sandbox }, { stdin: 'pipe', stdout: 'pipe', stderr: 'pipe' });
      this.child = this.#launch.child;
    } else {
      const viaSetpriv = hasSetpriv();
      const [file, argv] = viaSetpriv ? [SETPRIV, ['--pdeathsig', 'KILL', '--', spec.executable, ...spec.args]] : [spec.executable, [...spec.args]];
      this.child = spawn(file, argv, { cwd: spec.cwd, env: spec.env, detached: true, stdio: ['pipe', 'pipe', 'pipe'], ...(viaSetpriv ? {} : { argv0: spec.command }) });
    }
    this.child.stdout!.on('data', (chunk: Buffer) => this.#onStdout(chunk));
    this.child.stderr!.on('data', (chunk: Buffer) => this.#onStderr(chunk));
    this.child.stdin!.on('error', () => undefined);
    this.child.on('error', (error) => this.#end({ reason: 'exited', message: `could not be started: ${error.message}` }));
    this.child.on('exit', (code, signal) => {
      const last = this.lastStderrLine();
      this.#end({ reason: 'exited', message: `exited (${signal ? `signal ${signal}` : `status ${code}`})${last ? `: ${last}` : ''}` });
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get ended(): ServerEnd | undefined {
    return this.#ended;
  }

  /** The last non-empty line the server wrote on stderr (for messages), at most 200 characters. */
  lastStderrLine(): string {
    const lines = this.#stderr.split('\n').map((l) => l.trim()).filter((l) => l !== '');
    return (lines.at(-1) ?? '').slice(0, 200);
  }

  #count(bytes: number): boolean {
    this.#sinceAnswer += bytes;
    if (this.#sinceAnswer <= this.#spec.outputBytes) return true;
    this.kill({ reason: 'flood', message: `wrote more than its output cap of ${this.#spec.outputBytes} bytes without an answer; its process group was killed` });
    return false;
  }

  #onStderr(chunk: Buffer): void {
    if (!this.#count(chunk.length)) return;
    this.#stderr = (this.#stderr + chunk.toString('utf8')).slice(-STDERR_KEPT);
  }

  #onStdout(chunk: Buffer): void {
    if (this.#ended || !this.#count(chunk.length)) return;
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    for (;;) {
      const at = this.#buffer.indexOf(0x0a);
      if (at < 0) break;
      const line = this.#buffer.toString('utf8', 0, at).replace(/\r$/, '');
      this.#buffer = this.#buffer.subarray(at + 1);
      if (line.trim() === '') continue;
      let message: JSONRPCMessage;
      try {
        message = JSONRPCMessageSchema.parse(JSON.parse(line));
      } catch {
        this.kill({ reason: 'garbage', message: `answered something that is not an MCP (JSON-RPC) message: ${JSON.stringify(line.slice(0, 120))}; its process group was killed` });
        return;
      }
      // An answer (a result or an error) resets the output budget; notifications count against it.
      if ('id' in message && ('result' in message || 'error' in message)) this.#sinceAnswer = 0;
      this.onmessage?.(message);
      if (this.#ended) return;
    }
  }

  #end(end: ServerEnd): void {
    if (this.#ended) return;
    this.#ended = end;
    void this.#launch?.proxy?.close();
    this.onend?.(end);
    this.onclose?.();
  }

  /** Kills the server's whole process group; calls in flight fail with `end`. */
  kill(end: ServerEnd = { reason: 'killed', message: 'was stopped' }): void {
    const pid = this.child.pid;
    if (pid !== undefined && this.child.exitCode === null && this.child.signalCode === null) {
      if (this.#launch) this.#launch.handle.kill();
      else {
        try {
          process.kill(-pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }
    this.#end(end);
  }

  // Transport
  async start(): Promise<void> {
    // spawned in the constructor; nothing to wait for (an exec failure arrives as 'error')
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.#ended) throw new Error(`the MCP server ${this.#ended.message}`);
    const stdin = this.child.stdin!;
    const text = `${JSON.stringify(message)}\n`;
    if (!stdin.write(text)) await new Promise<void>((resolve) => stdin.once('drain', resolve));
  }

  async close(): Promise<void> {
    this.kill();
  }
}

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ, 100 on Linux). */
const TICK_MS = 10;

/**
 * CPU time a process and its live descendants have used so far (user + system, from /proc),
 * in ms; undefined when it is gone. The tree, because a sandboxed server runs under bwrap and
 * its init (the server is a grandchild), and a server may start helpers.
 */
export function processCpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  const own = ownCpuMs(pid);
  if (own === undefined) return undefined;
  let total = own;
  const seen = new Set([pid]);
  const queue = childrenOf(pid);
  while (queue.length > 0 && seen.size < 1000) {
    const next = queue.shift()!;
    if (seen.has(next)) continue;
    seen.add(next);
    total += ownCpuMs(next) ?? 0;
    queue.push(...childrenOf(next));
  }
  return total;
}

function ownCpuMs(pid: number): number | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // the fields after the command name, which is in parentheses and may hold spaces
    const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return (Number(rest[11]) + Number(rest[12])) * TICK_MS;
  } catch {
    return undefined;
  }
}

function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}
