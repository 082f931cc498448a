/**
 * Counts the parts persona cycles are made of, by instrumenting the running kernel instead of
 * guessing: every file write, fsync, rename and unlink made through node:fs, every event-log
 * append (a write on an O_DSYNC file), and every plugin call, in order and per persona, so
 * the floor (parts-replay.ts) can do exactly the same parts raw. It also adds up the main
 * thread's time in synchronous fs calls (per call and file) and in plugin calls, which says
 * what dominates a cycle.
 *
 * How: the node:fs functions are wrapped and `syncBuiltinESMExports()` pushes the wrappers
 * into every ESM `import { … } from 'node:fs'` binding; `PluginInstance.prototype.call`
 * (which plugin, for whom, with what) is wrapped too. Install before the personas open (so
 * every fd's file and flags are known) and uninstall when done: everything is put back.
 *
 * Two levels, so the timed rounds stay nearly untouched:
 *   recording  the parts only: the write-side wrappers push one record per write, fsync,
 *              rename, unlink, append or plugin call (a few dozen per cycle);
 *   profiling  also counts and times every synchronous fs call (reads, stats, realpaths and
 *              mkdirs included: their wrappers exist only while profiling) and the
 *              synchronous stretch of each plugin call (`IsolateRuntime.prototype.call` up to
 *              its first await: JSON, applySync and the broker ops the plugin makes). This
 *              costs ~15% and is only used in untimed rounds.
 */
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import path from 'node:path';
import { PluginInstance } from '../../features/plugin-host/plugin-instance.ts';
import { IsolateRuntime } from '../../sandboxes/isolate/isolate-runtime.ts';

/** One part of a cycle, as the replay needs it. Files are absolute paths in the state dir. */
export type Part =
  /** a plugin call: the arguments as given (echoed raw by the floor) */
  | { k: 'call'; args: readonly unknown[] }
  /** an asynchronous write: on an O_DSYNC file it is an event-log append (write + fdatasync in one call) */
  | { k: 'append'; file: string; bytes: number; dsync: boolean }
  | { k: 'open'; fd: number; file: string; flags: string | number; async?: true }
  | { k: 'write'; fd: number; file: string; bytes: number; async?: true }
  | { k: 'fsync'; fd: number; file: string; async?: true }
  | { k: 'close'; fd: number; async?: true }
  | { k: 'writeFile'; file: string; bytes: number; flag: string }
  | { k: 'rename'; from: string; to: string; async?: true }
  | { k: 'unlink'; file: string };

export interface RoundCensus {
  /** the parts of each persona's cycle(s), in the order they were made */
  parts: Map<string, Part[]>;
  /** how many of each kind of call (fs function or `plugin call`) were made */
  counts: Map<string, number>;
  /** main-thread milliseconds per `<fs function> <file class>` and per `plugin call <export>` */
  timeMs: Map<string, number>;
}

const O_DSYNC: number = fs.constants.O_DSYNC ?? 0;
const WRITE_ACCESS = fs.constants.O_WRONLY | fs.constants.O_RDWR;

function isWriteFlag(flags: unknown): boolean {
  if (flags === undefined || flags === null) return false;
  if (typeof flags === 'number') return (flags & WRITE_ACCESS) !== 0;
  return !/^rs?$/.test(String(flags));
}

