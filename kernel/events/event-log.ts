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
 */
import { createHash } from 'node:crypto';
import { close, constants, fdatasync, mkdirSync, readFileSync, statSync, write } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { isKernelError, kernelError, type KernelError } from '../errors.ts';
import { redactedCanonicalJson, redactRecord } from '../redact/index.ts';
import { canonicalJson } from './canonical.ts';
import { appendEnvelopeLine, appendHashInput, EVENT_TYPE_PATTERN, GENESIS_HASH, sha256 } from './envelope.ts';
import { Batch } from './batch.ts';
import { openRegular } from '../storage/safe-read.ts';
import { noteOpenSegmentEvent } from '../history/open-segment.ts';
import { cutTornTail, syncDirectory, type Repair } from './repair.ts';
import { chainRepairHint, describeProblem, scanEventLog, type TornTail } from './scan.ts';
import { SEGMENT_EVENT, segmentHeaderSchema, type SegmentHeader } from './segment-header.ts';
import type { HistoryStorage } from '../history/storage.ts';
import type { SegmentIndexEntry } from '../history/index-entry.ts';
import { prepareSeal, type SealInput } from '../history/seal.ts';
import { checkSealedAtOpen, replaceOpenFile, setAsideSealTemp, type SealedHistory } from '../history/open-check.ts';
import { decompressSegment, sha256Hex } from '../history/seal.ts';

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
   * Where this log's sealed segments, index and checkpoint live (kernel/history). Without it
   * the log is one file that is never sealed (the review log's and tests' use).
   */
  history?: HistoryStorage;
  /** The rollup each sealed segment's index entry carries (features/history). */
  rollup?: SealInput['rollup'];
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

export class EventLog {
  readonly file: string;
  #fd: number;
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
  #rollup: SealInput['rollup'];
  #segment: OpenSegment;
  /** The sealed segments (index entries), checked at open and grown by each seal. */
  #sealed: SegmentIndexEntry[] = [];
  /** While a seal runs, appends wait for it (they belong after the new header). */
  #sealing: Promise<SealOutcome | undefined> | undefined;

