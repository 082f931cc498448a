/**
 * `node:child_process` over `Deno.Command`, as Deno's own is: a spawn is a `run` broker op,
 * checked against the run grant and started in the OS sandbox like any Deno.Command child.
 * Without `env` in its options a child inherits the environment, which is
 * `Deno.env.toObject()` and so needs the whole env grant, as in Deno. `exec`/`execSync` go
 * through `/bin/sh -c`, so they run only where the grant allows that shell. Deno's answers
 * are kept where they differ from Node's: a refused spawnSync comes back empty, execSync and
 * execFileSync of a refused program fail with "Command failed".
 */
import { denoNamespace } from '../../deno/namespace-ref.ts';
import { errors } from '../../deno/errors.ts';
import { requirePart } from '../../parts-loader.ts';
import { unsupportedFunction } from '../../unsupported.ts';
import { setImmediate } from '../../web/timers.ts';
import { EventEmitter } from '../node-events/index.ts';
import { Buffer } from '../node-buffer/index.ts';
import { invalidArgType, uvErrno, validateFunction, validateString } from '../node-errors/index.ts';

type Stdio = 'pipe' | 'inherit' | 'ignore' | 'overlapped' | number | null | undefined;
type DenoStdio = 'piped' | 'inherit' | 'null';

interface SpawnOptions {
  cwd?: string | URL;
  env?: Record<string, string | undefined>;
  stdio?: Stdio | Stdio[];
  shell?: boolean | string;
  input?: string | Uint8Array;
  encoding?: string;
  timeout?: number;
  killSignal?: string | number;
  maxBuffer?: number;
  signal?: AbortSignal;
  argv0?: string;
  detached?: boolean;
  uid?: number;
  gid?: number;
  windowsHide?: boolean;
}

interface DenoChild {
  pid: number;
  stdin: WritableStream<Uint8Array>;
  stdout: ReadableStream<Uint8Array>;
  stderr: ReadableStream<Uint8Array>;
  status: Promise<{ success: boolean; code: number; signal: string | null }>;
  kill(signal?: string): void;
}

interface DenoLike {
  Command: new (command: string, options: Record<string, unknown>) => {
    spawn(): DenoChild;
    outputSync(): { code: number; signal: string | null; stdout: Uint8Array; stderr: Uint8Array };
  };
  env: { toObject(): Record<string, string> };
}

const deno = denoNamespace() as unknown as DenoLike;
type BufferClass = { from(d: unknown, o?: unknown, l?: number): Uint8Array & { toString(e?: string): string }; concat(l: Uint8Array[]): Uint8Array & { toString(e?: string): string }; alloc(n: number): Uint8Array };
const B = Buffer as unknown as BufferClass;

interface Normalized {
  file: string;
  args: string[];
  options: SpawnOptions;
  env: Record<string, string>;
  stdio: [DenoStdio, DenoStdio, DenoStdio];
  shownCommand: string;
}

function toDenoStdio(value: Stdio, index: number): DenoStdio {
  if (value === undefined || value === null || value === 'pipe' || value === 'overlapped') return 'piped';
  if (value === 'inherit' || value === index) return 'inherit';
  if (value === 'ignore') return 'null';
  return 'piped';
}

function stdioOf(options: SpawnOptions): [DenoStdio, DenoStdio, DenoStdio] {
  const s = options.stdio;
  if (Array.isArray(s)) return [toDenoStdio(s[0], 0), toDenoStdio(s[1], 1), toDenoStdio(s[2], 2)];
  return [toDenoStdio(s, 0), toDenoStdio(s, 1), toDenoStdio(s, 2)];
}

/** Node's argument rules; the environment is the script's own (Deno.env.toObject) unless given. */
function normalize(command: unknown, argsOrOptions?: unknown, maybeOptions?: unknown): Normalized {
  validateString(command, 'file');
  if (command.length === 0) throw Object.assign(new TypeError("The argument 'file' cannot be empty. Received ''"), { code: 'ERR_INVALID_ARG_VALUE' });
  let args: string[] = [];
  let options: SpawnOptions = {};
  if (Array.isArray(argsOrOptions)) {
    args = argsOrOptions.map(String);
    options = (maybeOptions ?? {}) as SpawnOptions;
  } else if (argsOrOptions !== undefined && argsOrOptions !== null) {
    if (typeof argsOrOptions !== 'object') throw invalidArgType('args', 'an instance of Array', argsOrOptions);
    options = argsOrOptions as SpawnOptions;
  } else if (maybeOptions) options = maybeOptions as SpawnOptions;
  let file = command;
  let shownCommand = [command, ...args].join(' ');
  if (options.shell) {
    const joined = [command, ...args].join(' ');
    file = typeof options.shell === 'string' ? options.shell : '/bin/sh';
    args = ['-c', joined];
    shownCommand = joined;
  }
  // Deno's order: the inherited environment (the whole env grant), then NODE_V8_COVERAGE (one
  // variable): without an env grant every call stops at one of the two
  const given = options.env;
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(given ?? deno.env.toObject())) if (v !== undefined) env[k] = String(v);
  (deno.env as unknown as { get(name: string): string | undefined }).get('NODE_V8_COVERAGE');
  return { file, args, options, env, stdio: stdioOf(options), shownCommand };
}

