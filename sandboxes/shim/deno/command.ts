/**
 * `new Deno.Command(cmd, options)`: `output()`, `outputSync()` and `spawn()`. The host runs
 * the child through the subprocess runner (only the given environment, a wall limit, an
 * output cap, the whole process group killed on timeout); `spawn()` lives in the
 * child-process part (piped stdio as web streams). `stdout: 'inherit'` is copied to the
 * run's own output.
 */
import { callAsync, callSync, syncMayWait } from '../host.ts';
import { requirePart } from '../parts-loader.ts';
import { base64ToBytes, bytesToBase64 } from '../web/base64.ts';
import { PRIVATE_INSPECT } from '../web/inspect.ts';
import { TextDecoder, TextEncoder } from '../web/text-encoding.ts';
import { reportUnanswered } from '../unsupported.ts';
import { toPath } from './fs.ts';

export interface CommandOptions {
  args?: string[];
  cwd?: string | URL;
  env?: Record<string, string>;
  clearEnv?: boolean;
  stdin?: 'null' | 'inherit' | 'piped';
  stdout?: 'piped' | 'null' | 'inherit';
  stderr?: 'piped' | 'null' | 'inherit';
  signal?: { aborted: boolean; reason: unknown };
  uid?: number;
  gid?: number;
  windowsRawArguments?: boolean;
  detached?: boolean;
  /** Not Deno: bytes or text fed to stdin (Deno needs spawn() for that). */
  input?: string | Uint8Array;
}

interface URL {
  pathname: string;
}

interface RawOutput {
  code: number;
  signal: string | null;
  stdout: string;
  stderr: string;
}

/** Deno's CommandOutput: stdout/stderr are getters that throw when the stream was not piped. */
export function commandOutput(code: number, signal: string | null, streams: { stdout: Uint8Array | null; stderr: Uint8Array | null }): Record<string, unknown> {
  const output: Record<string, unknown> = { success: code === 0 && signal === null, code, signal };
  // no array iteration: a script may have replaced Array.prototype[Symbol.iterator] (Deno's own test does)
  const define = (name: 'stdout' | 'stderr') =>
    Object.defineProperty(output, name, {
      enumerable: true,
      configurable: true,
      get() {
        const value = streams[name];
        if (value === null) throw new TypeError(`Cannot get '${name}': '${name}' is not piped`);
        return value;
      },
    });
  define('stdout');
  define('stderr');
  return output;
}

/** The child's output on a stream the script left as 'inherit' goes to the run's own output. */
export function writeInherited(fd: 1 | 2, bytes: Uint8Array): void {
  if (bytes.byteLength > 0) callSync('io.write', { fd, text: new TextDecoder().decode(bytes) });
}

/**
 * `make()`, the wire form of a spawn; one the shim refuses to send (a piped stdin `output()`
 * cannot take, options of the wrong shape: Deno's TypeErrors, before any check) is still an
 * attempt to run the program, reported to the broker first (kernel/broker/attempts.ts).
 */
export function spawnRequest<T>(command: string, make: () => T): T {
  try {
    return make();
  } catch (error) {
    reportUnanswered('run.output', { command });
    throw error;
  }
}

export function wireCommand(command: string, o: CommandOptions): Record<string, unknown> {
  return {
    command,
    args: (o.args ?? []).map(String),
    cwd: o.cwd === undefined ? null : toPath(o.cwd),
    env: o.env ?? {},
    clearEnv: Boolean(o.clearEnv),
  };
}

export class Command {
  readonly #command: string;
  readonly #options: CommandOptions;

  constructor(command: string | URL, options: CommandOptions = {}) {
    if (arguments.length === 0) throw new TypeError("Failed to construct 'Deno.Command': 1 argument required, but only 0 present");
    this.#command = toPath(command);
    this.#options = options ?? {};
  }

  #request(): Record<string, unknown> {
    const o = this.#options;
    if (o.stdin === 'piped' && o.input === undefined) {
      throw new TypeError("Piped stdin is not supported for this function, use 'Deno.Command.spawn()' instead");
    }
    const input = o.input === undefined ? null : bytesToBase64(typeof o.input === 'string' ? new TextEncoder().encode(o.input) : o.input);
    // inherit is fetched too: the shim writes it to the run's output
    return { ...wireCommand(this.#command, o), input, stdout: o.stdout === 'null' ? 'null' : 'piped', stderr: o.stderr === 'null' ? 'null' : 'piped' };
  }

  #finish(raw: RawOutput): Record<string, unknown> {
    const o = this.#options;
    const stdout = base64ToBytes(raw.stdout);
    const stderr = base64ToBytes(raw.stderr);
    if (o.stdout === 'inherit') writeInherited(1, stdout);
    if (o.stderr === 'inherit') writeInherited(2, stderr);
    return commandOutput(raw.code, raw.signal, {
      stdout: o.stdout === undefined || o.stdout === 'piped' ? stdout : null,
      stderr: o.stderr === undefined || o.stderr === 'piped' ? stderr : null,
    });
  }

  /**
   * As Deno's: what can be told at once (piped stdin, an aborted signal) throws at once; the
   * rest comes through the promise. Built without `.then` and array iteration, so a script
   * that replaced Promise.prototype.then or Array.prototype[Symbol.iterator] still gets its
   * output.
   */
  output(): Promise<Record<string, unknown>> {
    const request = spawnRequest(this.#command, () => this.#request());
    if (this.#options.signal?.aborted) {
      // nothing runs, but the script tried: the attempt is the broker's to audit all the same
      reportUnanswered('run.output', { command: this.#command });
      throw this.#options.signal.reason;
    }
    // With a signal, a spawned child (which an abort can kill, as Deno's output() is) collected whole.
    if (this.#options.signal !== undefined && this.#options.input === undefined) {
      const o = this.#options;
      const child = this.#spawnWith({ ...o, stdin: o.stdin ?? 'null', stdout: o.stdout ?? 'piped', stderr: o.stderr ?? 'piped' }) as { output(): Promise<Record<string, unknown>> };
      return child.output();
    }
    return this.#output(request);
  }

  async #output(request: Record<string, unknown>): Promise<Record<string, unknown>> {
    return this.#finish(await callAsync<RawOutput>('run.output', request));
  }

  outputSync(): Record<string, unknown> {
    if (!syncMayWait()) {
      // An attempt to run the program all the same: the broker audits it and answers NotCapable
      // without the grant (as Deno would), else this tier's NotSupported.
      callSync('attempt.unsupported', { api: 'Deno.Command.outputSync', op: 'run.output', args: { command: this.#command }, hint: 'in the trusted tier it would block the kernel; use output()' });
    }
    return this.#finish(callSync<RawOutput>('run.output', spawnRequest(this.#command, () => this.#request())));
  }

  spawn(): unknown {
    return this.#spawnWith(this.#options);
  }

  #spawnWith(options: CommandOptions): unknown {
    return requirePart<{ spawn: (command: string, options: CommandOptions) => unknown }>('child-process').spawn(this.#command, options);
  }

  get [Symbol.toStringTag](): string {
    return 'Deno.Command';
  }

  [PRIVATE_INSPECT](): unknown {
    return 'Command {}';
  }
}