  /** Use openEventLog(): it checks and repairs the file first. */
  constructor(file: string, fd: number, lastSeq: number, lastHash: string, now: (() => Date) | undefined, segment?: OpenSegment, history?: SealedHistory) {
    this.file = file;
    this.#fd = fd;
    this.#lastSeq = lastSeq;
    this.#lastHash = lastHash;
    this.#now = now;
    this.#segment = segment ?? { index: 1, firstSeq: lastSeq > 0 ? 1 : 0, bytes: 0, records: lastSeq };
    this.#history = history?.storage;
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
    if (!history) throw kernelError('RTC_ERR_HISTORY_SEGMENT', `${this.file}: this log keeps no history storage and is never sealed`, { internal: true });
    if (this.#failure) throw this.#failure;
    if (this.#closed) throw kernelError('RTC_ERR_EVENTS_CLOSED', `${this.file}: the event log is closed; it was not sealed`);
    // Appends made before the seal was asked go into the segment being sealed.
    while (this.#writing || this.#scheduled || this.#queued !== undefined) await this.flush();
    const headerOnly = this.#segment.header !== undefined ? 1 : 0;
    if (this.#segment.records <= headerOnly) return undefined;
    const bytes = readFileSync(this.file);
    const prepared = await prepareSeal({ segment: this.#segment.index, bytes, file: this.file, ...(options.attached ? { attached: options.attached } : {}), ...(this.#rollup ? { rollup: this.#rollup } : {}) });
    if (prepared.sealed.last_seq !== this.#lastSeq || prepared.sealed.last_hash !== this.#lastHash) {
      throw kernelError('RTC_ERR_EVENTS_CHAIN', `${this.file}: the file ends at seq ${prepared.sealed.last_seq}, not at the ${this.#lastSeq} this writer appended; another writer changed it (not sealed)`);
    }
    try {
      const stored = history.list().segments.find((s) => s.index === prepared.sealed.segment && !s.archived);
      if (stored) {
        // A seal a crash cut short stored this segment already: it must hold these very lines.
        const gz = history.readSealed(stored.index);
        if (!decompressSegment(gz, stored.name).equals(bytes)) {
          throw kernelError('RTC_ERR_HISTORY_SEGMENT', `${stored.name}: is stored as segment ${stored.index} but does not hold the lines of the open segment ${this.file}; neither was changed`, { details: { file: stored.name } });
        }
        prepared.entry = { ...prepared.entry, gz_bytes: gz.length, gz_sha256: sha256Hex(gz) };
      } else history.writeSealed(prepared.sealed.segment, prepared.gz);
      if (this.#sealed.length < prepared.sealed.segment && history.readIndex().length < prepared.sealed.segment) history.appendIndex(JSON.stringify(prepared.entry));
      if (prepared.rollupLine && !history.readRollups(prepared.sealed.segment).length) history.appendRollup(prepared.rollupLine);
    } catch (error) {
      if (isKernelError(error) && error.code === 'RTC_ERR_HISTORY_SEGMENT') throw error;
      throw kernelError('RTC_ERR_EVENTS_WRITE', `${this.file}: sealing segment ${prepared.sealed.segment} failed (${(error as Error).message}); the open segment was left as it is`, { cause: error });
    }
    const { line, result } = this.#headerLine(prepared.header);
    try {
      this.#fd = await replaceOpenFile(this.file, this.#fd, Buffer.from(line, 'utf8'), O_DSYNC);
    } catch (error) {
      this.#failure = kernelError('RTC_ERR_EVENTS_WRITE', `${this.file}: starting segment ${prepared.header.segment} failed (${(error as Error).message}); reopen the log to complete the seal`, { internal: true, cause: error });
      throw this.#failure;
    }
    this.#lastSeq = result.seq;
    this.#lastHash = result.hash;
    this.#sealed = [...this.#sealed, prepared.entry];
    this.#segment = { index: prepared.header.segment, firstSeq: result.seq, header: prepared.header, bytes: Buffer.byteLength(line), records: 1 };
    this.#stats.events += 1;
    return { entry: prepared.entry, header: result };
  }

  /** The chained header line for the next segment (not queued: the seal writes it). */
  #headerLine(header: SegmentHeader): { line: string; result: AppendResult } {
    const payloadJson = canonicalJson(header);
    const seq = this.#lastSeq + 1;
    const hash = sha256(appendHashInput(seq, SEGMENT_EVENT, payloadJson, this.#lastHash));
    return { line: appendEnvelopeLine(seq, SEGMENT_EVENT, payloadJson, this.#lastHash, hash, this.#at()), result: { seq, hash } };
  }

  /** Waits for queued events to reach disk, then closes the file. Later appends are refused. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    try {
      await this.flush().catch(() => undefined);
    } finally {
      openFiles.delete(this.file);
      await closeAsync(this.#fd).catch(() => undefined);
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
      const bytes = batch.bytes();
      try {
        let written = 0;
        while (written < bytes.length) written += await writeAsync(this.#fd, bytes, written, bytes.length - written);
        if (!O_DSYNC) await fdatasyncAsync(this.#fd);
      } catch (error) {
        this.#fail(error, batch);
        break;
      }
      this.#stats.batches += 1;
      this.#stats.events += batch.size;
      this.#segment.bytes += bytes.length;
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
    this.#failure = kernelError('RTC_ERR_EVENTS_WRITE', `${this.file}: writing events ${batch.acks[0]?.result.seq ?? '?'}.. failed (${reason}); reopen the log to repair it`, {
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
  let sealed: SealedHistory | undefined;
  if (options.history) {
    sealed = checkSealedAtOpen(options.history, { index: segment.index, ...(segment.header ? { header: segment.header } : {}), label: file }, { rebuild: true, ...(options.rollup ? { rollup: options.rollup } : {}) });
  }

  const logsDir = path.dirname(absolute);
  const firstCreated = mkdirSync(logsDir, { recursive: true });
  const partial = setAsideSealTemp(absolute);
  let repair: Repair | undefined;
  if (torn) repair = cutTornTail(absolute, torn, lastSeq + 1);
  segment.bytes = torn ? torn.offset : fileSize(absolute);
  const fd = openRegular(absolute, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | O_DSYNC, 0o644)!;
  if (!hadEvents && !repair) syncNewPath(logsDir, firstCreated);
  openFiles.add(absolute);

  const log = new EventLog(absolute, fd, lastSeq, lastHash, options.now, segment, sealed);
  try {
    // A seal cut short by a crash is completed before anything else is appended.
    if (sealed?.resume) await log.seal();
    if (hadEvents) await log.append('reboot', { previous_seq: lastSeq, previous_hash: lastHash });
    if (repair) {
      await log.append('log_repaired', {
        reason: 'torn last line',
        line: repair.line,
        offset: repair.offset,
        removed_bytes: repair.removedBytes,
        removed_sha256: sha256Bytes(torn!.bytes),
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
    ...(sealed?.resume ? { resumedSeal: segment.index } : {}),
    ...(partial ? { setAside: [partial] } : {}),
  };
  return log;
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
