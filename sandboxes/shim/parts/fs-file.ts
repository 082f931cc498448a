/**
 * `Deno.open`, `Deno.create`, `Deno.FsFile`, `Deno.SeekMode`, and `Deno.stdin`,
 * `Deno.stdout`, `Deno.stderr`. An FsFile holds the rid of a host resource (kernel/broker/
 * ops/fs-file.ts); its `readable` and `writable` are web streams over its reads and writes.
 * The standard streams are the run's own: stdout and stderr write through the runtime (and
 * count against the output cap), stdin is empty (a sandboxed run has no terminal).
 */
import { callSync } from '../host.ts';
import { base64ToBytes, bytesToBase64 } from '../web/base64.ts';
import { toFileInfo, toPath, type PathLike } from '../deno/fs.ts';
import { denoNamespace } from '../deno/namespace-ref.ts';
import { TextDecoder } from '../web/text-encoding.ts';
import { unsupportedError } from '../unsupported.ts';
import { errors } from '../deno/errors.ts';
import { PRIVATE_INSPECT } from '../web/inspect.ts';
import { ReadableStream, WritableStream } from './streams.ts';

const INTERNAL = Symbol('internal');
const CHUNK = 64 * 1024;

export interface OpenOptions {
  read?: boolean;
  write?: boolean;
  append?: boolean;
  truncate?: boolean;
  create?: boolean;
  createNew?: boolean;
  mode?: number;
}

type RawInfo = Parameters<typeof toFileInfo>[0];

function seconds(time: number | Date): number {
  return time instanceof Date ? time.getTime() / 1000 : Number(time);
}

function into(target: Uint8Array, data: string | null): number | null {
  if (data === null) return null;
  const bytes = base64ToBytes(data);
  target.set(bytes);
  return bytes.byteLength;
}

export class FsFile {
  readonly #rid: number;
  #closed = false;
  #readable: ReadableStream<Uint8Array> | undefined;
  #writable: WritableStream<Uint8Array> | undefined;

  constructor(...args: unknown[]) {
    if (args[1] !== INTERNAL) throw new TypeError("'Deno.FsFile' cannot be constructed, use 'Deno.open()' or 'Deno.openSync()' instead");
    this.#rid = args[0] as number;
  }

