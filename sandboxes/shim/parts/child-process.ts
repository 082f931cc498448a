/**
 * `Deno.ChildProcess`, what `new Deno.Command(...).spawn()` returns: `pid`, `stdin` (a
 * WritableStream), `stdout` and `stderr` (ReadableStreams), `status`, `output()`, `kill()`,
 * `ref()`/`unref()`. The child is a host resource (sandboxes/deno/ops/run-spawn.ts); its
 * streams pull and push chunks through the broker. A stream left as 'inherit' is copied to
 * the run's own output, as the child's output reaches Deno's terminal.
 */
import { callAsync, callSync } from '../host.ts';
import { base64ToBytes, bytesToBase64 } from '../web/base64.ts';
import { PRIVATE_INSPECT } from '../web/inspect.ts';
import { commandOutput, spawnRequest, wireCommand, writeInherited, type CommandOptions } from '../deno/command.ts';
import { denoNamespace } from '../deno/namespace-ref.ts';
import { ReadableStream, WritableStream, readAllBytes } from './streams.ts';
import { reportUnanswered } from '../unsupported.ts';

const INTERNAL = Symbol('internal');

interface Status {
  success: boolean;
  code: number;
  signal: string | null;
}

function pullStream(rid: number, fd: 1 | 2): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const chunk = await callAsync<string | null>('run.read', { rid, fd });
      if (chunk === null) controller.close();
      else controller.enqueue(base64ToBytes(chunk));
    },
  });
}

export class ChildProcess {
  readonly #rid: number;
  readonly #pid: number;
  readonly #stdin: WritableStream<Uint8Array> | null;
  readonly #stdout: ReadableStream<Uint8Array> | null;
  readonly #stderr: ReadableStream<Uint8Array> | null;
  readonly #status: Promise<Status>;
  #exited = false;

  constructor(...args: unknown[]) {
    if (args[1] !== INTERNAL) throw new TypeError('Illegal constructor');
    const init = args[0] as { rid: number; pid: number; options: CommandOptions };
    this.#rid = init.rid;
    this.#pid = init.pid;
    const o = init.options;
    const rid = init.rid;
    this.#stdin = o.stdin === 'piped'
      ? new WritableStream<Uint8Array>({
        async write(chunk) {
          await callAsync('run.write', { rid, base64: bytesToBase64(chunk) });
        },
        close() {
          callSync('run.closeStdin', { rid });
        },
        abort() {
          callSync('run.closeStdin', { rid });
        },
      })
      : null;
    const out = o.stdout ?? 'inherit';
    const err = o.stderr ?? 'inherit';
    this.#stdout = out === 'piped' ? pullStream(rid, 1) : null;
    this.#stderr = err === 'piped' ? pullStream(rid, 2) : null;
    // 'inherit': copied to the run's output while the child runs (the pump keeps the run alive)
    const pumps: Promise<void>[] = [];
    for (const [mode, fd] of [[out, 1], [err, 2]] as const) {
      if (mode === 'inherit') pumps.push(pullStream(rid, fd).pipeTo(new WritableStream({ write: (chunk) => writeInherited(fd, chunk) })).catch(() => undefined));
    }
    // As Deno: aborting the command's signal sends the child SIGTERM.
    const signal = o.signal as (CommandOptions['signal'] & { addEventListener?: (type: string, listener: () => void) => void; removeEventListener?: (type: string, listener: () => void) => void }) | undefined;
    const onAbort = () => {
      try {
        this.kill('SIGTERM');
      } catch {
        // already ended
      }
    };
    signal?.addEventListener?.('abort', onAbort);
    this.#status = Promise.all(pumps)
      .then(() => callAsync<Status>('run.wait', { rid }))
      .then((status) => {
        this.#exited = true;
        signal?.removeEventListener?.('abort', onAbort);
        return Object.assign(Object.create(null) as Status, { success: status.success, code: status.code, signal: status.signal });
      });
  }

  get pid(): number {
    return this.#pid;
  }

  get stdin(): WritableStream<Uint8Array> {
    if (!this.#stdin) throw new TypeError("Cannot get 'stdin': 'stdin' is not piped");
    return this.#stdin;
  }

  get stdout(): ReadableStream<Uint8Array> {
    if (!this.#stdout) throw new TypeError("Cannot get 'stdout': 'stdout' is not piped");
    return this.#stdout;
  }

  get stderr(): ReadableStream<Uint8Array> {
    if (!this.#stderr) throw new TypeError("Cannot get 'stderr': 'stderr' is not piped");
    return this.#stderr;
  }

  get status(): Promise<Status> {
    return this.#status;
  }

  async output(): Promise<Record<string, unknown>> {
    if (this.#stdout?.locked) throw new TypeError("Can't collect output because stdout is locked");
    if (this.#stderr?.locked) throw new TypeError("Can't collect output because stderr is locked");
    const [stdout, stderr, status] = await Promise.all([
      this.#stdout ? readAllBytes(this.#stdout) : Promise.resolve(null),
      this.#stderr ? readAllBytes(this.#stderr) : Promise.resolve(null),
      this.#status,
    ]);
    return commandOutput(status.code, status.signal, { stdout, stderr });
  }

  kill(signo: string = 'SIGTERM'): void {
    if (this.#exited) throw new TypeError('Child process has already terminated');
    callSync('run.kill', { rid: this.#rid, signal: signo });
  }

  // The run always waits for its children (the host kills what is left when it ends).
  ref(): void {}

  unref(): void {}

  async [Symbol.asyncDispose ?? Symbol.for('Symbol.asyncDispose')](): Promise<void> {
    try {
      this.kill();
    } catch {
      // already ended
    }
    await this.#status;
  }

  get [Symbol.toStringTag](): string {
    return 'ChildProcess';
  }

  [PRIVATE_INSPECT](): unknown {
    return 'ChildProcess {}';
  }
}

export function spawn(command: string, options: CommandOptions): ChildProcess {
  const o = options ?? {};
  if (o.signal?.aborted) {
    reportUnanswered('run.spawn', { command });
    throw o.signal.reason;
  }
  const request = spawnRequest(command, () => ({
    ...wireCommand(command, o),
    stdin: o.stdin ?? 'inherit',
    stdout: o.stdout ?? 'inherit',
    stderr: o.stderr ?? 'inherit',
  }));
  const { rid, pid } = callSync<{ rid: number; pid: number }>('run.spawn', request);
  return new ChildProcess({ rid, pid, options: o }, INTERNAL);
}

Object.defineProperty(denoNamespace(), 'ChildProcess', { value: ChildProcess, writable: true, configurable: true, enumerable: true });
