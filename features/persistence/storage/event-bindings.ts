/**
 * The event bindings: how a backend plugin says *where* a persona's events go, while the
 * kernel alone decides *what* is written and checks what is read. Events move by reference:
 *
 *   events.open    the plugin names the placement (a file under logs/, or its database);
 *                  the kernel checks the whole stored chain there (a damaged or newer log is
 *                  refused untouched), repairs a torn tail, and keeps the verified head
 *   events.append  the plugin names a batch id the kernel handed it; the kernel writes that
 *                  batch's bytes (or rows), which the plugin never supplies, exactly once and
 *                  in order, in one durable write (one broker call per batch: group commit
 *                  survives the isolate boundary); only then does the kernel acknowledge
 *   events.read    the plugin binds a read handle to its placement; the kernel reads and
 *                  verifies the events there itself
 *   events.import  export's verbatim copy into an empty placement, batch by batch
 *
 * So a backend can choose the place, not the content or the order: every refusal here is
 * RTC_ERR_PERSISTENCE_BACKEND (or the chain's own error at open). The placement's sealed
 * segments, index and checkpoint (features/history-segments) go with it and are the kernel's alone
 * (placement-history.ts): the open checks them, the kernel seals without asking the plugin.
 */
import { statSync } from 'node:fs';
import { DenoOpError } from '../../../kernel/broker/deno-error.ts';
import { isEventFileOpen, prepareEventFile } from '../../../kernel/events/event-log.ts';
import type { OpenSegment } from '../../../kernel/events/event-log.ts';
import { checkEventRows, eventLine, type StoredEventRow } from './rows.ts';
import { GENESIS_HASH } from '../../../kernel/events/envelope.ts';
import { noteOpenSegmentEvent } from '../../../kernel/events/open-segment.ts';
import { checkSealedAtOpen } from '../../history-segments/open-check.ts';
import { logHistory, withSegments } from '../../history-segments/segments.ts';
import { placementHistory } from './placement-history.ts';
import { kernelError } from '../../../kernel/errors.ts';
import { appendFileDurably } from '../../../kernel/storage/durable-files.ts';
import { pathArg, storageOp } from './binding-kit.ts';
import { EVENT_ROW_QUERY, KERNEL_EVENTS_DB, kernelEventsDb, pendingMigration, SQLITE_PLACEMENT_DB } from './sqlite-events-db.ts';
import { FILE_EVENT_PLACEMENTS, placementKey, type EventPlacement, type StorageSession } from './storage-session.ts';

/** sqlite event tables open for appends in this process: two writers would fork the chain. */
const sqliteOpenForAppend = new Set<string>();

function refused(message: string): never {
  throw new DenoOpError('Error', `${message}`, 'RTC_ERR_PERSISTENCE_BACKEND');
}

function readonlyRefusal(session: StorageSession, what: string): never {
  throw new DenoOpError('Error', `cannot ${what} for persona ${session.personaId}: the persistence backend was opened read-only`, 'RTC_ERR_PERSISTENCE_READONLY');
}

function filePlacement(session: StorageSession, relative: string): EventPlacement {
  const normal = relative.split('/').filter((p) => p !== '' && p !== '.').join('/');
  if (!(FILE_EVENT_PLACEMENTS as readonly string[]).includes(normal)) {
    refused(`"${relative}" is not an event placement (a files backend keeps its events at ${FILE_EVENT_PLACEMENTS.join(', ')})`);
  }
  return { kind: 'file', relative: normal, file: session.resolve(normal) };
}

/**
 * A sqlite placement: the plugin names its database (persistence.db); the kernel keeps the
 * events and their history in its own file beside it, logs/events.db (sqlite-events-db.ts).
 */
function sqlitePlacement(session: StorageSession, db: string): EventPlacement {
  const normal = db.split('/').filter((p) => p !== '' && p !== '.').join('/');
  if (normal !== SQLITE_PLACEMENT_DB) refused(`"${db}" is not a sqlite event placement (a sqlite backend names ${SQLITE_PLACEMENT_DB}; the kernel keeps its events in ${KERNEL_EVENTS_DB})`);
  return { kind: 'sqlite', db: KERNEL_EVENTS_DB, file: session.resolve(KERNEL_EVENTS_DB) };
}

/** The placement the session opened for appends, which a later append must name. */
function openedAt(session: StorageSession, placement: EventPlacement) {
  const opened = session.opened;
  if (opened === undefined) refused(`the events of persona ${session.personaId} were not opened for appends`);
  if (placementKey(opened.placement) !== placementKey(placement)) refused(`the events of persona ${session.personaId} are open at ${placementKey(opened.placement)}, not ${placementKey(placement)}`);
  return opened;
}

function fileSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

// ---- files ------------------------------------------------------------------------------