function commandOf(n: Normalized, stdio: [DenoStdio, DenoStdio, DenoStdio], extra: Record<string, unknown> = {}) {
  return new deno.Command(n.file, {
    args: n.args,
    ...(n.options.cwd === undefined ? {} : { cwd: n.options.cwd }),
    env: n.env,
    clearEnv: true,
    stdin: stdio[0],
    stdout: stdio[1],
    stderr: stdio[2],
    ...extra,
  });
}

function isNotFound(error: unknown): boolean {
  return error instanceof (errors.NotFound as unknown as typeof Error);
}

function spawnError(syscall: string, file: string, args: string[]): Error {
  const error = new Error(`${syscall} ${file} ENOENT`) as Error & Record<string, unknown>;
  Object.assign(error, { errno: uvErrno('ENOENT'), code: 'ENOENT', syscall: `${syscall} ${file}`, path: file, spawnargs: args });
  return error;
}

interface StreamModule {
  Readable: new (options: Record<string, unknown>) => EventEmitter & { push(chunk: unknown): boolean; destroy(e?: Error): void };
  Writable: new (options: Record<string, unknown>) => EventEmitter & { end(): void };
}

const streams = (): StreamModule => requirePart<{ modules: Record<string, StreamModule> }>('node-stream').modules.stream!;

function readableFrom(web: ReadableStream<Uint8Array>): EventEmitter {
  const reader = web.getReader();
  const { Readable } = streams();
  return new Readable({
    read(this: { push(chunk: unknown): boolean; destroy(e?: Error): void }) {
      reader.read().then(
        ({ value, done }) => this.push(done ? null : B.from(value!.buffer, value!.byteOffset, value!.byteLength)),
        (error: Error) => this.destroy(error),
      );
    },
  });
}

function writableTo(web: WritableStream<Uint8Array>): EventEmitter {
  const writer = web.getWriter();
  const { Writable } = streams();
  return new Writable({
    write(chunk: Uint8Array, _encoding: string, callback: (e?: Error | null) => void) {
      writer.write(chunk).then(() => callback(), (e: Error) => callback(e));
    },
    final(callback: (e?: Error | null) => void) {
      writer.close().then(() => callback(), (e: Error) => callback(e));
    },
  });
}

const SIGNALS: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGKILL: 9, SIGUSR1: 10, SIGUSR2: 12, SIGTERM: 15, SIGSTOP: 19, SIGCONT: 18 };

function signalName(signal: string | number | undefined): string {
  if (signal === undefined) return 'SIGTERM';
  if (typeof signal === 'number') return Object.keys(SIGNALS).find((k) => SIGNALS[k] === signal) ?? 'SIGTERM';
  return signal;
}

/** Node's ChildProcess over a Deno child: its streams as Node streams, `exit` and `close` from its status. */
export class ChildProcess extends (EventEmitter as unknown as new () => EventEmitter) {
  pid: number | undefined = undefined;
  stdin: EventEmitter | null = null;
  stdout: EventEmitter | null = null;
  stderr: EventEmitter | null = null;
  stdio: (EventEmitter | null)[] = [null, null, null];
  exitCode: number | null = null;
  signalCode: string | null = null;
  killed = false;
  connected = false;
  spawnfile = '';
  spawnargs: string[] = [];
  #child: DenoChild | undefined;

  constructor() {
    super();
  }