  #op<T>(op: string, args: Record<string, unknown> = {}): T {
    if (this.#closed) throw new errors.BadResource!('Bad resource ID');
    return callSync<T>(op, { rid: this.#rid, ...args });
  }

  readSync(p: Uint8Array): number | null {
    if (!(p instanceof Uint8Array)) throw new TypeError('Argument 1 must be a Uint8Array');
    if (p.byteLength === 0) return 0;
    return into(p, this.#op<string | null>('fs.file.read', { length: p.byteLength }));
  }

  async read(p: Uint8Array): Promise<number | null> {
    return this.readSync(p);
  }

  writeSync(p: Uint8Array): number {
    if (!(p instanceof Uint8Array)) throw new TypeError('Argument 1 must be a Uint8Array');
    return this.#op<number>('fs.file.write', { base64: bytesToBase64(p) });
  }

  async write(p: Uint8Array): Promise<number> {
    return this.writeSync(p);
  }

  seekSync(offset: number | bigint, whence: number): number {
    return this.#op<number>('fs.file.seek', seekArgs(offset, whence));
  }

  async seek(offset: number | bigint, whence: number): Promise<number> {
    return this.seekSync(offset, whence);
  }

  statSync(): Record<string, unknown> {
    return toFileInfo(this.#op<RawInfo>('fs.file.stat'));
  }

  async stat(): Promise<Record<string, unknown>> {
    return this.statSync();
  }

  truncateSync(len?: number): void {
    // a negative length is 0, as in Deno
    this.#op('fs.file.truncate', { len: Math.max(0, len ?? 0) });
  }

  async truncate(len?: number): Promise<void> {
    this.truncateSync(len);
  }

  syncSync(): void {
    this.#op('fs.file.sync', { dataOnly: false });
  }

  async sync(): Promise<void> {
    this.syncSync();
  }

  syncDataSync(): void {
    this.#op('fs.file.sync', { dataOnly: true });
  }

  async syncData(): Promise<void> {
    this.syncDataSync();
  }

  utimeSync(atime: number | Date, mtime: number | Date): void {
    this.#op('fs.file.utime', { atime: seconds(atime), mtime: seconds(mtime) });
  }

  async utime(atime: number | Date, mtime: number | Date): Promise<void> {
    this.utimeSync(atime, mtime);
  }

  isTerminal(): boolean {
    return false;
  }

  setRaw(): never {
    throw unsupportedError('Deno.FsFile.setRaw', 'there is no terminal in the sandbox');
  }

  lockSync(): never {
    throw unsupportedError('Deno.FsFile.lockSync');
  }
  async lock(): Promise<never> {
    throw unsupportedError('Deno.FsFile.lock');
  }
  tryLockSync(): never {
    throw unsupportedError('Deno.FsFile.tryLockSync');
  }
  async tryLock(): Promise<never> {
    throw unsupportedError('Deno.FsFile.tryLock');
  }
  unlockSync(): never {
    throw unsupportedError('Deno.FsFile.unlockSync');
  }
  async unlock(): Promise<never> {
    throw unsupportedError('Deno.FsFile.unlock');
  }

  close(): void {
    this.#op('fs.file.close');
    this.#closed = true;
  }

  [Symbol.dispose ?? Symbol.for('Symbol.dispose')](): void {
    if (!this.#closed) this.close();
  }

  /** The file's remaining bytes as a stream; the file closes when the stream ends. */
  get readable(): ReadableStream<Uint8Array> {
    this.#readable ??= new ReadableStream<Uint8Array>({
      pull: (controller) => {
        const buffer = new Uint8Array(CHUNK);
        const n = this.readSync(buffer);
        if (n === null) {
          controller.close();
          if (!this.#closed) this.close();
        } else controller.enqueue(buffer.subarray(0, n));
      },
      cancel: () => {
        if (!this.#closed) this.close();
      },
    });
    return this.#readable;
  }

  get writable(): WritableStream<Uint8Array> {
    this.#writable ??= new WritableStream<Uint8Array>({
      write: (chunk) => {
        let at = 0;
        while (at < chunk.byteLength) at += this.writeSync(chunk.subarray(at));
      },
      close: () => {
        if (!this.#closed) this.close();
      },
      abort: () => {
        if (!this.#closed) this.close();
      },
    });
    return this.#writable;
  }

  get [Symbol.toStringTag](): string {
    return 'FsFile';
  }

  [PRIVATE_INSPECT](): unknown {
    return 'FsFile {}';
  }
}

function openFile(path: PathLike, options: OpenOptions = { read: true }): FsFile {
  const rid = callSync<number>('fs.open', { path: toPath(path), options: options ?? { read: true } });
  return new FsFile(rid, INTERNAL);
}

/**
 * Deno's conversions of seek's arguments, before the op: the offset a number (truncated) or a
 * BigInt, the whence a number taken as an i32 (so 1.5 is 1 and 2^33 is 0), then one of the
 * three modes.
 */
function seekArgs(offset: unknown, whence: unknown): { offset: number; whence: number } {
  if (typeof offset !== 'number' && typeof offset !== 'bigint') throw new TypeError('expected f64');
  if (typeof whence !== 'number') throw new TypeError('expected i32');
  const mode = whence | 0;
  if (mode < 0 || mode > 2) throw new TypeError(`Invalid seek mode: ${mode}`);
  const at = typeof offset === 'bigint' ? Number(offset) : Number.isNaN(offset) ? 0 : Math.trunc(offset);
  return { offset: at, whence: mode };
}

const CREATE: OpenOptions = { read: true, write: true, create: true, truncate: true };

const SeekMode = Object.freeze({ 0: 'Start', 1: 'Current', 2: 'End', Start: 0, Current: 1, End: 2 });

/** The run's own stdout or stderr: writes go through the runtime, like console output. */
interface OutputState {
  fd: 1 | 2;
  decoder: TextDecoder;
  writable?: WritableStream<Uint8Array>;
}
const outputs = new WeakMap<object, OutputState>();

function outputState(self: object): OutputState {
  const state = outputs.get(self);
  if (!state) throw new TypeError('Illegal invocation');
  return state;
}

class Stdout {
  constructor(...args: unknown[]) {
    if (args[1] !== INTERNAL) throw new TypeError('Illegal constructor');
    outputs.set(this, { fd: args[0] as 1 | 2, decoder: new TextDecoder() });
  }

  /** Soft-removed in Deno 2 but still there: the standard streams' rids are 0, 1 and 2. */
  get rid(): number {
    return outputState(this).fd;
  }

  async write(p: Uint8Array): Promise<number> {
    return this.writeSync(p);
  }

  writeSync(p: Uint8Array): number {
    if (!(p instanceof Uint8Array)) throw new TypeError('Argument 1 must be a Uint8Array');
    const state = outputState(this);
    callSync('io.write', { fd: state.fd, text: state.decoder.decode(p, { stream: true }) });
    return p.byteLength;
  }

  close(): void {}

  get writable(): WritableStream<Uint8Array> {
    const state = outputState(this);
    state.writable ??= new WritableStream<Uint8Array>({ write: (chunk) => void this.writeSync(chunk) });
    return state.writable;
  }

  isTerminal(): boolean {
    return false;
  }
}

/** Stderr: Stdout's members on a prototype of its own, as Deno's classes are two. */
class Stderr {
  constructor(...args: unknown[]) {
    if (args[1] !== INTERNAL) throw new TypeError('Illegal constructor');
    outputs.set(this, { fd: args[0] as 1 | 2, decoder: new TextDecoder() });
  }
}
for (const key of Reflect.ownKeys(Stdout.prototype)) {
  if (key !== 'constructor') Object.defineProperty(Stderr.prototype, key, Object.getOwnPropertyDescriptor(Stdout.prototype, key)!);
}

/** The run's stdin: empty (a sandboxed run has no terminal and reads no input). */
class Stdin {
  #readable: ReadableStream<Uint8Array> | undefined;

  constructor(...args: unknown[]) {
    if (args[0] !== INTERNAL) throw new TypeError('Illegal constructor');
  }

  get rid(): number {
    return 0;
  }

  async read(_p: Uint8Array): Promise<number | null> {
    return null;
  }

  readSync(_p: Uint8Array): number | null {
    return null;
  }

  close(): void {}

  get readable(): ReadableStream<Uint8Array> {
    this.#readable ??= new ReadableStream<Uint8Array>({ start: (c) => c.close() });
    return this.#readable;
  }

  setRaw(): void {
    throw unsupportedError('Deno.stdin.setRaw', 'there is no terminal in the sandbox');
  }

  isTerminal(): boolean {
    return false;
  }
}

const deno = denoNamespace();
const define = (name: string, value: unknown): void => {
  Object.defineProperty(deno, name, { value, writable: true, configurable: true, enumerable: true });
};
define('FsFile', FsFile);
define('SeekMode', SeekMode);
define('open', async (path: PathLike, options?: OpenOptions) => openFile(path, options));
define('openSync', (path: PathLike, options?: OpenOptions) => openFile(path, options));
define('create', async (path: PathLike) => openFile(path, CREATE));
define('createSync', (path: PathLike) => openFile(path, CREATE));
define('stdin', new Stdin(INTERNAL));
define('stdout', new Stdout(1, INTERNAL));
define('stderr', new Stderr(2, INTERNAL));
