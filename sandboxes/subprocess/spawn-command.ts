/**
 * A long-lived child for `Deno.Command(...).spawn()`: piped stdin, stdout and stderr that
 * the script reads and writes while the child runs. It is launched as `output()`'s child is
 * (run-command.ts `launchChild`): only the environment it was given, inside the OS sandbox
 * planned from the grant (bubblewrap, its own pid namespace) unless the operator opted out,
 * heard by the kernel's tracker; the whole sandbox (or process group) is killed when it
 * passes the wall limit or the output cap, when the run ends, or when the kernel stops it.
 * Output is buffered up to a high-water mark per stream and the child is paused beyond it
 * (backpressure), so a script that does not read cannot make the kernel hold unbounded data.
 */
import type { ChildProcess } from 'node:child_process';
import os from 'node:os';
import type { Readable } from 'node:stream';
import { launchChild, settleLaunch, type ChildHandle, type ChildTracker, type Launch, type OsSandboxRequest, type SandboxRecord } from './run-command.ts';

export type StdioMode = 'piped' | 'inherit' | 'null';

export interface SpawnRequest {
  command: string;
  args: readonly string[];
  cwd: string;
  env: Record<string, string>;
  searchPath: string;
  stdin: StdioMode;
  stdout: StdioMode;
  stderr: StdioMode;
  wallMs: number;
  outputBytes: number;
  sandbox?: OsSandboxRequest;
  tracker?: ChildTracker;
}

export interface ChildStatus {
  code: number;
  signal: string | null;
  /** why the kernel killed it, if it did: its limits, the run's end, a stop through the tracker */
  killed: 'timeout' | 'output' | 'closed' | 'stop' | null;
  /** bwrap itself could not start the sandbox (the command never ran): why */
  sandboxFailure?: string;
  sandbox?: SandboxRecord;
}

const KILL_RETRY_MS = 5;
const KILL_RETRIES = 400;
const ENDING = new Set<NodeJS.Signals>(['SIGKILL', 'SIGTERM', 'SIGINT', 'SIGHUP', 'SIGQUIT']);

function signalNumber(name: string): number {
  return (os.constants.signals as Record<string, number>)[name] ?? 15;
}

/** What is kept of a stderr the script did not ask for, to find bwrap's own complaint in. */
const STDERR_TAIL = 4096;

const HIGH_WATER = 1024 * 1024;

class OutputQueue {
  readonly #chunks: Buffer[] = [];
  #buffered = 0;
  #ended = false;
  #waiting: ((chunk: Buffer | null) => void) | undefined;
  readonly #stream: Readable;

