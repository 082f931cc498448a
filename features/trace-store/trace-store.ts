/**
 * A persona's trace: `trace/cycles.jsonl` (one line per recorded cycle, appended and
 * fsynced before the cycle's event is written) and `trace/blobs/` (effect texts over the
 * inline limit, the bundles the cycle ran, the profile it ran under), content-addressed.
 *
 * A kill between a trace line and its event leaves a line no event points to; the next run
 * writes that cycle again, and replay takes the line whose hash the event names. A line torn
 * by a kill is saved aside (`cycles.jsonl.torn-<offset>`) and cut before the next append.
 *
 * The trace seals into segments with the event log (features/history-segments): `cycles.jsonl` is the
 * open segment; `trace/segments/NNNNNN.jsonl.gz` the sealed ones, indexed in
 * `trace/index.jsonl` with the cycles each holds; every segment after the first opens with a
 * header line (trace-segments.ts) recording the digest and last hash of the one before, and
 * the event log's `log_segment` header records the trace segment sealed with it, so the
 * event chain covers the trace's segments too. Reading a cycle range reads only the segments
 * that hold it.
 */
import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readFileSync, readSync, ftruncateSync, statSync, writeSync, fdatasyncSync, constants } from 'node:fs';
import { fdatasync, write } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { kernelError } from '../../kernel/errors.ts';
import { syncDirectory, writeAllSyncClose } from '../../kernel/storage/durable-files.ts';
import { contentStore, sha256Digest, type ContentStore } from './content-store.ts';
import type { TraceStorage } from '../../kernel/contracts/trace-storage.ts';
import { INLINE_LIMIT, checkedTraceHash, traceRecordSchema, type TraceRecord, type TracedText } from '../cycle-recording/trace-record.ts';
import { fileHistoryStorage } from '../history-segments/file-storage.ts';
import type { HistoryStorage } from '../../kernel/contracts/history-storage.ts';
import { isTraceHeader, openTraceIndex, sealTrace, traceSegmentsFor, type TraceSealed } from './trace-segments.ts';
import { decompressSegment } from '../history-segments/seal.ts';
import { openRegular } from '../../kernel/storage/safe-read.ts';

const fdatasyncAsync = promisify(fdatasync);
function writeAsync(fd: number, bytes: Buffer, offset: number, length: number): Promise<number> {
  return new Promise((resolve, reject) => write(fd, bytes, offset, length, null, (error, n) => (error ? reject(error) : resolve(n))));
}

export const TRACE_DIR = 'trace';
export const TRACE_FILE = path.join(TRACE_DIR, 'cycles.jsonl');
/** Tool calls made outside any cycle (`runtimectl mcp serve`, `tools call`): one line each, named by a `tool_call` event. */
export const TOOL_TRACE_FILE = path.join(TRACE_DIR, 'tools.jsonl');

export interface TraceLine {
  /** 1-based line in cycles.jsonl */
  line: number;
  record: TraceRecord;
}

export type { TraceStorage };

export class TraceStore {
  readonly personaDir: string;
  readonly file: string;
  readonly blobs: ContentStore;
  /** sealed trace segments, their index and their stubs (features/history-segments) */
  readonly history: HistoryStorage;
  #fd: number | undefined;
  readonly #segmented: boolean;
  readonly #stored = new Set<string>();

  readonly #storage: TraceStorage | undefined;

  /**
   * `file`: the trace file under the persona folder (default: the cycles' trace, which seals
   * into segments with the event log); blobs are shared. Another file (tools.jsonl) is one
   * plain file: it has no sealed segments. `storage`: the cycles' trace kept by the persona's
   * backend instead (postgres: rows, one open segment that is never sealed; the folder's
   * history is empty).
   */
  constructor(personaDir: string, options: { readonly?: boolean; file?: string; storage?: TraceStorage } = {}) {
    this.personaDir = personaDir;
    this.#storage = options.storage;
    this.file = options.storage?.location ?? path.join(personaDir, options.file ?? TRACE_FILE);
    this.#segmented = (options.file ?? TRACE_FILE) === TRACE_FILE;
    this.blobs = options.storage?.blobs ?? contentStore(path.join(personaDir, TRACE_DIR, 'blobs'), { base: personaDir, code: 'RTC_ERR_REPLAY_RECORDING', what: 'a recorded blob' });
    this.history = fileHistoryStorage({ dir: path.join(personaDir, TRACE_DIR), label: `${path.basename(personaDir)}/${TRACE_DIR}`, ...(options.readonly || options.storage ? { readonly: true } : {}) });
  }

