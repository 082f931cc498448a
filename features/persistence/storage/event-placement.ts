/**
 * The kernel's own reads of a placement: whatever a backend plugin is, the events the kernel
 * reads back, verifies and hands on come from the placement's storage through this code, so
 * a plugin can neither feed the kernel a forged history nor hide a damaged one.
 */
import { readEvents } from '../../../kernel/events/verify.ts';
import type { EventEnvelope } from '../../../kernel/events/envelope.ts';
import { checkEventRows, type StoredEventRow } from './rows.ts';
import { kernelError } from '../../../kernel/errors.ts';
import { EVENT_ROW_QUERY, openEventsReader } from './sqlite-events-db.ts';
import type { EventPlacement } from './storage-session.ts';
import { statSync } from 'node:fs';
import path from 'node:path';

/** The persona folder of a sqlite placement (its file is <persona>/logs/events.db). */
function personaOf(p: Extract<EventPlacement, { kind: 'sqlite' }>): string {
  return path.dirname(path.dirname(p.file));
}

/** Where a placement is, for messages and `location`. */
export function placementLocation(p: EventPlacement): string {
  return p.kind === 'postgres' ? `${p.bridge.where}#events(${p.persona})` : p.file;
}

function hasEventsTable(db: import('better-sqlite3').Database): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'events'").get() !== undefined;
}

/** A sqlite placement's rows, from the kernel's file (or a previous version's persistence.db not moved yet). */
function* sqliteRows(p: Extract<EventPlacement, { kind: 'sqlite' }>): Generator<ReturnType<typeof checkEventRows> extends Generator<infer T> ? T : never> {
  const reader = openEventsReader(personaOf(p));
  if (reader === undefined) return;
  try {
    if (!hasEventsTable(reader.db)) return;
    yield* checkEventRows(reader.db.prepare(EVENT_ROW_QUERY).iterate() as Iterable<StoredEventRow>, reader.file);
  } finally {
    reader.db.close();
  }
}

/** A placement kind this module does not read itself (postgres) registers its reader here. */
export interface PlacementReader {
  read(p: EventPlacement): Iterable<EventEnvelope>;
  isEmpty(p: EventPlacement): boolean;
}

const readers = new Map<EventPlacement['kind'], PlacementReader>();

export function registerPlacementReader(kind: EventPlacement['kind'], reader: PlacementReader): void {
  readers.set(kind, reader);
}

function other(p: EventPlacement): PlacementReader {
  const reader = readers.get(p.kind);
  if (!reader) throw kernelError('RTC_ERR_PERSISTENCE_BACKEND', `no reader for ${p.kind} event placements in this kernel`, { internal: true });
  return reader;
}

/** The events at a placement, in order; throws the first problem as a KernelError (a torn file tail is skipped). */
export function* readPlacement(p: EventPlacement): Generator<EventEnvelope> {
  if (p.kind === 'file') {
    yield* readEvents(p.file);
    return;
  }
  if (p.kind === 'sqlite') {
    for (const item of sqliteRows(p)) {
      if (item.kind === 'event') {
        yield item.event;
        continue;
      }
      const q = item.problem;
      throw kernelError(q.code as 'RTC_ERR_EVENTS_CHAIN', `${q.file}${q.seq === undefined ? '' : ` (seq ${q.seq})`}: ${q.what}`, { details: { ...q } });
    }
    return;
  }
  yield* other(p).read(p);
}

export function placementIsEmpty(p: EventPlacement): boolean {
  if (p.kind === 'file') {
    try {
      return statSync(p.file).size === 0;
    } catch {
      return true;
    }
  }
  if (p.kind === 'sqlite') {
    const db = openEventsReader(personaOf(p))?.db;
    if (db === undefined) return true;
    try {
      return !hasEventsTable(db) || db.prepare('SELECT 1 FROM events LIMIT 1').get() === undefined;
    } finally {
      db.close();
    }
  }
  return other(p).isEmpty(p);
}
