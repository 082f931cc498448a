/**
 * The `sqlite` persistence backend: a persona's events, brain memory and proposal records in
 * one database, `<persona>/persistence.db` (schema.ts), WAL with synchronous=FULL; its ledger
 * through features/ledger's sqlite backend at the ledger's own path.
 *
 * Events are group-committed like the JSONL log: appends made together (the same tick, or
 * while a commit is running) go into one transaction, whose commit syncs the WAL, and only
 * then do their promises resolve. Each event is encoded by the same code as the JSONL log
 * (features/persistence/event-codec.ts), so the two backends give byte-identical event JSON
 * and hashes; at open the whole chain is checked, a damaged or newer database is refused
 * untouched, and a `reboot` event is appended when events were already there.
 *
 * HOST MODULE: this entry runs in the kernel's process, not in an isolate (native sqlite
 * cannot run in isolated-vm; see kernel/contracts/persistence.ts). It is handed only the
 * `storage.sqlite` handle its manifest declares and opens databases only through it.
 */
import type Database from 'better-sqlite3';
import { kernelError, type KernelError } from '../../kernel/errors.ts';
import type { AppendResult, EventLogStartup, OpenSegment, SealOptions, SealOutcome } from '../../kernel/events/event-log.ts';
import { canonicalJson } from '../../kernel/events/canonical.ts';
import { GENESIS_HASH, type EventEnvelope } from '../../kernel/events/envelope.ts';
import type { ScanStart } from '../../kernel/events/scan.ts';
import { SEGMENT_EVENT, segmentHeaderSchema } from '../../kernel/events/segment-header.ts';
import type { EventChainReport, EventOpenOptions, EventStore, MemoryStore, ProposalStore } from '../../kernel/contracts/persistence.ts';
import type { BackendContext, PersonaBackend as PersistenceBackend } from '../../features/persistence/backend.ts';
import { checkEventRows, encodeEvent, eventLine, type EncodedEvent, type StoredEventRow } from '../../features/persistence/event-codec.ts';
import type { SegmentIndexEntry } from '../../kernel/history/index-entry.ts';
import type { HistoryStorage } from '../../kernel/history/storage.ts';
import { checkSealedAtOpen } from '../../kernel/history/open-check.ts';
import { eventsAfter } from '../../kernel/history/reader.ts';
import { openSegmentOf } from '../../kernel/history/open-segment.ts';
import { importSegmented } from '../../kernel/history/import.ts';
import { prepareSeal } from '../../kernel/history/seal.ts';
import { verifyHistory, type HistoryVerifyOptions, type HistoryVerifyReport, type OpenCheck } from '../../kernel/history/verify.ts';
import { sqliteHistoryStorage } from './history-storage.ts';
import { requireStorage } from '../../features/persistence/open.ts';
import { checkBrainText, checkProposalLine, parseProposalLines } from '../../features/persistence/records.ts';
import type { PersonaSqlite } from '../../kernel/storage/persona-storage.ts';
import { BRAIN_KEY, checkMeta, createSchema, DB_FILE, LONG_TERM_KEY, upgradeSchema } from './schema.ts';

/** Databases whose events are open for appends in this process: two writers would fork the chain. */
const openForAppend = new Set<string>();

interface Pending extends AppendResult {
  row: EncodedEvent;
  resolve: (result: AppendResult) => void;
  reject: (error: unknown) => void;
}

/** The database, created with its schema on first write; reads of a missing one see nothing. */
class Store {
  readonly file: string;
  #db: Database.Database | undefined;

  constructor(
    readonly sqlite: PersonaSqlite,
    readonly personaId: string,
    readonly readonly: boolean,
  ) {
    this.file = sqlite.resolve(DB_FILE);
    // The meta check runs through a read-only handle before anything could write.
    const probe = sqlite.open(DB_FILE, { readonly: true });
    if (probe) {
      try {
        checkMeta(probe, personaId);
      } finally {
        probe.close();
      }
    }
  }

