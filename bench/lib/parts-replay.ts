/**
 * The floor of a persona cycle: "the sum of its parts", done raw. Replays the parts a round
 * of cycles made (cycle-census.ts) with nothing of the kernel around them:
 *
 *   plugin call   one raw isolated-vm applySync of `echo` in a bare context, with the call's
 *                 own arguments copied in and out (no shim, no broker, no JSON envelope)
 *   event append  one write of the same bytes on an O_DSYNC file (write + fdatasync in one
 *                 call, as the kernel's log does it), awaited
 *   file writes   the same open / writeSync / fsync / close / writeFileSync / rename /
 *                 unlink calls with the same byte counts, on scratch files
 *
 * Each persona's parts run in order in one async function and all personas run side by
 * side (Promise.all), awaiting where the kernel awaits (after a plugin call, on an append),
 * so the floor gets the same overlap of one persona's log sync with another's work as the
 * kernel does. Reads, stats, realpaths and mkdirs are not parts: an implementation could
 * keep what it reads in memory; they are counted in the notes instead.
 */
import fs from 'node:fs';
import path from 'node:path';
import ivm from 'isolated-vm';
import type { Part, RoundCensus } from './cycle-census.ts';

const O_DSYNC: number = fs.constants.O_DSYNC ?? 0;
const LOG_FLAGS = fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT | O_DSYNC;

/** A prepared round: the arguments of every call parsed into fresh values, outside the timing. */
export interface PreparedRound {
  personas: Part[][];
  cycles: number;
}

function writeAsync(fd: number, bytes: Buffer, length: number): Promise<void> {
  return new Promise((resolve, reject) => fs.write(fd, bytes, 0, length, null, (error) => (error ? reject(error) : resolve())));
}

/** Callback-style fs as promises, as kernel/storage/durable-files.ts replaceFileDurablyAsync does them. */
function openAsync(file: string, flags: string | number): Promise<number> {
  return new Promise((resolve, reject) => fs.open(file, flags, 0o644, (error, fd) => (error ? reject(error) : resolve(fd))));
}
function fsyncAsync(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fs.fsync(fd, (error) => (error ? reject(error) : resolve())));
}
function closeAsync(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fs.close(fd, (error) => (error ? reject(error) : resolve())));
}
/** A rename whose source is gone (the kernel's temp file was replayed away) is skipped, as ignoreMissing does. */
function renameAsync(from: string, to: string): Promise<void> {
  return new Promise((resolve, reject) => fs.rename(from, to, (error) => (error && error.code !== 'ENOENT' ? reject(error) : resolve())));
}

/** The kernel's exclusive-create flags become plain creates: a lock file left by an aborted replay must not stop the next. */
function replayFlags(flags: string | number): string | number {
  if (typeof flags === 'number') return flags & ~fs.constants.O_EXCL;
  return flags.replace('x', '');
}

/** A rename or unlink of a file the kernel made before the recorded round costs the same call, found or not. */
function ignoreMissing(op: () => void): void {
  try {
    op();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

export class PartsReplay {
  readonly dir: string;
  #isolate = new ivm.Isolate({ memoryLimit: 64 });
  #echo: ivm.Reference;
  #scratch = new Map<string, string>();
  #logs = new Map<string, number>();
  #bytes = Buffer.alloc(1 << 16, 0x61);

  constructor(dir: string) {
    this.dir = dir;
    fs.mkdirSync(dir, { recursive: true });
    const context = this.#isolate.createContextSync();
    context.evalSync('globalThis.echo = function (x) { return x; };');
    this.#echo = context.global.getSync('echo', { reference: true }) as ivm.Reference;
  }

  #file(file: string): string {
    let mapped = this.#scratch.get(file);
    if (!mapped) this.#scratch.set(file, (mapped = path.join(this.dir, `f${this.#scratch.size}`)));
    return mapped;
  }

  #log(file: string, dsync: boolean): number {
    const key = `${dsync ? 'dsync' : 'plain'}:${file}`;
    let fd = this.#logs.get(key);
    if (fd === undefined) {
      fd = fs.openSync(path.join(this.dir, `log${this.#logs.size}`), dsync ? LOG_FLAGS : LOG_FLAGS & ~O_DSYNC, 0o644);
      this.#logs.set(key, fd);
    }
    return fd;
  }

  #buffer(bytes: number): Buffer {
    if (bytes > this.#bytes.length) this.#bytes = Buffer.alloc(bytes, 0x61);
    return this.#bytes;
  }

  /** Copies the calls' arguments (they are echoed, so the floor never shares values with the kernel). */
  prepare(round: RoundCensus, cycles: number): PreparedRound {
    const personas: Part[][] = [];
    for (const parts of round.parts.values()) {
      personas.push(parts.map((p) => (p.k === 'call' ? { k: 'call', args: JSON.parse(JSON.stringify(p.args)) as unknown[] } : p)));
    }
    return { personas, cycles };
  }

  async #persona(parts: readonly Part[]): Promise<void> {
    const fds = new Map<number, number>();
    const fdOf = (fd: number, file: string) => {
      let raw = fds.get(fd);
      if (raw === undefined) fds.set(fd, (raw = fs.openSync(this.#file(file), 'a')));
      return raw;
    };
    try {
      for (const p of parts) {
        switch (p.k) {
          case 'call':
            this.#echo.applySync(undefined, p.args as unknown[], { arguments: { copy: true }, result: { copy: true } });
            await undefined;
            break;
          case 'append':
            await writeAsync(this.#log(p.file, p.dsync), this.#buffer(p.bytes), p.bytes);
            break;
          // Parts the kernel did off the main thread (async) are done off it here too.
          case 'open':
            fds.set(p.fd, p.async ? await openAsync(this.#file(p.file), replayFlags(p.flags)) : fs.openSync(this.#file(p.file), replayFlags(p.flags), 0o644));
            break;
          case 'write':
            if (p.async) await writeAsync(fdOf(p.fd, p.file), this.#buffer(p.bytes), p.bytes);
            else fs.writeSync(fdOf(p.fd, p.file), this.#buffer(p.bytes), 0, p.bytes);
            break;
          case 'fsync':
            if (p.async) await fsyncAsync(fdOf(p.fd, p.file));
            else fs.fsyncSync(fdOf(p.fd, p.file));
            break;
          case 'close': {
            const raw = fds.get(p.fd);
            if (raw !== undefined) {
              if (p.async) await closeAsync(raw);
              else fs.closeSync(raw);
            }
            fds.delete(p.fd);
            break;
          }
          case 'writeFile':
            fs.writeFileSync(this.#file(p.file), this.#buffer(p.bytes).subarray(0, p.bytes), { flag: String(replayFlags(p.flag)) });
            break;
          case 'rename':
            if (p.async) await renameAsync(this.#file(p.from), this.#file(p.to));
            else ignoreMissing(() => fs.renameSync(this.#file(p.from), this.#file(p.to)));
            break;
          case 'unlink':
            ignoreMissing(() => fs.unlinkSync(this.#file(p.file)));
            break;
        }
      }
    } finally {
      for (const raw of fds.values()) fs.closeSync(raw);
    }
  }

  /** Runs every persona's parts side by side; resolves when all are done. */
  async run(round: PreparedRound): Promise<void> {
    await Promise.all(round.personas.map((parts) => this.#persona(parts)));
  }

  dispose(): void {
    for (const fd of this.#logs.values()) fs.closeSync(fd);
    this.#logs.clear();
    this.#echo.release();
    this.#isolate.dispose();
  }
}
