/**
 * A persona's append-only event log, with group commit.
 *
 * append() redacts the payload, gives the event the next seq, chains its hash to the one
 * before, and queues the line. One writer drains the queue: every line queued since its
 * last write goes out in one synchronous-data write (O_DSYNC: write + fdatasync in one
 * call), and only then do those appends' promises resolve. So an event whose promise resolved is on disk and survives kill -9,
 * and appends made together (the same tick, or while a sync is running) share one sync.
 *
 * append() is the hot path: the CPU (and the garbage) it makes per event bounds both the rate
 * and the ack latency under load. Plain payloads are redacted and serialized in one walk
 * (redactedCanonicalJson), that one text goes into both the hash input and the line, and the
 * digest is one crypto call. test/events/redacted-json.test.ts pins the bytes to the original
 * two-step formula (canonicalJson(redactRecord(payload)), hashInput, envelopeLine).
 *
 * openEventLog() checks the whole file first and refuses a log that is corrupt, out of
 * chain or from a newer version, leaving it untouched. A torn last line (a write cut short
 * by a crash: only ever unacknowledged events) is saved aside, cut off, and logged.
 *
 * Where a batch goes is the log's sink (BatchSink): its own file (FileSink), or an isolated
 * persistence backend's storage binding (features/persistence/storage/isolated-events.ts), which also
 * seals through the sink: the log decides what a seal holds and its header, the sink stores it.
 */
import { createHash } from 'node:crypto';
import { close, constants, fdatasync, mkdirSync, readFileSync, statSync, write } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { isKernelError, kernelError, type KernelError } from '../errors.ts';
import { redactedCanonicalJson, redactRecord } from '../redact/index.ts';
import { canonicalJson } from './canonical.ts';
import { appendEnvelopeLine, appendHashInput, EVENT_TYPE_PATTERN, GENESIS_HASH, sha256 } from './envelope.ts';
import { Batch, type BatchRow } from './batch.ts';
import { openRegular } from '../storage/safe-read.ts';
import { noteOpenSegmentEvent } from './open-segment.ts';
import { cutTornTail, type Repair } from './repair.ts';
import { syncDirectory } from '../storage/durable-files.ts';
import { chainRepairHint, describeProblem, scanEventLog, type TornTail } from './scan.ts';
import { SEGMENT_EVENT, segmentHeaderSchema, type SegmentHeader } from './segment-header.ts';
import type { HistoryStorage } from '../contracts/history-storage.ts';
import type { LogHistory, PreparedSeal, RollupFold, SealedHistory, SealedSegments, SegmentIndexEntry } from './segments.ts';
import { replaceOpenFile, setAsideSealTemp } from './open-file.ts';

/** fs.write as a promise of the bytes written. */
function writeAsync(fd: number, bytes: Buffer, offset: number, length: number): Promise<number> {
  return new Promise((resolve, reject) => write(fd, bytes, offset, length, null, (error, written) => (error ? reject(error) : resolve(written))));
}
const fdatasyncAsync = promisify(fdatasync);

/**
 * With O_DSYNC each write() returns only once its data (and the file size) are on disk:
 * the batch's write and its fdatasync in one system call and one thread-pool round trip
 * instead of two. Where the flag does not exist, an explicit fdatasync follows the write.
 */
const O_DSYNC: number = constants.O_DSYNC ?? 0;
const closeAsync = promisify(close);

export interface AppendResult {
  seq: number;
  hash: string;
}

export interface OpenEventLogOptions {
  /** Wall-clock source for `at` (tests pin it); defaults to the system clock. */
  now?: () => Date;
  /**
   * Where this log's sealed segments, index and checkpoint live, with the code that checks and
   * seals them (the port: segments.ts; features/history-segments implements it). Without it the
   * log is one file that is never sealed (the review log's and tests' use).
   */
  history?: LogHistory;
  /** The rollup each sealed segment's index entry carries (features/history). */
  rollup?: RollupFold;
  /**
   * Opens a log whose open segment follows sealed ones without a `history` to check them: the
   * caller mends the open segment only and leaves the sealed side to `verify` (the fork repair).
   * Without it, such a log opened without a history is refused, never appended to unchecked.
   */
  sealedUnchecked?: true;
  /** Called with every event of the open segment as opening checks it (the loop folds them). */
  onEvent?: (event: import('./envelope.ts').EventEnvelope) => void;
}

