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
import type { AppendResult, EventLogStartup } from '../../kernel/events/event-log.ts';
import { canonicalJson } from '../../kernel/events/canonical.ts';
import { GENESIS_HASH, type EventEnvelope } from '../../kernel/events/envelope.ts';
import type { BackendContext, EventChainReport, EventStore, MemoryStore, PersistenceBackend, ProposalStore } from '../../kernel/contracts/persistence.ts';
import { checkEventRows, encodeEvent, type EncodedEvent, type StoredEventRow } from '../../features/persistence/event-codec.ts';
import { requireStorage } from '../../features/persistence/open.ts';
import { checkBrainText, checkProposalLine, parseProposalLines } from '../../features/persistence/records.ts';
import type { PersonaSqlite } from '../../kernel/storage/persona-storage.ts';
import { BRAIN_KEY, checkMeta, createSchema, DB_FILE, LONG_TERM_KEY } from './schema.ts';

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

class SqliteEvents implements EventStore {
  readonly location: string;
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

  constructor(store: Store, now: () => Date) {
    this.#store = store;
    this.#now = now;
    this.location = store.file;
  }

  open(): Promise<EventLogStartup> {
    this.#opening ??= this.#open();
    return this.#opening;
  }

  async #open(): Promise<EventLogStartup> {
    const db = this.#store.writer('append events');
    if (openForAppend.has(this.location)) {
      throw kernelError('RTC_ERR_EVENTS_BUSY', `${this.location}: these events are already open for appends in this process; share the one backend`);
    }
    for (const item of checkEventRows(db.prepare(ROW_QUERY).iterate() as Iterable<StoredEventRow>, this.location)) {
      if (item.kind === 'problem') {
        const p = item.problem;
        throw kernelError(p.code as 'RTC_ERR_EVENTS_CHAIN', `${p.file}${p.seq === undefined ? '' : ` (seq ${p.seq})`}: ${p.what}; the database was left as it is`, { details: { ...p } });
      }
      this.#lastSeq = item.event.seq;
      this.#lastHash = item.event.hash;
    }
    openForAppend.add(this.location);
    this.#opened = true;
    const hadEvents = this.#lastSeq > 0;
    if (hadEvents) await this.#enqueue('reboot', { previous_seq: this.#lastSeq, previous_hash: this.#lastHash });
    return { rebooted: hadEvents };
  }

  async append(type: string, payload: Record<string, unknown>): Promise<AppendResult> {
    await this.open();
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

  *read(): Generator<EventEnvelope> {
    const db = this.#store.sqlite.open(DB_FILE, { readonly: true });
    if (db === undefined) return;
    try {
      if (!checkMeta(db, this.#store.personaId)) return;
      for (const item of checkEventRows(db.prepare(ROW_QUERY).iterate() as Iterable<StoredEventRow>, this.location)) {
        if (item.kind === 'event') {
          yield item.event;
          continue;
        }
        const p = item.problem;
        throw kernelError(p.code as 'RTC_ERR_EVENTS_CHAIN', `${p.file}${p.seq === undefined ? '' : ` (seq ${p.seq})`}: ${p.what}`, { details: { ...p } });
      }
    } finally {
      db.close();
    }
  }

  verify(): EventChainReport {
    const report: EventChainReport = { file: this.location, exists: false, events: 0, lastSeq: 0, lastHash: GENESIS_HASH, problems: [], ok: true };
    return this.#store.read((db) => {
      report.exists = true;
      for (const item of checkEventRows(db.prepare(ROW_QUERY).iterate() as Iterable<StoredEventRow>, this.location)) {
        if (item.kind === 'event') {
          report.events += 1;
          report.lastSeq = item.event.seq;
          report.lastHash = item.event.hash;
        } else {
          report.problems.push(item.problem);
          report.ok = false;
        }
      }
      return report;
    }, report);
  }

  isEmpty(): boolean {
    return this.#store.read((db) => db.prepare('SELECT 1 FROM events LIMIT 1').get() === undefined, true);
  }

  async importEvents(events: Iterable<EventEnvelope>): Promise<number> {
    if (this.#opening) throw kernelError('RTC_ERR_PERSISTENCE_EXPORT', `${this.location}: events can only be imported into a store that is not open for appends`);
    const db = this.#store.writer('import events');
    const insert = db.prepare('INSERT INTO events (seq, v, type, payload, prev, hash, at) VALUES (?, ?, ?, ?, ?, ?, ?)');
    let count = 0;
    db.transaction(() => {
      if (db.prepare('SELECT 1 FROM events LIMIT 1').get() !== undefined) {
        throw kernelError('RTC_ERR_PERSISTENCE_EXPORT', `${DB_FILE} already holds events; an import goes only into an empty store`, { details: { file: DB_FILE } });
      }
      for (const e of events) {
        insert.run(e.seq, e.v, e.type, canonicalJson(e.payload), e.prev, e.hash, e.at);
        count += 1;
      }
    }).immediate();
    return count;
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
  const events = new SqliteEvents(store, context.now);
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
