/**
 * The history side of an event placement (features/history-segments): where a placement's sealed
 * segments, index, rollups and checkpoint are, and how its open segment is read, checked,
 * sealed and replaced. All of it is the kernel's: a backend plugin names the placement
 * (events.open / events.read), the kernel decides what a seal holds (kernel/events/event-log.ts)
 * and stores it here, so a plugin can no more forge a sealed segment than the open chain.
 *
 *   file      (jsonl-fs)  the segments, index and checkpoint as files beside logs/events.jsonl
 *                         (features/history-segments/file-storage.ts); the seal is the FileSink's
 *   sqlite    (sqlite)    the kernel's tables event_segments, event_index, event_rollups and
 *                         history_documents in the placement's database; the seal is one
 *                         IMMEDIATE transaction (the open rows become one segment row)
 *   postgres              registered by postgres/pg-history.ts (same shape, rows keyed by persona)
 */
import path from 'node:path';
import type Database from 'better-sqlite3';
import { kernelError } from '../../../kernel/errors.ts';
import type { EventEnvelope } from '../../../kernel/events/envelope.ts';
import type { SealRequest } from '../../../kernel/events/event-log.ts';
import { checkEventRows, eventLine, type StoredEventRow } from './rows.ts';
import type { ScanStart } from '../../../kernel/events/scan.ts';
import { SEGMENT_EVENT, segmentHeaderSchema } from '../../../kernel/events/segment-header.ts';
import { fileHistoryStorage } from '../../history-segments/file-storage.ts';
import { checkOpenFile } from '../../history-segments/open-file-check.ts';
import type { HistoryStorage } from '../../../kernel/contracts/history-storage.ts';
import type { OpenCheck } from '../../history-segments/verify.ts';
import { canonicalJson } from '../../../kernel/events/canonical.ts';
import { replaceFileDurably } from '../../../kernel/storage/durable-files.ts';
import { readFileSync } from 'node:fs';
import { EVENT_ROW_QUERY, kernelEventsDb, openEventsReader } from './sqlite-events-db.ts';
import { sqliteHistoryStorage } from './sqlite-history.ts';
import type { EventPlacement, StorageSession } from './storage-session.ts';

export interface PlacementHistory {
  readonly history: HistoryStorage;
  /** The open segment's records as their JSONL lines (what a seal compresses). */
  openBytes(): Buffer;
  /** The open segment checked from `start` (verify). */
  checkOpen(start: ScanStart | undefined): OpenCheck;
  /** Stores a seal the log prepared: the segment, its index and rollup, and the next header as the open segment. */
  seal(request: SealRequest): Promise<void>;
  /** Import: the open segment becomes this one record (the next segment's header). */
  replaceOpen(header: EventEnvelope): void;
}

type RowItem = ReturnType<typeof checkEventRows> extends Generator<infer T> ? T : never;