/** The open segment: the file being appended to. */
export interface OpenSegment {
  /** its index: 1, or what its header says */
  index: number;
  /** seq of its first record (its header, after the first segment); 0 while it is empty */
  firstSeq: number;
  /** the header it starts with, after the first segment */
  header?: SegmentHeader;
  /** bytes in the file (complete lines, durable or queued) */
  bytes: number;
  /** records in it */
  records: number;
  /** `at` of its first record that is not the header: when it started to fill (day rotation) */
  firstAt?: string;
}

export interface SealOptions {
  /** recorded in the header and the index entry (the trace segment sealed with this one) */
  attached?: Record<string, unknown>;
}

export interface SealOutcome {
  entry: SegmentIndexEntry;
  /** the `log_segment` record that opens the new segment */
  header: AppendResult;
}

/** What opening found and did: the loop reports it, tests check it. */
export interface EventLogStartup {
  /** The log already had events, so a `reboot` event was appended. */
  rebooted: boolean;
  /** A torn last line was saved aside and cut off (and `log_repaired` appended). */
  repaired?: Repair;
  /** A seal a crash cut short was completed (the segment index it sealed). */
  resumedSeal?: number;
  /** Files a cut-short seal left, kept aside as evidence (names beside the log). */
  setAside?: string[];
}

export interface EventLogStats {
  /** Events made durable since open. */
  events: number;
  /** Durable write rounds (write + fdatasync) since open: events / batches is the group-commit factor. */
  batches: number;
}

/** Absolute paths of the logs open in this process: two writers on one file would fork its chain. */
const openFiles = new Set<string>();

/** One seal as the log hands it to its sink: the segment prepared, and the next segment's header. */
export interface SealRequest {
  prepared: PreparedSeal;
  history: HistoryStorage;
  /** the implementation that prepared it (a sink reads a stored segment back through it) */
  segments: SealedSegments;
  /** sealed segments the log knows of before this one */
  sealedBefore: number;
  /** the next segment's `log_segment` record: its line and its row */
  header: { line: string; row: BatchRow };
}

/**
 * Where a batch goes: the one durable write per batch. The log's own file (FileSink, below),
 * or an isolated persistence backend's storage binding (features/persistence/storage/isolated-events.ts).
 * `write` resolves only once every event of the batch is durable; a rejection fails the log.
 * A sink of a segmented log also gives the open segment's bytes and stores a seal: it throws
 * a KernelError marked `internal` when the open segment may be half replaced (the log stops
 * taking appends and must be reopened), any other error when nothing was changed.
 */
export interface BatchSink {
  write(batch: Batch): Promise<void>;
  close(): Promise<void>;
  openBytes?(): Buffer | Promise<Buffer>;
  seal?(request: SealRequest): Promise<void>;
}

export interface EventLogOptions {
  /** Keep each event's fields (seq, type, payload JSON, prev, hash, at) on its batch, for sinks that store rows. */
  keepRows?: boolean;
  /** The open segment as opening found it. */
  segment?: OpenSegment;
  /** The sealed side as opening found it, with the implementation that seals it further (segments.ts). */
  history?: SealedHistory;
}

/** A log file opened O_APPEND|O_DSYNC: each batch is one write (and fdatasync where O_DSYNC is missing). */
export class FileSink implements BatchSink {
  readonly file: string;
  #fd: number;
  #closed = false;

  /** Registers `file` as open in this process (a second open is RTC_ERR_EVENTS_BUSY). */
  static open(file: string): FileSink {
    const absolute = path.resolve(file);
    if (openFiles.has(absolute)) {
      throw kernelError('RTC_ERR_EVENTS_BUSY', `${file}: this event log is already open in this process; share the one EventLog`);
    }
    const fd = openRegular(absolute, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | O_DSYNC, 0o644)!;
    openFiles.add(absolute);
    return new FileSink(absolute, fd);
  }

  private constructor(file: string, fd: number) {
    this.file = file;
    this.#fd = fd;
  }