  /** Starts the child; a failure to start is the `error` event, after the current task, as in Node. */
  start(n: Normalized): this {
    this.spawnfile = n.file;
    this.spawnargs = [n.file, ...n.args];
    let child: DenoChild;
    try {
      child = commandOf(n, n.stdio).spawn();
    } catch (error) {
      const shown = isNotFound(error) ? spawnError('spawn', n.file, this.spawnargs) : error;
      setImmediate(() => {
        this.emit('error', shown);
        this.emit('close', null, null);
      });
      return this;
    }
    this.#child = child;
    this.pid = child.pid;
    if (n.stdio[0] === 'piped') this.stdin = writableTo(child.stdin);
    if (n.stdio[1] === 'piped') this.stdout = readableFrom(child.stdout);
    if (n.stdio[2] === 'piped') this.stderr = readableFrom(child.stderr);
    this.stdio = [this.stdin, this.stdout, this.stderr];
    const open = [this.stdout, this.stderr].filter((s): s is EventEmitter => s !== null);
    let pendingStreams = open.length;
    let exited = false;
    const maybeClose = () => {
      if (exited && pendingStreams === 0) this.emit('close', this.exitCode, this.signalCode);
    };
    for (const s of open) {
      s.on('close', () => {
        pendingStreams--;
        maybeClose();
      });
    }
    setImmediate(() => this.emit('spawn'));
    child.status.then((status) => {
      this.exitCode = status.signal ? null : status.code;
      this.signalCode = status.signal;
      exited = true;
      this.emit('exit', this.exitCode, this.signalCode);
      // Node's flushStdio: a stream nobody reads is drained, so `close` still comes
      for (const s of open) if ((s as unknown as { readableFlowing: boolean | null }).readableFlowing === null) (s as unknown as { resume(): void }).resume();
      maybeClose();
    });
    const timeout = n.options.timeout;
    if (typeof timeout === 'number' && timeout > 0) {
      const timer = setTimeout(() => this.kill(n.options.killSignal), timeout);
      child.status.then(() => clearTimeout(timer));
    }
    n.options.signal?.addEventListener('abort', () => this.kill(n.options.killSignal), { once: true });
    return this;
  }