function byteLength(data: unknown, encoding?: unknown): number {
  if (typeof data === 'string') return Buffer.byteLength(data, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
  if (ArrayBuffer.isView(data)) return data.byteLength;
  return 0;
}

/** The fs functions wrapped only while profiling: counted and timed, never parts. */
const SYNC_PATH_FNS = ['readFileSync', 'statSync', 'lstatSync', 'existsSync', 'realpathSync', 'readdirSync', 'accessSync', 'mkdirSync', 'rmSync', 'copyFileSync'] as const;
const SYNC_FD_FNS = ['readSync', 'fstatSync'] as const;

const absolute = (p: unknown) => {
  const text = String(p);
  return text.startsWith('/') ? text : path.resolve(text);
};

export class CycleCensus {
  readonly stateDir: string;
  recording = false;
  #profiling = false;
  #profileWrappers = new Map<string, unknown>();
  /** raw records, classified at take() so a recorded call costs a push and a string */
  #flat: { owner: string; part: Part }[] = [];
  #counts = new Map<string, number>();
  #times = new Map<string, number>();
  #fds = new Map<number, { file: string; flags: string | number; write: boolean; dsync: boolean; async?: boolean }>();
  #depth = 0;
  #inCall = 0;
  #original = new Map<string, unknown>();
  #originalInstanceCall = PluginInstance.prototype.call;
  #originalRuntimeCall = IsolateRuntime.prototype.call;
  #installed = false;

  constructor(stateDir: string) {
    this.stateDir = path.resolve(stateDir);
  }

  /** Takes what was recorded since the last take. */
  take(): RoundCensus {
    const round = emptyRound();
    for (const { owner, part } of this.#flat) {
      const persona = this.personaOf(owner);
      let list = round.parts.get(persona);
      if (!list) round.parts.set(persona, (list = []));
      list.push(part);
    }
    round.counts = this.#counts;
    for (const [raw, ms] of this.#times) {
      const [prefix, name, file] = raw.split('\0') as [string, string, string];
      const key = name.startsWith('plugin call') ? name : `${prefix}${name} ${this.classOf(file)}`;
      round.timeMs.set(key, (round.timeMs.get(key) ?? 0) + ms);
    }
    this.#flat = [];
    this.#counts = new Map();
    this.#times = new Map();
    return round;
  }

  /** The persona a file belongs to: the first folder under the state directory. */
  personaOf(file: string): string {
    const rel = path.relative(this.stateDir, file);
    if (rel.startsWith('..') || path.isAbsolute(rel)) return '(outside the state directory)';
    return rel.split(path.sep)[0] ?? '(state directory)';
  }

  /** A file's class for the time table: its path under the persona, session folders, hashes and pids folded. */
  classOf(file: string): string {
    const rel = path.relative(this.stateDir, file);
    if (rel.startsWith('..') || path.isAbsolute(rel)) return '(outside the state directory)';
    const parts = rel.split(path.sep).slice(1);
    const fold = (p: string) => (/^c\d{6}-/.test(p) ? '<session>' : p.replace(/[0-9a-f]{8,}/g, '<hash>').replace(/\.\d+\.tmp$/, '.<n>.tmp'));
    return parts.map(fold).join('/') || '<persona folder>';
  }

  #part(owner: string, part: Part): void {
    this.#flat.push({ owner, part });
  }

  #count(key: string): void {
    this.#counts.set(key, (this.#counts.get(key) ?? 0) + 1);
  }

  #time(key: string, ms: number): void {
    this.#times.set(key, (this.#times.get(key) ?? 0) + ms);
  }

  #fdFile(fd: number): string {
    const known = this.#fds.get(fd);
    if (known) return known.file;
    try {
      return fs.readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      return `(fd ${fd})`;
    }
  }

  /**
   * Wraps one synchronous fs function: `record` (the part, or the fd bookkeeping) runs after
   * every top-level call; the call is counted and timed while profiling. Calls made inside
   * another wrapped call (writeFileSync opening its file) belong to the outer one.
   */
  #wrapSync(name: string, fileOf: (args: unknown[]) => string, record?: (args: unknown[], result: unknown) => void): unknown {
    const original = (fs as unknown as Record<string, (...args: unknown[]) => unknown>)[name]!;
    const census = this;
    const wrapper = function (this: unknown, ...args: unknown[]): unknown {
      if (census.#depth > 0) return original.apply(this, args);
      census.#depth++;
      const start = census.#profiling ? performance.now() : 0;
      let result: unknown;
      try {
        result = original.apply(this, args);
      } finally {
        census.#depth--;
      }
      if (census.#profiling) {
        census.#count(name);
        census.#time(`${census.#inCall > 0 ? 'inside plugin calls: ' : ''}\0${name}\0${fileOf(args)}`, performance.now() - start);
      }
      record?.(args, result);
      return result;
    };
    if (name === 'realpathSync') Object.assign(wrapper, { native: (original as unknown as { native: unknown }).native });
    return wrapper;
  }

  #replace(name: string, wrapper: unknown): void {
    if (!this.#original.has(name)) this.#original.set(name, (fs as unknown as Record<string, unknown>)[name]);
    (fs as unknown as Record<string, unknown>)[name] = wrapper;
  }

  /** Wraps one callback-style fs function (write, fsync, fdatasync): recorded when called. */
  #wrapAsync(name: string, record: (args: unknown[]) => void): void {
    const original = (fs as unknown as Record<string, (...args: unknown[]) => unknown>)[name]!;
    const census = this;
    this.#replace(name, function (this: unknown, ...args: unknown[]): unknown {
      if (census.#depth === 0) {
        if (census.#profiling) census.#count(name);
        if (census.recording) record(args);
      }
      return original.apply(this, args);
    });
  }

  /** The callback-style open: the fd is known only in its callback, where the part is recorded. */
  #wrapAsyncOpen(): void {
    const original = fs.open as unknown as (...args: unknown[]) => unknown;
    const census = this;
    this.#replace('open', function (this: unknown, ...args: unknown[]): unknown {
      const callback = args[args.length - 1];
      if (census.#depth > 0 || typeof callback !== 'function') return original.apply(this, args);
      const flags = (args.length > 2 ? args[1] : 'r') as string | number;
      const file = absolute(args[0]);
      const write = isWriteFlag(flags);
      args[args.length - 1] = (error: unknown, fd: number) => {
        if (!error) {
          census.#fds.set(fd, { file, flags, write, dsync: typeof flags === 'number' && O_DSYNC !== 0 && (flags & O_DSYNC) !== 0, async: true });
          if (write && census.recording) census.#part(file, { k: 'open', fd, file, flags, async: true });
        }
        (callback as (error: unknown, fd: number) => void)(error, fd);
      };
      return original.apply(this, args);
    });
  }

  install(): void {
    if (this.#installed) return;
    this.#installed = true;
    const pathArg = (args: unknown[]) => (typeof args[0] === 'number' ? this.#fdFile(args[0]) : String(args[0]));
    const fdArg = (args: unknown[]) => this.#fdFile(args[0] as number);
    for (const name of SYNC_PATH_FNS) this.#profileWrappers.set(name, this.#wrapSync(name, pathArg));
    for (const name of SYNC_FD_FNS) this.#profileWrappers.set(name, this.#wrapSync(name, fdArg));
    const sync = (name: string, fileOf: (args: unknown[]) => string, record: (args: unknown[], result: unknown) => void) => this.#replace(name, this.#wrapSync(name, fileOf, record));
    sync('openSync', pathArg, (args, fd) => {
      const flags = (args[1] ?? 'r') as string | number;
      const write = isWriteFlag(flags);
      const file = absolute(args[0]);
      this.#fds.set(fd as number, { file, flags, write, dsync: typeof flags === 'number' && O_DSYNC !== 0 && (flags & O_DSYNC) !== 0 });
      if (write && this.recording) this.#part(file, { k: 'open', fd: fd as number, file, flags });
    });
    sync('closeSync', fdArg, (args) => {
      const fd = args[0] as number;
      const known = this.#fds.get(fd);
      this.#fds.delete(fd);
      if (known?.write && this.recording) this.#part(known.file, { k: 'close', fd });
    });
    sync('writeSync', fdArg, (args, written) => {
      if (!this.recording) return;
      const file = this.#fdFile(args[0] as number);
      this.#part(file, { k: 'write', fd: args[0] as number, file, bytes: written as number });
    });
    for (const name of ['fsyncSync', 'fdatasyncSync']) {
      sync(name, fdArg, (args) => {
        if (!this.recording) return;
        const file = this.#fdFile(args[0] as number);
        this.#part(file, { k: 'fsync', fd: args[0] as number, file });
      });
    }
    const fileWrite = (defaultFlag: string) => (args: unknown[]) => {
      if (!this.recording) return;
      const options = args[2];
      const flag = (typeof options === 'object' && options !== null && 'flag' in options ? String((options as { flag: unknown }).flag) : defaultFlag) || defaultFlag;
      const encoding = typeof options === 'string' ? options : typeof options === 'object' && options !== null ? (options as { encoding?: unknown }).encoding : undefined;
      const bytes = byteLength(args[1], encoding);
      if (typeof args[0] === 'number') {
        const file = this.#fdFile(args[0]);
        this.#part(file, { k: 'write', fd: args[0], file, bytes });
      } else {
        const file = absolute(args[0]);
        this.#part(file, { k: 'writeFile', file, bytes, flag });
      }
    };
    sync('writeFileSync', pathArg, fileWrite('w'));
    sync('appendFileSync', pathArg, fileWrite('a'));
    sync('renameSync', pathArg, (args) => {
      if (!this.recording) return;
      const from = absolute(args[0]);
      this.#part(from, { k: 'rename', from, to: absolute(args[1]) });
    });
    sync('unlinkSync', pathArg, (args) => {
      if (!this.recording) return;
      const file = absolute(args[0]);
      this.#part(file, { k: 'unlink', file });
    });
    this.#wrapAsync('write', (args) => {
      const fd = args[0] as number;
      const data = args[1];
      const bytes = typeof data === 'string' ? byteLength(data, typeof args[3] === 'string' ? args[3] : undefined) : typeof args[3] === 'number' ? args[3] : byteLength(data) - (typeof args[2] === 'number' ? args[2] : 0);
      const file = this.#fdFile(fd);
      const known = this.#fds.get(fd);
      // A file opened by the callback-style open (storage.ts replaceFileDurablyAsync) and written whole: a file write done off-thread.
      if (known?.async) this.#part(file, { k: 'write', fd, file, bytes, async: true });
      else this.#part(file, { k: 'append', file, bytes, dsync: known?.dsync ?? false });
    });
    for (const name of ['fsync', 'fdatasync']) {
      this.#wrapAsync(name, (args) => {
        const fd = args[0] as number;
        const file = this.#fdFile(fd);
        this.#part(file, { k: 'fsync', fd, file, ...(this.#fds.get(fd)?.async ? { async: true as const } : {}) });
      });
    }
    this.#wrapAsyncOpen();
    this.#wrapAsync('close', (args) => {
      const fd = args[0] as number;
      const known = this.#fds.get(fd);
      this.#fds.delete(fd);
      if (known?.write) this.#part(known.file, { k: 'close', fd, async: true });
    });
    this.#wrapAsync('rename', (args) => {
      const from = absolute(args[0]);
      this.#part(from, { k: 'rename', from, to: absolute(args[1]), async: true });
    });
    syncBuiltinESMExports();

    const census = this;
    const instanceCall = this.#originalInstanceCall;
    PluginInstance.prototype.call = function (this: PluginInstance, name: string, ...args: unknown[]): Promise<unknown> {
      if (census.#profiling) census.#count('plugin call');
      if (census.recording) census.#part(this.broker.context.cwd, { k: 'call', args });
      return instanceCall.call(this, name, ...args);
    };
  }

  /** Turns profiling on or off: the read-side wrappers and the plugin-call timer come and go with it. */
  profile(on: boolean): void {
    if (!this.#installed || on === this.#profiling) return;
    this.#profiling = on;
    if (on) {
      for (const [name, wrapper] of this.#profileWrappers) this.#replace(name, wrapper);
      const census = this;
      const runtimeCall = this.#originalRuntimeCall;
      IsolateRuntime.prototype.call = function (this: IsolateRuntime, name: string, args: readonly unknown[], sync?: boolean): Promise<unknown> {
        // An async function runs synchronously up to its first await: for the trusted tier that
        // is the JSON encoding, the applySync and the broker ops the plugin makes meanwhile.
        const start = performance.now();
        census.#inCall++;
        try {
          return runtimeCall.call(this, name, args, sync);
        } finally {
          census.#inCall--;
          census.#time(`\0plugin call ${name} (synchronous stretch)\0`, performance.now() - start);
        }
      };
    } else {
      for (const name of this.#profileWrappers.keys()) {
        (fs as unknown as Record<string, unknown>)[name] = this.#original.get(name);
        this.#original.delete(name);
      }
      IsolateRuntime.prototype.call = this.#originalRuntimeCall;
    }
    syncBuiltinESMExports();
  }

  uninstall(): void {
    if (!this.#installed) return;
    this.profile(false);
    this.#installed = false;
    this.recording = false;
    for (const [name, original] of this.#original) (fs as unknown as Record<string, unknown>)[name] = original;
    this.#original.clear();
    syncBuiltinESMExports();
    PluginInstance.prototype.call = this.#originalInstanceCall;
    IsolateRuntime.prototype.call = this.#originalRuntimeCall;
  }
}

function emptyRound(): RoundCensus {
  return { parts: new Map(), counts: new Map(), timeMs: new Map() };
}

/** Per-cycle means of a round's parts, for the notes. */
export interface PartCounts {
  calls: number;
  appends: number;
  appendBytes: number;
  fileWrites: number;
  writeBytes: number;
  fsyncs: number;
  renames: number;
  unlinks: number;
}

export function countParts(round: RoundCensus, cycles: number): PartCounts {
  const c: PartCounts = { calls: 0, appends: 0, appendBytes: 0, fileWrites: 0, writeBytes: 0, fsyncs: 0, renames: 0, unlinks: 0 };
  for (const parts of round.parts.values()) {
    for (const p of parts) {
      if (p.k === 'call') c.calls++;
      else if (p.k === 'append') {
        c.appends++;
        c.appendBytes += p.bytes;
      } else if (p.k === 'write' || p.k === 'writeFile') {
        c.fileWrites++;
        c.writeBytes += p.bytes;
      } else if (p.k === 'fsync') c.fsyncs++;
      else if (p.k === 'rename') c.renames++;
      else if (p.k === 'unlink') c.unlinks++;
    }
  }
  const per = (x: number) => x / Math.max(1, cycles);
  return {
    calls: per(c.calls),
    appends: per(c.appends),
    appendBytes: c.appends ? c.appendBytes / c.appends : 0,
    fileWrites: per(c.fileWrites),
    writeBytes: c.fileWrites ? c.writeBytes / c.fileWrites : 0,
    fsyncs: per(c.fsyncs),
    renames: per(c.renames),
    unlinks: per(c.unlinks),
  };
}