  /** The writable handle (creating the database), or undefined for a read-only backend. */
  writer(what: string): Database.Database {
    if (this.readonly) throw kernelError('RTC_ERR_PERSISTENCE_READONLY', `cannot ${what}: the persistence backend was opened read-only`);
    if (this.#db === undefined) {
      const db = this.sqlite.open(DB_FILE)!;
      try {
        if (!checkMeta(db, this.personaId)) createSchema(db, this.personaId);
        else upgradeSchema(db);
      } catch (error) {
        db.close();
        throw error;
      }
      this.#db = db;
    }
    return this.#db;
  }

  /** Runs `fn` on a fresh read-only handle (iterators never share the writer's connection). */
  read<T>(fn: (db: Database.Database) => T, empty: T): T {
    const db = this.sqlite.open(DB_FILE, { readonly: true });
    if (db === undefined) return empty;
    try {
      if (!checkMeta(db, this.personaId)) return empty;
      return fn(db);
    } finally {
      db.close();
    }
  }

  close(): void {
    this.#db?.close();
    this.#db = undefined;
  }
}

const ROW_QUERY = 'SELECT seq, v, type, payload, prev, hash, at FROM events ORDER BY seq';

function problemMessage(p: { file: string; seq?: number; what: string }): string {
  return `${p.file}${p.seq === undefined ? '' : ` (seq ${p.seq})`}: ${p.what}`;
}

class SqliteEvents implements EventStore {
  readonly location: string;
  readonly history: HistoryStorage;
  #store: Store;
  #now: () => Date;
  #opening: Promise<EventLogStartup> | undefined;
  #opened = false;
  #closed = false;
  #lastSeq = 0;
  #lastHash = GENESIS_HASH;
  #queue: Pending[] = [];
  #writing = false;
  #scheduled = false;
  #idle: (() => void)[] = [];
  #failure: KernelError | undefined;
  #segment: OpenSegment = { index: 1, firstSeq: 0, bytes: 0, records: 0 };
  #sealed: SegmentIndexEntry[] = [];
  #rollup: EventOpenOptions['rollup'];
  #sealing: Promise<SealOutcome | undefined> | undefined;

  constructor(store: Store, now: () => Date, personaId: string) {
    this.#store = store;
    this.#now = now;
    this.location = store.file;
    this.history = sqliteHistoryStorage(store, personaId);
  }

  open(options: EventOpenOptions = {}): Promise<EventLogStartup> {
    this.#opening ??= this.#open(options);
    return this.#opening;
  }