  kill(signal?: string | number): boolean {
    if (!this.#child || this.exitCode !== null || this.signalCode !== null) return false;
    try {
      this.#child.kill(signalName(signal));
      this.killed = true;
      return true;
    } catch {
      return false;
    }
  }

  ref(): void {}
  unref(): void {}
  disconnect(): void {}
}

export function spawn(command: string, args?: unknown, options?: unknown): ChildProcess {
  return new ChildProcess().start(normalize(command, args, options));
}

interface SyncResult {
  pid?: number;
  output?: (unknown | null)[] | null;
  stdout?: unknown;
  stderr?: unknown;
  status?: number | null;
  signal?: string | null;
  error?: Error;
}

function decode(bytes: Uint8Array, encoding: string | undefined): unknown {
  const buffer = B.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return encoding && encoding !== 'buffer' ? buffer.toString(encoding) : buffer;
}

export function spawnSync(command: string, args?: unknown, options?: unknown): SyncResult {
  const n = normalize(command, args, options);
  const result: SyncResult = { pid: undefined };
  const input = n.options.input;
  const stdio: [DenoStdio, DenoStdio, DenoStdio] = [input === undefined ? n.stdio[0] === 'piped' ? 'null' : n.stdio[0] : 'piped', n.stdio[1], n.stdio[2]];
  let out;
  try {
    out = commandOf(n, stdio, input === undefined ? {} : { input: typeof input === 'string' ? input : new Uint8Array(input) }).outputSync();
  } catch (error) {
    // Deno's node:child_process: a missing program is ENOENT, any other failure to start an empty result
    if (isNotFound(error)) result.error = spawnError('spawnSync', n.file, [n.file, ...n.args]);
    return result;
  }
  result.pid = 0;
  const stdout = n.stdio[1] === 'piped' ? decode(out.stdout, n.options.encoding) : null;
  const stderr = n.stdio[2] === 'piped' ? decode(out.stderr, n.options.encoding) : null;
  result.output = [null, stdout, stderr];
  result.stdout = stdout;
  result.stderr = stderr;
  result.status = out.signal ? null : out.code;
  result.signal = out.signal;
  return result;
}

function commandFailed(cmd: string, result: SyncResult | { status?: number | null; signal?: string | null; stderr?: unknown; stdout?: unknown }): Error {
  const stderr = result.stderr ? String(result.stderr) : '';
  const error = new Error(`Command failed: ${cmd}${stderr ? `\n${stderr}` : ''}`) as Error & Record<string, unknown>;
  Object.assign(error, { status: result.status, signal: result.signal, output: [null, result.stdout, result.stderr], pid: (result as SyncResult).pid, stdout: result.stdout, stderr: result.stderr });
  return error;
}

export function execFileSync(file: string, args?: unknown, options?: unknown): unknown {
  const n = normalize(file, args, options);
  const result = spawnSync(file, Array.isArray(args) ? args : [], { ...(Array.isArray(args) ? options : args) as object, stdio: (n.options.stdio ?? ['pipe', 'pipe', 'inherit']) as Stdio[] });
  if (result.error || result.status !== 0) throw commandFailed(n.shownCommand, result);
  return result.stdout;
}

export function execSync(command: string, options?: SpawnOptions): unknown {
  validateString(command, 'command');
  const o = { ...(options ?? {}), shell: options?.shell ?? true, stdio: options?.stdio ?? (['pipe', 'pipe', 'inherit'] as Stdio[]) };
  const result = spawnSync(command, [], o);
  if (result.error || result.status !== 0) throw commandFailed(command, result);
  return result.stdout;
}

type ExecCallback = (error: Error | null, stdout: unknown, stderr: unknown) => void;

function collect(child: ChildProcess, cmd: string, encoding: string | undefined, callback: ExecCallback | undefined, maxBuffer = 1024 * 1024): ChildProcess {
  const out: Uint8Array[] = [];
  const err: Uint8Array[] = [];
  child.stdout?.on('data', (c: Uint8Array) => out.push(c));
  child.stderr?.on('data', (c: Uint8Array) => err.push(c));
  const done = (error: Error | null, code: number | null, signal: string | null): void => {
    const stdoutBytes = B.concat(out);
    const stderrBytes = B.concat(err);
    const stdout = encoding === 'buffer' ? stdoutBytes : stdoutBytes.toString(encoding ?? 'utf8');
    const stderr = encoding === 'buffer' ? stderrBytes : stderrBytes.toString(encoding ?? 'utf8');
    let failure = error;
    if (!failure && (code !== 0 || signal !== null)) {
      failure = new Error(`Command failed: ${cmd}\n${String(stderr)}`);
      Object.assign(failure, { code, killed: child.killed, signal, cmd });
    }
    if (out.reduce((n, c) => n + c.byteLength, 0) > maxBuffer && !failure) failure = Object.assign(new RangeError('stdout maxBuffer length exceeded'), { code: 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER' });
    callback?.(failure, stdout, stderr);
  };
  let errored = false;
  child.on('error', (e: Error) => {
    errored = true;
    done(e, null, null);
  });
  child.on('close', (code: number | null, signal: string | null) => {
    if (!errored) done(null, code, signal);
  });
  return child;
}

export function execFile(file: string, ...rest: unknown[]): ChildProcess {
  const callback = typeof rest.at(-1) === 'function' ? (rest.pop() as ExecCallback) : undefined;
  const args = Array.isArray(rest[0]) ? (rest.shift() as string[]) : [];
  const options = (rest[0] ?? {}) as SpawnOptions;
  const child = spawn(file, args, options);
  return collect(child, [file, ...args].join(' '), options.encoding, callback, options.maxBuffer);
}

export function exec(command: string, optionsOrCallback?: SpawnOptions | ExecCallback, maybeCallback?: ExecCallback): ChildProcess {
  validateString(command, 'command');
  const callback = typeof optionsOrCallback === 'function' ? optionsOrCallback : maybeCallback;
  if (callback !== undefined) validateFunction(callback, 'callback');
  const options = typeof optionsOrCallback === 'object' && optionsOrCallback !== null ? optionsOrCallback : {};
  const child = spawn(command, [], { ...options, shell: options.shell ?? true });
  return collect(child, command, options.encoding, callback, options.maxBuffer);
}

// util.promisify(exec / execFile) resolves to { stdout, stderr }, as in Node
for (const fn of [exec, execFile]) {
  Object.defineProperty(fn, Symbol.for('nodejs.util.promisify.custom'), {
    value: (...args: unknown[]) =>
      new Promise((resolve, reject) => {
        (fn as (...a: unknown[]) => unknown)(...args, (error: Error | null, stdout: unknown, stderr: unknown) => {
          if (error) reject(Object.assign(error, { stdout, stderr }));
          else resolve({ stdout, stderr });
        });
      }),
  });
}

const childProcess = {
  ChildProcess,
  spawn,
  spawnSync,
  exec,
  execSync,
  execFile,
  execFileSync,
  // Node's IPC channel to a child Node process has no equivalent in the sandbox
  fork: unsupportedFunction('child_process.fork', 'there is no Node IPC channel in the sandbox'),
  _forkChild: unsupportedFunction('child_process._forkChild'),
};
Object.defineProperty(childProcess, 'default', { value: childProcess, enumerable: false });

export const modules = { child_process: childProcess };