export const filesEventsOpen = storageOp({
  name: 'storage.files.events.open',
  binding: 'storage.files',
  mode: 'sync',
  parse: (o) => ({ path: pathArg(o) }),
  run(session, a) {
    if (session.readonly) readonlyRefusal(session, 'open the events for appends');
    if (session.opened) refused(`the events of persona ${session.personaId} are already open`);
    const placement = filePlacement(session, a.path);
    session.pin(placement);
    const { history } = placementHistory(session, placement);
    const prepared = prepareEventFile(placement.kind === 'file' ? placement.file : '', { history: logHistory(history), ...session.openOptions });
    const { file: _file, ...head } = prepared;
    session.opened = { placement, ...head };
    return { last_seq: prepared.lastSeq, repaired: prepared.repair !== undefined };
  },
});

export const filesEventsAppend = storageOp({
  name: 'storage.files.events.append',
  binding: 'storage.files',
  mode: 'async',
  parse: (o) => ({ path: pathArg(o), batch: o.batch }),
  async run(session, a) {
    const opened = openedAt(session, filePlacement(session, a.path));
    const { batch } = session.take(a.batch);
    await opened.sink!.write(batch);
    session.markStored(a.batch as number);
    return { stored: batch.size };
  },
});

export const filesEventsRead = storageOp({
  name: 'storage.files.events.read',
  binding: 'storage.files',
  mode: 'sync',
  parse: (o) => ({ path: pathArg(o), handle: o.handle }),
  run(session, a) {
    session.bindRead(a.handle, filePlacement(session, a.path));
    return null;
  },
});

export const filesEventsImport = storageOp({
  name: 'storage.files.events.import',
  binding: 'storage.files',
  mode: 'async',
  parse: (o) => ({ path: pathArg(o), batch: o.batch }),
  async run(session, a) {
    if (session.readonly) readonlyRefusal(session, 'import events');
    const placement = filePlacement(session, a.path) as Extract<EventPlacement, { kind: 'file' }>;
    session.pin(placement);
    if (session.opened || isEventFileOpen(placement.file)) refused(`${placement.relative}: events can only be imported into a log that is not open for appends`);
    const handed = session.take(a.batch);
    if (handed.firstSeq === 1 && fileSize(placement.file) !== 0) {
      throw kernelError('RTC_ERR_PERSISTENCE_EXPORT', `${placement.relative} already holds events; an import goes only into an empty log`, { details: { file: placement.relative } });
    }
    appendFileDurably(placement.file, handed.batch.text());
    session.markStored(a.batch as number);
    return { stored: handed.batch.size };
  },
});

// ---- sqlite -----------------------------------------------------------------------------

type RowItem = ReturnType<typeof checkEventRows> extends Generator<infer T> ? T : never;

/**
 * A table placement's sealed side, checked at open (features/history-segments/open-check.ts). Its seal is
 * one transaction, so a stored segment at the open one's index is not a seal cut short: refused.
 */
export function sealedAtOpen(session: StorageSession, placement: EventPlacement, segment: OpenSegment, label: string) {
  const { history } = placementHistory(session, placement);
  const rollup = session.openOptions.rollup;
  const sealed = checkSealedAtOpen(history, { index: segment.index, ...(segment.header ? { header: segment.header } : {}), label }, { rebuild: true, ...(rollup ? { rollup } : {}) });
  if (sealed.resume) {
    throw kernelError('RTC_ERR_HISTORY_SEGMENT', `${history.segmentLabel(segment.index)}: segment ${segment.index} is stored, but it is the open segment; the store was left as it is`);
  }
  return withSegments(sealed);
}

/**
 * A table placement's open: every stored row checked (a damaged chain is refused, the store
 * left as it is), the open segment's shape noted, each event handed to `onEvent`.
 */
export function openRows(items: Iterable<RowItem>, where: string, onEvent?: (event: import('../../../kernel/events/envelope.ts').EventEnvelope) => void): { lastSeq: number; lastHash: string; segment: OpenSegment } {
  let lastSeq = 0;
  let lastHash = GENESIS_HASH;
  const segment: OpenSegment = { index: 1, firstSeq: 0, bytes: 0, records: 0 };
  for (const item of items) {
    if (item.kind === 'problem') {
      const p = item.problem;
      throw kernelError(p.code as 'RTC_ERR_EVENTS_CHAIN', `${p.file}${p.seq === undefined ? '' : ` (seq ${p.seq})`}: ${p.what}; the database was left as it is`, { details: { ...p } });
    }
    noteOpenSegmentEvent(segment, item.event);
    segment.bytes += Buffer.byteLength(eventLine(item.event));
    onEvent?.(item.event);
    lastSeq = item.event.seq;
    lastHash = item.event.hash;
  }
  if (segment.records > 0 && segment.index === 1 && segment.firstSeq !== 1) {
    throw kernelError('RTC_ERR_EVENTS_CHAIN', `${where} (seq ${segment.firstSeq}): the events start at seq ${segment.firstSeq} without a segment header: the events before it are missing; the database was left as it is`);
  }
  return { lastSeq, lastHash, segment };
}