/** An OpenCheck from checked rows (a table's open segment). */
export function checkOpenRows(items: Iterable<RowItem>, exists: boolean, start: ScanStart | undefined): OpenCheck {
  const check: OpenCheck = { exists, records: 0, first_seq: 0, last_seq: 0, last_hash: start?.prev ?? '', problems: [] };
  for (const item of items) {
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

/** The open segment's JSONL bytes from checked rows; the first problem is thrown. */
export function openBytesOfRows(items: Iterable<RowItem>): Buffer {
  const lines: string[] = [];
  for (const item of items) {
    if (item.kind === 'problem') {
      const q = item.problem;
      throw kernelError(q.code as 'RTC_ERR_EVENTS_CHAIN', `${q.file}${q.seq === undefined ? '' : ` (seq ${q.seq})`}: ${q.what}; not sealed`, { details: { ...q } });
    }
    lines.push(eventLine(item.event));
  }
  return Buffer.from(lines.join(''), 'utf8');
}

/** How a placement kind this module does not know (postgres) gives its history. */
export type PlacementHistoryFactory = (session: StorageSession, p: EventPlacement) => PlacementHistory;

const factories = new Map<EventPlacement['kind'], PlacementHistoryFactory>();

export function registerPlacementHistory(kind: EventPlacement['kind'], factory: PlacementHistoryFactory): void {
  factories.set(kind, factory);
}

export function placementHistory(session: StorageSession, p: EventPlacement): PlacementHistory {
  if (p.kind === 'file') return fileHistory(session, p);
  if (p.kind === 'sqlite') return sqliteHistory(session, p);
  const factory = factories.get(p.kind);
  if (!factory) throw kernelError('RTC_ERR_PERSISTENCE_BACKEND', `no history for ${p.kind} event placements in this kernel`, { internal: true });
  return factory(session, p);
}

function fileHistory(session: StorageSession, p: Extract<EventPlacement, { kind: 'file' }>): PlacementHistory {
  const history = fileHistoryStorage({ dir: path.dirname(p.file), label: `${session.personaId}/${path.dirname(p.relative)}`, readonly: session.readonly });
  return {
    history,
    openBytes: () => readFileSync(p.file),
    checkOpen: (start) => checkOpenFile(p.file, start),
    async seal(request) {
      const sink = session.opened?.sink;
      if (!sink) throw kernelError('RTC_ERR_PERSISTENCE_BACKEND', `${p.relative}: the events of persona ${session.personaId} are not open for appends; not sealed`, { internal: true });
      await sink.seal(request);
    },
    replaceOpen: (header) => replaceFileDurably(p.file, eventLine(header)),
  };
}

function sqliteHistory(session: StorageSession, p: Extract<EventPlacement, { kind: 'sqlite' }>): PlacementHistory {
  // Reads go to the kernel's logs/events.db (or, before this version first wrote the persona, the previous layout's persistence.db).
  const read = <T>(fn: (db: Database.Database) => T, empty: T): T => {
    const db = openEventsReader(session.personaDir)?.db;
    if (db === undefined) return empty;
    try {
      return fn(db);
    } finally {
      db.close();
    }
  };
  const writer = (what: string): Database.Database => {
    if (session.readonly) throw kernelError('RTC_ERR_PERSISTENCE_READONLY', `cannot ${what}: the persistence backend was opened read-only`);
    return kernelEventsDb(session);
  };
  const history = sqliteHistoryStorage({ read, writer, readonly: session.readonly }, session.personaId, p.db);
  const rows = function* (start?: ScanStart): Generator<RowItem> {
    const reader = openEventsReader(session.personaDir);
    if (reader === undefined) return;
    const { db, file } = reader;
    try {
      if (db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'events'").get() === undefined) return;
      yield* checkEventRows(db.prepare(EVENT_ROW_QUERY).iterate() as Iterable<StoredEventRow>, file, start);
    } finally {
      db.close();
    }
  };
  return {
    history,
    openBytes: () => openBytesOfRows(rows()),
    checkOpen: (start) => checkOpenRows(rows(start), read(() => true, false), start),
    async seal(request) {
      const { prepared, header } = request;
      const db = writer('seal events');
      const r = header.row;
      try {
        db.transaction(() => {
          const stored = (db.prepare('SELECT COALESCE(MAX(seq), 0) AS seq FROM events').get() as { seq: number }).seq;
          if (stored !== prepared.sealed.last_seq) throw new Error(`the database's last seq is ${stored}, not ${prepared.sealed.last_seq}: another writer appended`);
          db.prepare('INSERT INTO event_segments (segment, data, stub) VALUES (?, ?, NULL)').run(prepared.sealed.segment, prepared.gz);
          db.prepare('INSERT INTO event_index (segment, line) VALUES (?, ?)').run(prepared.sealed.segment, JSON.stringify(prepared.entry));
          if (prepared.rollupLine) db.prepare('INSERT INTO event_rollups (segment, line) VALUES (?, ?)').run(prepared.sealed.segment, prepared.rollupLine);
          db.prepare('DELETE FROM events WHERE seq <= ?').run(prepared.sealed.last_seq);
          db.prepare('INSERT INTO events (seq, v, type, payload, prev, hash, at) VALUES (?, 1, ?, ?, ?, ?, ?)').run(r.seq, r.type, r.payloadJson, r.prev, r.hash, r.at);
        }).immediate();
      } catch (error) {
        // One transaction: nothing was changed, and the log goes on appending to the open segment.
        throw kernelError('RTC_ERR_EVENTS_WRITE', `${p.file}: sealing segment ${prepared.sealed.segment} failed (${(error as Error).message}); nothing was changed`, { cause: error });
      }
    },
    replaceOpen(header) {
      const db = writer('import events');
      db.transaction(() => {
        db.prepare('DELETE FROM events').run();
        db.prepare('INSERT INTO events (seq, v, type, payload, prev, hash, at) VALUES (?, ?, ?, ?, ?, ?, ?)').run(header.seq, header.v, header.type, canonicalJson(header.payload), header.prev, header.hash, header.at);
      }).immediate();
    },
  };
}