  /**
   * Seals the open trace segment when it holds records (the loop calls it when the event log
   * seals): what the event log's header then records. Undefined when there was nothing to seal.
   */
  async seal(): Promise<TraceSealed | undefined> {
    if (this.#storage) return undefined;
    if (!this.#segmented) throw new Error(`${this.#where()} does not seal: only the cycles' trace does`);
    this.close();
    return sealTrace(this.file, this.history, (text, where) => this.checkLines(text, where));
  }

  /**
   * Completes a seal a crash cut short: the open segment is already stored as a sealed one
   * but the open file was not replaced yet. Call before the first append after a start.
   */
  async recover(): Promise<TraceSealed | undefined> {
    if (this.#storage) return undefined;
    if (!this.#segmented) return undefined;
    const index = openTraceIndex(this.file);
    if (!this.history.list().segments.some((s) => s.index === index && !s.archived)) return undefined;
    return this.seal();
  }

  /** Digests this store stored in this process (bundles, profiles): a blob collection keeps them. */
  keptDigests(): ReadonlySet<string> {
    return this.#stored;
  }

  /** The open segment's records only. */
  readOpen(): TraceLine[] {
    if (this.#storage) return this.checkLines([...this.#storage.lines(), ''].join('\n'), this.#where());
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw kernelError('RTC_ERR_REPLAY_RECORDING', `${this.#where()}: ${(error as Error).message}`);
    }
    return this.checkLines(text, this.#where());
  }

  /** The open segment's text as stored (its lines, each ending in a newline; a torn last line as it is), or '' when there is none. */
  openText(): string {
    if (this.#storage) {
      const lines = this.#storage.lines();
      return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
    }
    try {
      return readFileSync(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
      throw kernelError('RTC_ERR_REPLAY_RECORDING', `${this.#where()}: ${(error as Error).message}`);
    }
  }

  /** Size of the open trace segment in bytes. */
  openBytes(): number {
    if (this.#storage) return 0;
    try {
      return statSync(this.file).size;
    } catch {
      return 0;
    }
  }

  /** A text as written in a trace: inline, or stored by digest when large. */
  externalize(text: string): TracedText {
    const bytes = Buffer.byteLength(text);
    if (bytes <= INLINE_LIMIT) return text;
    return { blob: this.blobs.put(text).digest, bytes };
  }

  /** The text behind a traced text (a blob is read and checked against its digest). */
  internalize(text: TracedText): string {
    return typeof text === 'string' ? text : this.blobs.get(text.blob).toString('utf8');
  }

  /** Stores bytes the trace refers to (a bundle, a profile) once per process; returns the digest. */
  keep(text: string): string {
    const digest = sha256Digest(text);
    if (!this.#stored.has(digest)) {
      this.blobs.put(text);
      this.#stored.add(digest);
    }
    return digest;
  }

  /** Appends one cycle's record durably (the line is on disk when this returns). */
  append(record: TraceRecord): void {
    if (this.#storage) {
      try {
        this.#storage.appendLine(JSON.stringify(record));
      } catch (error) {
        throw kernelError('RTC_ERR_TRACE_WRITE', `${this.file}: ${(error as Error).message}`, { cause: error });
      }
      return;
    }
    const fd = this.#open();
    const bytes = Buffer.from(`${JSON.stringify(record)}\n`);
    try {
      let written = 0;
      while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
      fdatasyncSync(fd);
    } catch (error) {
      throw kernelError('RTC_ERR_TRACE_WRITE', `${path.relative(this.personaDir, this.file)}: ${(error as Error).message}`, { cause: error });
    }
  }

  /**
   * Appends lines durably without blocking the event loop: lines queued while a write is on
   * disk go out together in the next write (group commit). Resolves when this line is synced.
   */
  appendAsync(record: TraceRecord): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ text: `${JSON.stringify(record)}\n`, resolve, reject });
      if (!this.#writing) void this.#drain();
    });
  }

  readonly #queue: { text: string; resolve: () => void; reject: (error: Error) => void }[] = [];
  #writing = false;

  async #drain(): Promise<void> {
    this.#writing = true;
    while (this.#queue.length > 0) {
      const batch = this.#queue.splice(0, this.#queue.length);
      try {
        const fd = this.#open();
        const bytes = Buffer.from(batch.map((b) => b.text).join(''));
        let written = 0;
        while (written < bytes.length) written += await writeAsync(fd, bytes, written, bytes.length - written);
        await fdatasyncAsync(fd);
        for (const b of batch) b.resolve();
      } catch (error) {
        const failure = kernelError('RTC_ERR_TRACE_WRITE', `${path.relative(this.personaDir, this.file)}: ${(error as Error).message}`, { cause: error });
        for (const b of batch) b.reject(failure);
      }
    }
    this.#writing = false;
  }

  #open(): number {
    if (this.#fd !== undefined) return this.#fd;
    mkdirSync(path.dirname(this.file), { recursive: true });
    const created = !existsSync(this.file);
    const fd = openRegular(this.file, constants.O_RDWR | constants.O_APPEND | constants.O_CREAT, 0o644)!;
    if (created) syncDirectory(path.dirname(this.file));
    this.#cutTornTail(fd);
    this.#fd = fd;
    return fd;
  }

  /** A last line without its newline was torn by a kill: keep its bytes aside, then cut it. */
  #cutTornTail(fd: number): void {
    const size = fstatSync(fd).size;
    if (size === 0) return;
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    if (last[0] === 0x0a) return;
    const text = readFileSync(this.file);
    const start = text.lastIndexOf(0x0a) + 1;
    const aside = `${this.file}.torn-${start}`;
    writeAllSyncClose(openSync(aside, 'w', 0o644), text.subarray(start));
    syncDirectory(path.dirname(this.file));
    ftruncateSync(fd, start);
    fdatasyncSync(fd);
  }

  /**
   * Every complete line, checked: its shape and its own hash. A torn last line is left out
   * (no event can point to it); anything else that does not check out is an error naming
   * the line.
   */
  read(range?: { fromCycle: number; toCycle: number }): TraceLine[] {
    const out: TraceLine[] = [];
    // Sealed segments first (those that may hold the range), then the open one.
    for (const segment of this.#segmented ? traceSegmentsFor(this.history, range) : []) {
      if (segment.archived) {
        throw kernelError('RTC_ERR_HISTORY_ARCHIVED', `${segment.name}: trace segment ${segment.index} is archived in ${segment.archived.archive.path}; restore it with "runtimectl archive restore" to replay its cycles`, { details: { file: segment.name } });
      }
      out.push(...this.checkLines(decompressSegment(this.history.readSealed(segment.index), segment.name).toString('utf8'), segment.name));
    }
    out.push(...this.readOpen());
    return out;
  }

  /** Every complete record line of a segment's text, checked; header lines are checked and left out. */
  checkLines(text: string, whereFile: string): TraceLine[] {
    const lines = text.split('\n');
    const out: TraceLine[] = [];
    // the last element is '' after a final newline, or a torn line: neither is a record
    for (let i = 0; i < lines.length - 1; i++) {
      const where = `${whereFile}:${i + 1}`;
      if (i === 0 && isTraceHeader(lines[0]!, where)) continue;
      let raw: unknown;
      try {
        raw = JSON.parse(lines[i]!);
      } catch {
        throw kernelError('RTC_ERR_REPLAY_RECORDING', `${where}: not JSON`, { details: { file: this.file, line: i + 1 } });
      }
      const parsed = traceRecordSchema.safeParse(raw);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        throw kernelError('RTC_ERR_REPLAY_RECORDING', `${where}: ${issue.path.join('.') || 'record'}: ${issue.message}`, { details: { file: this.file, line: i + 1 } });
      }
      const record = parsed.data;
      // the record passed the strict schema: the fast writer gives traceHash's bytes
      const actual = checkedTraceHash(record);
      if (actual !== record.hash) {
        throw kernelError('RTC_ERR_REPLAY_RECORDING', `${where}: cycle ${record.cycle}: the record's content hashes to ${actual}, not its stored hash ${record.hash}; it was changed after it was written`, {
          details: { file: this.file, line: i + 1 },
        });
      }
      out.push({ line: i + 1, record });
    }
    return out;
  }

  #where(): string {
    return this.#storage ? this.file : path.relative(path.dirname(this.personaDir), this.file);
  }

  close(): void {
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
  }
}