  constructor(stream: Readable, onData: (n: number) => boolean) {
    this.#stream = stream;
    stream.on('data', (chunk: Buffer) => {
      if (!onData(chunk.length)) return;
      if (this.#waiting) {
        const wake = this.#waiting;
        this.#waiting = undefined;
        wake(chunk);
        return;
      }
      this.#chunks.push(chunk);
      this.#buffered += chunk.length;
      if (this.#buffered > HIGH_WATER) stream.pause();
    });
    const end = () => {
      this.#ended = true;
      const wake = this.#waiting;
      this.#waiting = undefined;
      wake?.(null);
    };
    stream.on('end', end);
    stream.on('close', end);
    stream.on('error', end);
  }

  /** The next chunk, or null at the end of the stream. */
  read(): Promise<Buffer | null> {
    const chunk = this.#chunks.shift();
    if (chunk) {
      this.#buffered -= chunk.length;
      if (this.#buffered <= HIGH_WATER) this.#stream.resume();
      return Promise.resolve(chunk);
    }
    if (this.#ended) return Promise.resolve(null);
    return new Promise((resolve) => {
      this.#waiting = resolve;
    });
  }
}

export class SpawnedChild {
  readonly pid: number;
  readonly status: Promise<ChildStatus>;
  readonly #child: ChildProcess;
  readonly #launch: Launch;
  readonly #handle: ChildHandle;
  readonly #queues: Partial<Record<1 | 2, OutputQueue>> = {};
  #killed: ChildStatus['killed'] = null;
  #total = 0;
  #stderrTail = '';
  /** the signal the script sent with kill(), reported as what ended it when it did */
  #sent: NodeJS.Signals | undefined;
  /** the child has ended (its status is known) */
  exited = false;

  constructor(req: SpawnRequest) {
    // 'inherit' is piped here: the shim copies it to the run's own output. The kernel's own
    // stdin is never handed to a child.
    const io = (mode: StdioMode): 'pipe' | 'ignore' => (mode === 'null' ? 'ignore' : 'pipe');
    this.#launch = launchChild(req, { stdin: req.stdin === 'piped' ? 'pipe' : 'ignore', stdout: io(req.stdout), stderr: io(req.stderr) });
    this.#child = this.#launch.child;
    this.#handle = this.#launch.handle;
    if (this.#child.pid === undefined) {
      void this.#launch.proxy?.close();
      throw Object.assign(new Error(`Failed to spawn '${req.command}'`), { code: 'EAGAIN' });
    }
    this.pid = this.#child.pid;
    const count = (n: number): boolean => {
      this.#total += n;
      if (this.#total > req.outputBytes) {
        this.#end('output');
        return false;
      }
      return true;
    };
    const keepTail = (chunk: Buffer): void => {
      this.#stderrTail = (this.#stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL);
    };
    if (this.#child.stdout) this.#queues[1] = new OutputQueue(this.#child.stdout, count);
    if (req.stderr !== 'null' && this.#child.stderr) {
      this.#child.stderr.on('data', keepTail);
      this.#queues[2] = new OutputQueue(this.#child.stderr, count);
    } else this.#child.stderr?.on('data', keepTail);
    this.#child.stdin?.on('error', () => undefined);
    // The tracker (the kernel's registry) may stop the child: its status says so.
    const tracked: ChildHandle = {
      ...this.#handle,
      terminate: () => {
        this.#killed ??= 'stop';
        this.#handle.terminate();
      },
      kill: () => {
        this.#killed ??= 'stop';
        this.#handle.kill();
      },
    };
    req.tracker?.started(tracked);
    const timer = setTimeout(() => this.#end('timeout'), req.wallMs);
    this.status = new Promise((resolve) => {
      this.#child.on('exit', () => {
        this.exited = true;
      });
      this.#child.on('close', (code, signal) => {
        this.exited = true;
        clearTimeout(timer);
        // Children that outlived the leader are still in the group: end them too. (A
        // sandbox needs nothing: its pid namespace ended with its init.)
        if (!this.#handle.sandboxed) this.#handle.kill();
        void (async () => {
          const failure = await settleLaunch(this.#launch, this.#stderrTail, this.#killed !== null);
          req.tracker?.ended(tracked, this.#launch.record);
          await this.#launch.proxy?.close();
          // Inside a sandbox a signal death comes back as 128+N from bwrap: the signal the
          // script sent is named again, as Deno names it for an unsandboxed child.
          const sent = this.#sent === undefined ? undefined : signalNumber(this.#sent);
          const bySent = signal === null && sent !== undefined && code === 128 + sent;
          resolve({
            code: code ?? 128 + signalNumber(signal ?? 'SIGTERM'),
            signal: signal ?? (bySent ? this.#sent! : null),
            killed: this.#killed,
            ...(failure ? { sandboxFailure: failure.message } : {}),
            ...(this.#launch.record ? { sandbox: this.#launch.record } : {}),
          });
        })();
      });
      this.#child.on('error', () => {
        clearTimeout(timer);
        req.tracker?.ended(tracked, this.#launch.record);
        void this.#launch.proxy?.close();
        resolve({ code: 1, signal: null, killed: this.#killed });
      });
    });
  }

  #end(why: NonNullable<ChildStatus['killed']>): void {
    this.#killed ??= why;
    this.#handle.kill();
  }

  read(fd: 1 | 2): Promise<Buffer | null> {
    const queue = this.#queues[fd];
    return queue ? queue.read() : Promise.resolve(null);
  }

  write(data: Buffer): Promise<number> {
    const stdin = this.#child.stdin;
    if (!stdin || stdin.destroyed) return Promise.reject(Object.assign(new Error('EPIPE'), { code: 'EPIPE' }));
    return new Promise((resolve, reject) => {
      stdin.write(data, (error) => (error ? reject(error) : resolve(data.length)));
    });
  }

  closeStdin(): void {
    this.#child.stdin?.end();
  }

  /**
   * Deno's kill: the command itself gets the signal (inside its sandbox; the whole sandbox or
   * group is killed only on close). A sandbox whose command cannot be found yet (it is still
   * starting) is ended whole for a signal that ends a process, and left alone otherwise.
   */
  kill(signal: NodeJS.Signals): void {
    this.#sent = signal;
    if (this.#handle.signalCommand(signal)) return;
    // Still starting inside its sandbox: the signal goes as soon as the command is there.
    let tries = 0;
    const retry = (): void => {
      if (this.exited || this.#handle.signalCommand(signal)) return;
      if (++tries < KILL_RETRIES) {
        setTimeout(retry, KILL_RETRY_MS).unref();
        return;
      }
      // Never seen (it could not start): a signal that ends a process ends the whole sandbox.
      if (ENDING.has(signal)) {
        this.#killed ??= 'closed';
        this.#handle.kill();
      }
    };
    setTimeout(retry, KILL_RETRY_MS).unref();
  }

  /** The run ended or the script dropped the child: the whole sandbox (or group) goes. */
  close(): void {
    if (this.#child.exitCode === null && this.#child.signalCode === null) this.#end('closed');
  }
}
