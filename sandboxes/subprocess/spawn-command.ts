/**
 * A long-lived child for `Deno.Command(...).spawn()`: piped stdin, stdout and stderr that
 * the script reads and writes while the child runs. It keeps the runner's rules
 * (run-command.ts): only the environment it was given, its own process group, the whole
 * group killed when it passes the wall limit or the output cap, or when the run ends.
 * Output is buffered up to a high-water mark per stream and the child is paused beyond it
 * (backpressure), so a script that does not read cannot make the kernel hold unbounded data.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import { resolveExecutable } from './run-command.ts';

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
}

export interface ChildStatus {
  code: number;
  signal: string | null;
  /** why the kernel killed the group, if it did */
  killed: 'timeout' | 'output' | 'closed' | null;
}

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
  readonly #queues: Partial<Record<1 | 2, OutputQueue>> = {};
  #killed: ChildStatus['killed'] = null;
  #total = 0;
  /** the child has ended (its status is known) */
  exited = false;

  constructor(req: SpawnRequest) {
    const executable = resolveExecutable(req.command, req.searchPath, req.cwd);
    if (!executable) throw Object.assign(new Error(`Failed to spawn '${req.command}': No such file or directory (os error 2)`), { code: 'ENOENT' });
    // 'inherit' is piped here: the shim copies it to the run's own output.
    const io = (mode: StdioMode): 'pipe' | 'ignore' => (mode === 'null' ? 'ignore' : 'pipe');
    this.#child = spawn(executable, [...req.args], {
      cwd: req.cwd,
      env: req.env,
      argv0: req.command,
      detached: true,
      stdio: [req.stdin === 'piped' ? 'pipe' : 'ignore', io(req.stdout), io(req.stderr)],
    });
    if (this.#child.pid === undefined) throw Object.assign(new Error(`Failed to spawn '${req.command}'`), { code: 'EAGAIN' });
    this.pid = this.#child.pid;
    const count = (n: number): boolean => {
      this.#total += n;
      if (this.#total > req.outputBytes) {
        this.#killGroup('output');
        return false;
      }
      return true;
    };
    if (this.#child.stdout) this.#queues[1] = new OutputQueue(this.#child.stdout, count);
    if (this.#child.stderr) this.#queues[2] = new OutputQueue(this.#child.stderr, count);
    this.#child.stdin?.on('error', () => undefined);
    const timer = setTimeout(() => this.#killGroup('timeout'), req.wallMs);
    this.status = new Promise((resolve) => {
      this.#child.on('exit', () => {
        this.exited = true;
      });
      this.#child.on('close', (code, signal) => {
        this.exited = true;
        clearTimeout(timer);
        // Children that outlived the leader are still in the group: end them too.
        this.#signalGroup('SIGKILL');
        resolve({ code: code ?? 128 + (signal === 'SIGKILL' ? 9 : signal === 'SIGTERM' ? 15 : 1), signal: signal ?? null, killed: this.#killed });
      });
      this.#child.on('error', () => {
        clearTimeout(timer);
        resolve({ code: 1, signal: null, killed: this.#killed });
      });
    });
  }

  #signalGroup(signal: NodeJS.Signals): void {
    try {
      process.kill(-this.pid, signal);
    } catch {
      // the group is already gone
    }
  }

  #killGroup(why: NonNullable<ChildStatus['killed']>): void {
    this.#killed ??= why;
    this.#signalGroup('SIGKILL');
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

  /** Deno's kill: the child itself gets the signal (its group is killed only on close). */
  kill(signal: NodeJS.Signals): void {
    this.#child.kill(signal);
  }

  /** The run ended or the script dropped the child: the whole group goes. */
  close(): void {
    if (this.#child.exitCode === null && this.#child.signalCode === null) this.#killGroup('closed');
  }
}