  async #open(options: EventOpenOptions): Promise<EventLogStartup> {
    const db = this.#store.writer('append events');
    if (openForAppend.has(this.location)) {
      throw kernelError('RTC_ERR_EVENTS_BUSY', `${this.location}: these events are already open for appends in this process; share the one backend`);
    }
    this.#rollup = options.rollup;
    const segment: OpenSegment = { index: 1, firstSeq: 0, bytes: 0, records: 0 };
    for (const item of checkEventRows(db.prepare(ROW_QUERY).iterate() as Iterable<StoredEventRow>, this.location)) {
      if (item.kind === 'problem') {
        throw kernelError(item.problem.code as 'RTC_ERR_EVENTS_CHAIN', `${problemMessage(item.problem)}; the database was left as it is`, { details: { ...item.problem } });
      }
      this.#track(segment, item.event);
      options.onEvent?.(item.event);
      this.#lastSeq = item.event.seq;
      this.#lastHash = item.event.hash;
    }
    if (segment.records > 0 && segment.index === 1 && segment.firstSeq !== 1) {
      throw kernelError('RTC_ERR_EVENTS_CHAIN', `${this.location} (seq ${segment.firstSeq}): the events start at seq ${segment.firstSeq} without a segment header: the events before it are missing; the database was left as it is`);
    }
    const sealed = checkSealedAtOpen(this.history, { index: segment.index, ...(segment.header ? { header: segment.header } : {}), label: this.location }, { rebuild: true, ...(options.rollup ? { rollup: options.rollup } : {}) });
    if (sealed.resume) {
      // The sqlite seal is one transaction: a stored segment at the open one's index is not ours.
      throw kernelError('RTC_ERR_HISTORY_SEGMENT', `${this.history.segmentsLabel}/${segment.index}: segment ${segment.index} is stored, but it is the open segment; the database was left as it is`);
    }
    this.#segment = segment;
    this.#sealed = sealed.entries;
    openForAppend.add(this.location);
    this.#opened = true;
    const hadEvents = this.#lastSeq > 0;
    if (hadEvents) await this.#enqueue('reboot', { previous_seq: this.#lastSeq, previous_hash: this.#lastHash });
    return { rebooted: hadEvents };
  }

  /** Counts one stored or appended event into the open segment's shape. */
  #track(segment: OpenSegment, event: { seq: number; type: string; payload?: unknown; at: string }, bytes?: number): void {
    if (segment.records === 0) {
      segment.firstSeq = event.seq;
      if (event.type === SEGMENT_EVENT && event.payload !== undefined) {
        segment.header = segmentHeaderSchema.parse(event.payload);
        segment.index = segment.header.segment;
      }
    }
    if (segment.firstAt === undefined && event.type !== SEGMENT_EVENT) segment.firstAt = event.at;
    segment.records += 1;
    segment.bytes += bytes ?? Buffer.byteLength(eventLine(event as EventEnvelope));
  }

  async append(type: string, payload: Record<string, unknown>): Promise<AppendResult> {
    await this.open();
    if (this.#sealing) await this.#sealing.catch(() => undefined);
    return this.#enqueue(type, payload);
  }

  #enqueue(type: string, payload: Record<string, unknown>): Promise<AppendResult> {
    if (this.#failure) return Promise.reject(this.#failure);
    if (this.#closed) return Promise.reject(kernelError('RTC_ERR_EVENTS_CLOSED', `${this.location}: the event store is closed; "${type}" was not written`));
    let row: EncodedEvent;
    try {
      row = encodeEvent(this.#lastSeq + 1, this.#lastHash, type, payload, this.#now());
    } catch (error) {
      return Promise.reject(error);
    }
    this.#lastSeq = row.seq;
    this.#lastHash = row.hash;
    // The line a segment will hold: the envelope's fixed layout around the canonical payload.
    this.#track(this.#segment, { seq: row.seq, type, at: row.at }, 181 + Buffer.byteLength(row.payloadJson) + `{"v":1,"seq":${row.seq},"type":"${type}","payload":`.length + 1);
    return new Promise<AppendResult>((resolve, reject) => {
      this.#queue.push({ seq: row.seq, hash: row.hash, row, resolve, reject });
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#writing || this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      this.#drain();
    });
  }

  /** One transaction per batch; its commit (synchronous=FULL) syncs the WAL before any ack. */
  #drain(): void {
    this.#writing = true;
    const db = this.#store.writer('append events');
    const insert = db.prepare('INSERT INTO events (seq, v, type, payload, prev, hash, at) VALUES (?, 1, ?, ?, ?, ?, ?)');
    const last = db.prepare('SELECT COALESCE(MAX(seq), 0) AS seq FROM events');
    while (this.#queue.length > 0 && !this.#failure) {
      const batch = this.#queue;
      this.#queue = [];
      try {
        db.transaction(() => {
          const stored = (last.get() as { seq: number }).seq;
          // Another process appended since this one read the chain: refuse rather than fork it.
          if (stored !== batch[0]!.seq - 1) throw new Error(`the database's last seq is ${stored}, not ${batch[0]!.seq - 1}: another writer appended`);
          for (const { row } of batch) insert.run(row.seq, row.type, row.payloadJson, row.prev, row.hash, row.at);
        }).immediate();
      } catch (error) {
        this.#fail(error, batch);
        break;
      }
      for (const pending of batch) pending.resolve({ seq: pending.seq, hash: pending.hash });
    }
    this.#writing = false;
    const idle = this.#idle;
    this.#idle = [];
    for (const resolve of idle) resolve();
  }

  #fail(error: unknown, batch: Pending[]): void {
    const reason = error instanceof Error ? error.message : String(error);
    this.#failure = kernelError('RTC_ERR_EVENTS_WRITE', `${this.location}: writing events ${batch[0]?.seq ?? '?'}.. failed (${reason}); reopen the backend`, { internal: true, cause: error });
    const failed = [...batch, ...this.#queue];
    this.#queue = [];
    for (const pending of failed) pending.reject(this.#failure);
  }

  flush(): Promise<void> {
    if (this.#failure) return Promise.reject(this.#failure);
    if (!this.#writing && !this.#scheduled && this.#queue.length === 0) return Promise.resolve();
    return new Promise<void>((resolve) => this.#idle.push(resolve)).then(() => {
      if (this.#failure) throw this.#failure;
    });
  }

  seal(options: SealOptions = {}): Promise<SealOutcome | undefined> {
    const run = (this.#sealing ?? Promise.resolve(undefined)).catch(() => undefined).then(() => this.#seal(options));
    this.#sealing = run;
    const clear = () => {
      if (this.#sealing === run) this.#sealing = undefined;
    };
    run.then(clear, clear);
    return run;
  }

  /**
   * The open rows become sealed segment N in one transaction: the segment's gzip and its index
   * line are inserted, the rows deleted, and the header of segment N+1 inserted as the only row.
   */
  async #seal(options: SealOptions): Promise<SealOutcome | undefined> {
    await this.open();
    while (this.#writing || this.#scheduled || this.#queue.length > 0) await this.flush();
    const headerOnly = this.#segment.header !== undefined ? 1 : 0;
    if (this.#segment.records <= headerOnly) return undefined;
    const db = this.#store.writer('seal events');
    const lines: string[] = [];
    for (const event of this.readOpen()) lines.push(eventLine(event));
    const bytes = Buffer.from(lines.join(''), 'utf8');
    const prepared = await prepareSeal({ segment: this.#segment.index, bytes, file: this.location, ...(options.attached ? { attached: options.attached } : {}), ...(this.#rollup ? { rollup: this.#rollup } : {}) });
    if (prepared.sealed.last_seq !== this.#lastSeq) {
      throw kernelError('RTC_ERR_EVENTS_CHAIN', `${this.location}: the stored events end at seq ${prepared.sealed.last_seq}, not at the ${this.#lastSeq} this writer appended; another writer changed them (not sealed)`);
    }
    const header = encodeEvent(this.#lastSeq + 1, this.#lastHash, SEGMENT_EVENT, prepared.header, this.#now());
    try {
      db.transaction(() => {
        const stored = (db.prepare('SELECT COALESCE(MAX(seq), 0) AS seq FROM events').get() as { seq: number }).seq;
        if (stored !== prepared.sealed.last_seq) throw new Error(`the database's last seq is ${stored}, not ${prepared.sealed.last_seq}: another writer appended`);
        db.prepare('INSERT INTO event_segments (segment, data, stub) VALUES (?, ?, NULL)').run(prepared.sealed.segment, prepared.gz);
        db.prepare('INSERT INTO event_index (segment, line) VALUES (?, ?)').run(prepared.sealed.segment, JSON.stringify(prepared.entry));
        if (prepared.rollupLine) db.prepare('INSERT INTO event_rollups (segment, line) VALUES (?, ?)').run(prepared.sealed.segment, prepared.rollupLine);
        db.prepare('DELETE FROM events WHERE seq <= ?').run(prepared.sealed.last_seq);
        db.prepare('INSERT INTO events (seq, v, type, payload, prev, hash, at) VALUES (?, 1, ?, ?, ?, ?, ?)').run(header.seq, header.type, header.payloadJson, header.prev, header.hash, header.at);
      }).immediate();
    } catch (error) {
      throw kernelError('RTC_ERR_EVENTS_WRITE', `${this.location}: sealing segment ${prepared.sealed.segment} failed (${(error as Error).message}); nothing was changed`, { cause: error });
    }
    this.#lastSeq = header.seq;
    this.#lastHash = header.hash;
    this.#sealed = [...this.#sealed, prepared.entry];
    const segment: OpenSegment = { index: prepared.header.segment, firstSeq: header.seq, header: prepared.header, bytes: 0, records: 0 };
    this.#track(segment, { seq: header.seq, type: SEGMENT_EVENT, payload: prepared.header, at: header.at }, Buffer.byteLength(eventLine({ v: 1, seq: header.seq, type: SEGMENT_EVENT, payload: prepared.header, prev: header.prev, hash: header.hash, at: header.at })));
    this.#segment = segment;
    return { entry: prepared.entry, header: { seq: header.seq, hash: header.hash } };
  }

  openSegment(): OpenSegment {
    if (this.#opened) return { ...this.#segment };
    let bytes = 0;
    const events: EventEnvelope[] = [];
    for (const event of this.readOpen()) {
      events.push(event);
      bytes += Buffer.byteLength(eventLine(event));
    }
    return openSegmentOf(events, bytes);
  }

  *#rows(start?: ScanStart): Generator<ReturnType<typeof checkEventRows> extends Generator<infer T> ? T : never> {
    const db = this.#store.sqlite.open(DB_FILE, { readonly: true });
    if (db === undefined) return;
    try {
      if (!checkMeta(db, this.#store.personaId)) return;
      yield* checkEventRows(db.prepare(ROW_QUERY).iterate() as Iterable<StoredEventRow>, this.location, start);
    } finally {
      db.close();
    }
  }

  *readOpen(): Generator<EventEnvelope> {
    for (const item of this.#rows()) {
      if (item.kind === 'event') {
        yield item.event;
        continue;
      }
      const p = item.problem;
      throw kernelError(p.code as 'RTC_ERR_EVENTS_CHAIN', problemMessage(p), { details: { ...p } });
    }
  }

  readAfter(afterSeq: number): Iterable<EventEnvelope> {
    return eventsAfter(this, afterSeq);
  }

  read(): Iterable<EventEnvelope> {
    return eventsAfter(this, 0);
  }

  #checkOpen(start: ScanStart | undefined): OpenCheck {
    const check: OpenCheck = { exists: false, records: 0, first_seq: 0, last_seq: 0, last_hash: start?.prev ?? GENESIS_HASH, problems: [] };
    check.exists = this.#store.read(() => true, false);
    for (const item of this.#rows(start)) {
      if (item.kind === 'problem') {
        check.problems.push(item.problem);
        continue;
      }
      const e = item.event;
      if (check.records === 0) {
        check.first_seq = e.seq;
        if (e.type === SEGMENT_EVENT) check.header = segmentHeaderSchema.parse(e.payload);
      }
      check.records += 1;
      check.last_seq = e.seq;
      check.last_hash = e.hash;
    }
    return check;
  }

  verify(options?: HistoryVerifyOptions): HistoryVerifyReport {
    return verifyHistory({ history: this.history, location: this.location, checkOpen: (start) => this.#checkOpen(start) }, options);
  }

  isEmpty(): boolean {
    return this.#store.read((db) => db.prepare('SELECT 1 FROM events LIMIT 1').get() === undefined, true) && this.history.list().segments.length === 0;
  }

  async importEvents(events: Iterable<EventEnvelope>, options: Pick<EventOpenOptions, 'rollup'> = {}): Promise<number> {
    if (this.#opening) throw kernelError('RTC_ERR_PERSISTENCE_EXPORT', `${this.location}: events can only be imported into a store that is not open for appends`);
    const db = this.#store.writer('import events');
    if (!this.isEmpty()) {
      throw kernelError('RTC_ERR_PERSISTENCE_EXPORT', `${DB_FILE} already holds events; an import goes only into an empty store`, { details: { file: DB_FILE } });
    }
    const insert = db.prepare('INSERT INTO events (seq, v, type, payload, prev, hash, at) VALUES (?, ?, ?, ?, ?, ?, ?)');
    const insertAll = (list: readonly EventEnvelope[]) => {
      db.transaction(() => {
        for (const e of list) insert.run(e.seq, e.v, e.type, canonicalJson(e.payload), e.prev, e.hash, e.at);
      }).immediate();
    };
    return importSegmented(events, {
      history: this.history,
      file: this.location,
      appendEvents: insertAll,
      readOpenBytes: () => {
        const rows = db.prepare(ROW_QUERY).all() as StoredEventRow[];
        const lines: string[] = [];
        for (const item of checkEventRows(rows, this.location)) if (item.kind === 'event') lines.push(eventLine(item.event));
        return Buffer.from(lines.join(''), 'utf8');
      },
      replaceOpen: (header) => {
        db.transaction(() => {
          db.prepare('DELETE FROM events').run();
          insert.run(header.seq, header.v, header.type, canonicalJson(header.payload), header.prev, header.hash, header.at);
        }).immediate();
      },
      ...(options.rollup ? { rollup: options.rollup } : {}),
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.flush().catch(() => undefined);
    if (this.#opened) openForAppend.delete(this.location);
  }
}

function memoryStore(store: Store): MemoryStore {
  const get = (name: string) =>
    store.read((db) => (db.prepare('SELECT content FROM memory WHERE name = ?').get(name) as { content: string } | undefined)?.content, undefined as string | undefined);
  return {
    readBrain: () => get(BRAIN_KEY),
    writeBrain(text) {
      checkBrainText(text);
      const db = store.writer('write brain.json');
      db.transaction(() => db.prepare('INSERT OR REPLACE INTO memory (name, content) VALUES (?, ?)').run(BRAIN_KEY, text)).immediate();
    },
    readLongTerm: () => get(LONG_TERM_KEY) ?? '',
    appendLongTerm(text) {
      if (text === '') return;
      const db = store.writer('append to long-term.md');
      db.transaction(() =>
        db.prepare('INSERT INTO memory (name, content) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET content = content || excluded.content').run(LONG_TERM_KEY, text),
      ).immediate();
    },
    isEmpty: () => store.read((db) => db.prepare("SELECT 1 FROM memory WHERE name = ? OR (name = ? AND content <> '')").get(BRAIN_KEY, LONG_TERM_KEY) === undefined, true),
  };
}

function proposalStore(store: Store): ProposalStore {
  const lines = () => store.read((db) => (db.prepare('SELECT line FROM proposals ORDER BY seq').all() as { line: string }[]).map((r) => r.line), [] as string[]);
  const location = `${store.file}#proposals`;
  return {
    location,
    append(input) {
      const list = typeof input === 'string' ? [input] : [...input];
      if (list.length === 0) return;
      list.forEach((line, i) => checkProposalLine(line, i));
      const db = store.writer('append proposal records');
      const insert = db.prepare('INSERT INTO proposals (line) VALUES (?)');
      db.transaction(() => {
        for (const line of list) insert.run(line);
      }).immediate();
    },
    lines,
    read: () => parseProposalLines(lines(), location),
    isEmpty: () => store.read((db) => db.prepare('SELECT 1 FROM proposals LIMIT 1').get() === undefined, true),
  };
}

export function createBackend(context: BackendContext): PersistenceBackend {
  const sqlite = requireStorage(context, 'sqlite');
  const store = new Store(sqlite, context.personaId, context.readonly);
  const events = new SqliteEvents(store, context.now, context.personaId);
  return {
    name: 'sqlite',
    pluginId: context.pluginId,
    personaId: context.personaId,
    personaDir: context.personaDir,
    readonly: context.readonly,
    events,
    ledger: sqlite.ledger,
    memory: memoryStore(store),
    proposals: proposalStore(store),
    async close() {
      await events.close();
      store.close();
    },
  };
}