export const sqliteEventsOpen = storageOp({
  name: 'storage.sqlite.events.open',
  binding: 'storage.sqlite',
  mode: 'sync',
  parse: (o) => ({ db: pathArg(o, 'db') }),
  run(session, a) {
    if (session.readonly) readonlyRefusal(session, 'open the events for appends');
    if (session.opened) refused(`the events of persona ${session.personaId} are already open`);
    const placement = sqlitePlacement(session, a.db) as Extract<EventPlacement, { kind: 'sqlite' }>;
    session.pin(placement);
    if (sqliteOpenForAppend.has(placement.file)) {
      throw kernelError('RTC_ERR_EVENTS_BUSY', `${placement.file}: these events are already open for appends in this process; share the one backend`);
    }
    const db = kernelEventsDb(session);
    const options = session.openOptions;
    const head = openRows(checkEventRows(db.prepare(EVENT_ROW_QUERY).iterate() as Iterable<StoredEventRow>, placement.file), placement.file, options.onEvent);
    const { lastSeq } = head;
    const sealed = sealedAtOpen(session, placement, head.segment, placement.file);
    sqliteOpenForAppend.add(placement.file);
    session.closers.push(() => void sqliteOpenForAppend.delete(placement.file));
    const migrated = pendingMigration(db);
    session.opened = { placement, ...head, sealed, ...(migrated ? { migrated } : {}) };
    return { last_seq: lastSeq, repaired: false };
  },
});

function insertRows(session: StorageSession, placement: Extract<EventPlacement, { kind: 'sqlite' }>, id: unknown, mode: 'append' | 'import'): number {
  const handed = session.take(id);
  const db = kernelEventsDb(session);
  const insert = db.prepare('INSERT INTO events (seq, v, type, payload, prev, hash, at) VALUES (?, 1, ?, ?, ?, ?, ?)');
  const last = db.prepare('SELECT COALESCE(MAX(seq), 0) AS seq FROM events');
  const rows = handed.batch.rows;
  if (rows.length !== handed.batch.size) throw kernelError('RTC_ERR_PERSISTENCE_BACKEND', 'a batch without its rows was handed to a sqlite placement', { internal: true });
  db.transaction(() => {
    const stored = (last.get() as { seq: number }).seq;
    if (mode === 'import' && handed.firstSeq === 1 && stored !== 0) {
      throw kernelError('RTC_ERR_PERSISTENCE_EXPORT', `${placement.db} already holds events; an import goes only into an empty store`, { details: { file: placement.db } });
    }
    // Another process appended since this one read the chain: refuse rather than fork it.
    if (stored !== handed.firstSeq - 1) throw new Error(`the database's last seq is ${stored}, not ${handed.firstSeq - 1}: another writer appended`);
    for (const r of rows) insert.run(r.seq, r.type, r.payloadJson, r.prev, r.hash, r.at);
  }).immediate();
  session.markStored(id as number);
  return rows.length;
}

export const sqliteEventsAppend = storageOp({
  name: 'storage.sqlite.events.append',
  binding: 'storage.sqlite',
  mode: 'async',
  parse: (o) => ({ db: pathArg(o, 'db'), batch: o.batch }),
  async run(session, a) {
    const opened = openedAt(session, sqlitePlacement(session, a.db));
    return { stored: insertRows(session, opened.placement as Extract<EventPlacement, { kind: 'sqlite' }>, a.batch, 'append') };
  },
});

export const sqliteEventsRead = storageOp({
  name: 'storage.sqlite.events.read',
  binding: 'storage.sqlite',
  mode: 'sync',
  parse: (o) => ({ db: pathArg(o, 'db'), handle: o.handle }),
  run(session, a) {
    session.bindRead(a.handle, sqlitePlacement(session, a.db));
    return null;
  },
});

export const sqliteEventsImport = storageOp({
  name: 'storage.sqlite.events.import',
  binding: 'storage.sqlite',
  mode: 'async',
  parse: (o) => ({ db: pathArg(o, 'db'), batch: o.batch }),
  async run(session, a) {
    if (session.readonly) readonlyRefusal(session, 'import events');
    const placement = sqlitePlacement(session, a.db) as Extract<EventPlacement, { kind: 'sqlite' }>;
    session.pin(placement);
    if (session.opened || sqliteOpenForAppend.has(placement.file)) refused(`${a.db}: events can only be imported into a store that is not open for appends`);
    return { stored: insertRows(session, placement, a.batch, 'import') };
  },
});

export const EVENT_BINDING_OPS = [filesEventsOpen, filesEventsAppend, filesEventsRead, filesEventsImport, sqliteEventsOpen, sqliteEventsAppend, sqliteEventsRead, sqliteEventsImport];