  async write(batch: Batch): Promise<void> {
    const bytes = batch.bytes();
    let written = 0;
    while (written < bytes.length) written += await writeAsync(this.#fd, bytes, written, bytes.length - written);
    if (!O_DSYNC) await fdatasyncAsync(this.#fd);
  }

  openBytes(): Buffer {
    return readFileSync(this.file);
  }

  /**
   * The file's seal: the segment's gzip, its index entry and rollup go to the history storage
   * (a seal a crash cut short may have stored them: they must be these very lines), then the
   * file is replaced by one holding only the next segment's header (the fd is swapped).
   */
  async seal(request: SealRequest): Promise<void> {
    const { prepared, history, segments } = request;
    try {
      const stored = history.list().segments.find((s) => s.index === prepared.sealed.segment && !s.archived);
      if (stored) {
        const gz = history.readSealed(stored.index);
        if (!segments.decompress(gz, stored.name).equals(readFileSync(this.file))) {
          throw kernelError('RTC_ERR_HISTORY_SEGMENT', `${stored.name}: is stored as segment ${stored.index} but does not hold the lines of the open segment ${this.file}; neither was changed`, { details: { file: stored.name } });
        }
        prepared.entry = { ...prepared.entry, gz_bytes: gz.length, gz_sha256: sha256Bytes(gz) };
      } else history.writeSealed(prepared.sealed.segment, prepared.gz);
      if (request.sealedBefore < prepared.sealed.segment && history.readIndex().length < prepared.sealed.segment) history.appendIndex(JSON.stringify(prepared.entry));
      if (prepared.rollupLine && !history.readRollups(prepared.sealed.segment).length) history.appendRollup(prepared.rollupLine);
    } catch (error) {
      if (isKernelError(error) && error.code === 'RTC_ERR_HISTORY_SEGMENT') throw error;
      throw kernelError('RTC_ERR_EVENTS_WRITE', `${this.file}: sealing segment ${prepared.sealed.segment} failed (${(error as Error).message}); the open segment was left as it is`, { cause: error });
    }
    try {
      this.#fd = await replaceOpenFile(this.file, this.#fd, Buffer.from(request.header.line, 'utf8'), O_DSYNC);
    } catch (error) {
      throw kernelError('RTC_ERR_EVENTS_WRITE', `${this.file}: starting segment ${prepared.header.segment} failed (${(error as Error).message}); reopen the log to complete the seal`, { internal: true, cause: error });
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    openFiles.delete(this.file);
    await closeAsync(this.#fd).catch(() => undefined);
  }
}

/** True when this process has `file` open as an event log (busy for a second writer). */
export function isEventFileOpen(file: string): boolean {
  return openFiles.has(path.resolve(file));
}

export class EventLog {
  /** The file (or the backend's store) the log's events are in, for messages. */
  readonly file: string;
  readonly #sink: BatchSink;
  readonly #keepRows: boolean;
  #lastSeq: number;
  #lastHash: string;
  /** The clock for `at`; undefined means the system clock, read through #at(). */
  #now: (() => Date) | undefined;
  #atMs = Number.NaN;
  #atIso = '';
  /** Appends waiting for the next write (all of them go in it). */
  #queued: Batch | undefined;
  #writing = false;
  #scheduled = false;
  #idle: (() => void)[] = [];
  #closed = false;
  #failure: KernelError | undefined;
  #stats: EventLogStats = { events: 0, batches: 0 };
  startup: EventLogStartup = { rebooted: false };
  #history: HistoryStorage | undefined;
  #segments: SealedSegments | undefined;
  #rollup: RollupFold | undefined;
  #segment: OpenSegment;
  /** The sealed segments (index entries), checked at open and grown by each seal. */
  #sealed: SegmentIndexEntry[] = [];
  /** While a seal runs, appends wait for it (they belong after the new header). */
  #sealing: Promise<SealOutcome | undefined> | undefined;

  /**
   * Use openEventLog() for a file (it checks and repairs the file first); a backend's chain
   * is built over its sink once the kernel has verified the stored events (lastSeq, lastHash).
   */
  constructor(file: string, sink: BatchSink, lastSeq: number, lastHash: string, now: (() => Date) | undefined, options: EventLogOptions = {}) {
    this.file = file;
    this.#sink = sink;
    this.#keepRows = options.keepRows === true;
    this.#lastSeq = lastSeq;
    this.#lastHash = lastHash;
    this.#now = now;
    const segment = options.segment;
    const history = options.history;
    this.#segment = segment ?? { index: 1, firstSeq: lastSeq > 0 ? 1 : 0, bytes: 0, records: lastSeq };
    this.#history = history?.storage;
    this.#segments = history?.segments;
    this.#rollup = history?.rollup;
    this.#sealed = history?.entries ?? [];
  }

  /** The open segment as it is now. */
  get openSegment(): Readonly<OpenSegment> {
    return { ...this.#segment };
  }

  /** The sealed segments' index entries, oldest first. */
  get sealedSegments(): readonly SegmentIndexEntry[] {
    return this.#sealed;
  }

  get history(): HistoryStorage | undefined {
    return this.#history;
  }

  /** seq of the last event appended (durable or still queued). */
  get lastSeq(): number {
    return this.#lastSeq;
  }

  get lastHash(): string {
    return this.#lastHash;
  }

  get stats(): Readonly<EventLogStats> {
    return { ...this.#stats };
  }

  /**
   * Queues one event; resolves with its seq and hash once it is synced to disk. Seq order is
   * call order. The payload is redacted before it is hashed or written.
   */
  append(type: string, payload: Record<string, unknown>): Promise<AppendResult> {
    if (this.#sealing) return this.#sealing.then(() => this.append(type, payload));
    return this.#append(type, payload);
  }

  #append(type: string, payload: Record<string, unknown>): Promise<AppendResult> {
    if (this.#failure) return Promise.reject(this.#failure);
    if (this.#closed) return Promise.reject(kernelError('RTC_ERR_EVENTS_CLOSED', `${this.file}: the event log is closed; "${type}" was not written`));
    if (!EVENT_TYPE_PATTERN.test(type)) {
      return Promise.reject(kernelError('RTC_ERR_EVENTS_INVALID', `event type "${type}" is not a lower-case name (${EVENT_TYPE_PATTERN.source})`));
    }
    if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) {
      return Promise.reject(kernelError('RTC_ERR_EVENTS_INVALID', `the payload of "${type}" must be an object`));
    }
    // One walk for plain data; anything odd (Dates, Maps, cycles, bigints...) takes the two steps.
    let payloadJson = redactedCanonicalJson(payload);
    if (payloadJson === undefined) {
      try {
        payloadJson = canonicalJson(redactRecord(payload));
      } catch (error) {
        return Promise.reject(error);
      }
    }
    const seq = this.#lastSeq + 1;
    const prev = this.#lastHash;
    // `type` matched EVENT_TYPE_PATTERN above and `prev` is our own hash: nothing to escape.
    const hash = sha256(appendHashInput(seq, type, payloadJson, prev));
    const at = this.#at();
    const line = appendEnvelopeLine(seq, type, payloadJson, prev, hash, at);
    const batch = this.#queued ?? new Batch();
    try {
      batch.addLine(line);
      if (this.#keepRows) batch.rows.push({ seq, type, payloadJson, prev, hash, at });
    } catch (error) {
      // A batch past the longest string V8 can hold: this line is not queued and its seq not used.
      return Promise.reject(error);
    }
    this.#queued = batch;
    this.#lastSeq = seq;
    this.#lastHash = hash;
    if (this.#segment.records === 0) this.#segment.firstSeq = seq;
    this.#segment.records += 1;
    if (this.#segment.firstAt === undefined && type !== SEGMENT_EVENT) this.#segment.firstAt = at;
    const result: AppendResult = { seq, hash };
    const acked = new Promise<AppendResult>((resolve, reject) => batch.acks.push({ result, resolve, reject }));
    this.#schedule();
    return acked;
  }

  /**
   * `at` for an append now. The system clock's ISO text is kept for the millisecond it names:
   * hundreds of appends share a millisecond under load, and the text is the same for all of them.
   */
  #at(): string {
    if (this.#now) return this.#now().toISOString();
    const ms = Date.now();
    if (ms !== this.#atMs) {
      this.#atMs = ms;
      this.#atIso = new Date(ms).toISOString();
    }
    return this.#atIso;
  }

  /** Resolves when everything appended so far is on disk (or rejects if writing failed). */
  flush(): Promise<void> {
    if (this.#failure) return Promise.reject(this.#failure);
    if (!this.#writing && !this.#scheduled && this.#queued === undefined) return Promise.resolve();
    return new Promise<void>((resolve) => this.#idle.push(resolve)).then(() => {
      if (this.#failure) throw this.#failure;
    });
  }

  /**
   * Seals the open segment, when it holds records after its header: its lines become sealed
   * segment N (gzip, in the history storage), its index entry is appended, and the file is
   * replaced by one holding only the header of segment N+1, which records segment N's digest
   * and last hash. Appends made meanwhile wait and follow the header. A crash at any step
   * leaves either the old open file (completed at the next open) or the new one.
   */
  seal(options: SealOptions = {}): Promise<SealOutcome | undefined> {
    if (this.#sealing) return this.#sealing.then(() => this.seal(options));
    const run = this.#seal(options);
    this.#sealing = run;
    const clear = () => {
      if (this.#sealing === run) this.#sealing = undefined;
    };
    run.then(clear, clear);
    return run;
  }

  async #seal(options: SealOptions): Promise<SealOutcome | undefined> {
    const history = this.#history;
    const segments = this.#segments;
    if (!history || !segments) throw kernelError('RTC_ERR_HISTORY_SEGMENT', `${this.file}: this log keeps no history storage and is never sealed`, { internal: true });
    if (this.#failure) throw this.#failure;
    if (this.#closed) throw kernelError('RTC_ERR_EVENTS_CLOSED', `${this.file}: the event log is closed; it was not sealed`);
    // Appends made before the seal was asked go into the segment being sealed.
    while (this.#writing || this.#scheduled || this.#queued !== undefined) await this.flush();
    const headerOnly = this.#segment.header !== undefined ? 1 : 0;
    if (this.#segment.records <= headerOnly) return undefined;
    const sink = this.#sink;
    if (!sink.seal || !sink.openBytes) throw kernelError('RTC_ERR_HISTORY_SEGMENT', `${this.file}: this log's store keeps no sealed segments`, { internal: true });
    const bytes = await sink.openBytes();
    const prepared = await segments.prepareSeal({ segment: this.#segment.index, bytes, file: this.file, ...(options.attached ? { attached: options.attached } : {}), ...(this.#rollup ? { rollup: this.#rollup } : {}) });
    if (prepared.sealed.last_seq !== this.#lastSeq || prepared.sealed.last_hash !== this.#lastHash) {
      throw kernelError('RTC_ERR_EVENTS_CHAIN', `${this.file}: the stored events end at seq ${prepared.sealed.last_seq}, not at the ${this.#lastSeq} this writer appended; another writer changed them (not sealed)`);
    }
    const { line, row, result } = this.#headerLine(prepared.header);
    try {
      await sink.seal({ prepared, history, segments, sealedBefore: this.#sealed.length, header: { line, row } });
    } catch (error) {
      // The open segment may be half replaced: nothing more is appended until the log is reopened.
      if (isKernelError(error) && error.internal) this.#failure = error;
      throw error;
    }
    this.#lastSeq = result.seq;
    this.#lastHash = result.hash;
    this.#sealed = [...this.#sealed, prepared.entry];
    this.#segment = { index: prepared.header.segment, firstSeq: result.seq, header: prepared.header, bytes: Buffer.byteLength(line), records: 1 };
    this.#stats.events += 1;
    return { entry: prepared.entry, header: result };
  }

  /** The chained header line for the next segment (not queued: the seal writes it). */
  #headerLine(header: SegmentHeader): { line: string; row: BatchRow; result: AppendResult } {
    const payloadJson = canonicalJson(header);
    const seq = this.#lastSeq + 1;
    const prev = this.#lastHash;
    const hash = sha256(appendHashInput(seq, SEGMENT_EVENT, payloadJson, prev));
    const at = this.#at();
    return { line: appendEnvelopeLine(seq, SEGMENT_EVENT, payloadJson, prev, hash, at), row: { seq, type: SEGMENT_EVENT, payloadJson, prev, hash, at }, result: { seq, hash } };
  }

  /** Waits for queued events to reach disk, then closes the file. Later appends are refused. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    try {
      await this.flush().catch(() => undefined);
    } finally {
      await this.#sink.close();
    }
  }

  /** Drains on the next turn of the event loop, so appends made together go in one batch. */
  #schedule(): void {
    if (this.#writing || this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      void this.#drain();
    });
  }

  async #drain(): Promise<void> {
    this.#writing = true;
    while (this.#queued !== undefined && !this.#failure) {
      const batch = this.#queued;
      this.#queued = undefined;
      try {
        await this.#sink.write(batch);
      } catch (error) {
        this.#fail(error, batch);
        break;
      }
      this.#stats.batches += 1;
      this.#stats.events += batch.size;
      this.#segment.bytes += batch.byteLength;
      for (const ack of batch.acks) ack.resolve(ack.result);
    }
    this.#writing = false;
    const idle = this.#idle;
    this.#idle = [];
    for (const resolve of idle) resolve();
  }

  /**
   * A failed write or sync leaves the file's tail unknown (perhaps torn), and the in-memory
   * chain already counts the lost events, so the log stops taking appends. Reopening repairs it.
   */
  #fail(error: unknown, batch: Batch): void {
    const reason = error instanceof Error ? error.message : String(error);
    const first = batch.acks[0]?.result.seq ?? '?';
    // A refusal with its own code (a backend that broke the storage contract, a database that
    // went away) keeps it; a failed write or sync is the log's own write error.
    this.#failure =
      isKernelError(error) && !error.internal && error.code !== 'RTC_ERR_EVENTS_WRITE'
        ? kernelError(error.code, `${this.file}: events ${first}.. were not written: ${reason}; reopen the log`, { details: { ...error.details }, cause: error })
        : kernelError('RTC_ERR_EVENTS_WRITE', `${this.file}: writing events ${first}.. failed (${reason}); reopen the log to repair it`, {
            internal: true,
            cause: error,
          });
    const failed = this.#queued ? [batch, this.#queued] : [batch];
    this.#queued = undefined;
    for (const lost of failed) for (const ack of lost.acks) ack.reject(this.#failure);
  }
}

/**
 * Opens (creating if need be) the event log at `file`: checks every line, repairs a torn
 * tail, and appends `reboot` if the log already had events. Throws, with the file left
 * byte-for-byte as it was, on a corrupt line, a broken chain or a newer schema version.
 */
export async function openEventLog(file: string, options: OpenEventLogOptions = {}): Promise<EventLog> {
  const prepared = prepareEventFile(file, options);
  const log = new EventLog(prepared.file, prepared.sink, prepared.lastSeq, prepared.lastHash, options.now, { segment: prepared.segment, ...(prepared.sealed ? { history: prepared.sealed } : {}) });
  await appendStartupEvents(log, prepared);
  return log;
}

/** What a chain's open found: the verified head, the open segment, the sealed side, the repair. */
export interface OpenedHead {
  lastSeq: number;
  lastHash: string;
  repair?: Repair;
  /** sha256 of the torn bytes that were cut off (with `repair`). */
  removedSha256?: string;
  /** the sealed side, when the log keeps a history; `resume` completes a cut-short seal */
  sealed?: SealedHistory;
  segment?: OpenSegment;
  /** files a cut-short seal left, kept aside as evidence */
  setAside?: string[];
}

/** What prepareEventFile found and did, and the open sink. */
export interface PreparedEventFile extends OpenedHead {
  file: string;
  sink: FileSink;
  segment: OpenSegment;
}

/**
 * Checks every line of `file` (refusing a corrupt, out-of-chain or newer log, untouched),
 * checks its sealed side when it keeps a history, saves and cuts a torn tail, and opens the
 * file for appends. The caller appends the startup events (appendStartupEvents) on the chain
 * it builds over the sink.
 */
export function prepareEventFile(file: string, options: Omit<OpenEventLogOptions, 'now'> = {}): PreparedEventFile {
  const absolute = path.resolve(file);
  if (openFiles.has(absolute)) {
    throw kernelError('RTC_ERR_EVENTS_BUSY', `${file}: this event log is already open in this process; share the one EventLog`);
  }
  let lastSeq = 0;
  let lastHash = GENESIS_HASH;
  let torn: TornTail | undefined;
  const segment: OpenSegment = { index: 1, firstSeq: 0, bytes: 0, records: 0 };
  for (const item of scanEventLog(file)) {
    if (item.kind === 'problem') {
      throw kernelError(item.problem.code, `${describeProblem(item.problem)}; the file was left as it is${chainRepairHint(item.problem)}`, { details: { ...item.problem } });
    }
    if (item.kind === 'event') {
      const event = item.event;
      noteOpenSegmentEvent(segment, event);
      options.onEvent?.(event);
      lastSeq = event.seq;
      lastHash = event.hash;
    } else {
      torn = item.torn;
    }
  }
  if (segment.records > 0 && segment.index === 1 && segment.firstSeq !== 1) {
    throw kernelError('RTC_ERR_EVENTS_CHAIN', `${file}:1 (seq ${segment.firstSeq}): the log starts at seq ${segment.firstSeq} without a segment header: the events before it are missing; the file was left as it is`);
  }
  const hadEvents = lastSeq > 0;
  if (segment.index > 1 && !options.history && !options.sealedUnchecked) {
    throw kernelError('RTC_ERR_HISTORY_SEGMENT', `${file}: the open segment is segment ${segment.index}, after ${segment.index - 1} sealed one(s), and the log was opened without the history that checks them; the file was left as it is`);
  }
  let sealed: SealedHistory | undefined;
  if (options.history) {
    const side = options.history.segments.checkAtOpen(options.history.storage, { index: segment.index, ...(segment.header ? { header: segment.header } : {}), label: file }, { rebuild: true, ...(options.rollup ? { rollup: options.rollup } : {}) });
    sealed = { ...side, segments: options.history.segments };
  }

  const logsDir = path.dirname(absolute);
  const firstCreated = mkdirSync(logsDir, { recursive: true });
  const partial = setAsideSealTemp(absolute);
  let repair: Repair | undefined;
  if (torn) repair = cutTornTail(absolute, torn, lastSeq + 1);
  segment.bytes = torn ? torn.offset : fileSize(absolute);
  const sink = FileSink.open(absolute);
  if (!hadEvents && !repair) syncNewPath(logsDir, firstCreated);
  return {
    file: absolute,
    sink,
    lastSeq,
    lastHash,
    segment,
    ...(sealed ? { sealed } : {}),
    ...(partial ? { setAside: [partial] } : {}),
    ...(repair ? { repair, removedSha256: sha256Bytes(torn!.bytes) } : {}),
  };
}

/**
 * The events an open appends: a seal a crash cut short is completed first, then `reboot` on a
 * chain that already had events and `log_repaired` after a torn tail was cut; sets
 * `log.startup`. Closes the log when an append fails.
 */
export async function appendStartupEvents(log: EventLog, head: OpenedHead, options: { reboot?: boolean } = {}): Promise<void> {
  const hadEvents = head.lastSeq > 0 && options.reboot !== false;
  const repair = head.repair;
  try {
    // A seal cut short by a crash is completed before anything else is appended.
    if (head.sealed?.resume) await log.seal();
    if (hadEvents) await log.append('reboot', { previous_seq: head.lastSeq, previous_hash: head.lastHash });
    if (repair) {
      await log.append('log_repaired', {
        reason: 'torn last line',
        line: repair.line,
        offset: repair.offset,
        removed_bytes: repair.removedBytes,
        removed_sha256: head.removedSha256 ?? null,
        saved_as: repair.savedAs,
      });
    }
  } catch (error) {
    await log.close();
    throw error;
  }
  log.startup = {
    rebooted: hadEvents,
    ...(repair ? { repaired: repair } : {}),
    ...(head.sealed?.resume ? { resumedSeal: head.segment?.index ?? 1 } : {}),
    ...(head.setAside ? { setAside: head.setAside } : {}),
  };
}

function fileSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/**
 * A new log's directory entry, and every directory mkdir just made for it, are synced too,
 * so the file itself survives power loss, not only kill -9.
 */
function syncNewPath(logsDir: string, firstCreated: string | undefined): void {
  syncDirectory(logsDir);
  if (firstCreated === undefined) return;
  for (let dir = logsDir; ; dir = path.dirname(dir)) {
    syncDirectory(path.dirname(dir));
    if (dir === firstCreated || path.dirname(dir) === dir) break;
  }
}

function sha256Bytes(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}
