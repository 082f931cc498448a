/**
 * The kernel's own database for a sqlite placement: `<persona>/logs/events.db`, holding the
 * chain (`events`), its history (`event_segments`, `event_index`, `event_rollups`,
 * `history_documents`, sqlite-history.ts) and `kernel_meta`. It is a separate file from the
 * plugin's `persistence.db`, under `logs/` (the kernel's files, session.isKernelFile): no
 * plugin connection ever opens it, so no plugin statement can read, write, rename or drop
 * anything in it, whatever its text (the plugin's connection holds only its own file; ATTACH
 * and VACUUM INTO are refused, sqlite-statement.ts). The kernel writes it through its own
 * connection (WAL, synchronous=FULL, trusted_schema off) and reads it through read-only ones.
 *
 * **Moving the kernel's tables out of a previous version's persistence.db.** Before issue
 * 27 the kernel's tables lived inside the plugin's persistence.db. The first writable use of
 * a sqlite persona by this version (the plugin's first writable connection, or the kernel's
 * events open) moves them, before any plugin statement runs:
 *
 *   1. the legacy tables are copied, row for row, into `logs/events.db.migrating` through the
 *      kernel's connection (ATTACH is the kernel's to use, never a plugin's), the copy's
 *      counts and last event compared with the source, and `kernel_meta` records the move
 *      (`migration: copied`, from, events, last seq and hash, segments);
 *   2. the file is synced and renamed to `logs/events.db` (a crash before leaves the old
 *      layout whole: the next open starts again);
 *   3. the tables are dropped from persistence.db in one transaction, and the record says
 *      `migration: done` (a crash between 2 and 3 finds `copied`: the next open compares the
 *      two again and drops them, or refuses with one line if they differ).
 *
 * The next events open appends `storage_migrated` to the chain (once: `kernel_meta.logged`).
 * A read-only session of a persona not moved yet reads the old tables where they are. From a
 * persona's first writable use by this version on, persistence.db is never read for events
 * again: what a plugin writes there later (a table of its own named `events`) is its own.
 */
import { createHash } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { kernelError } from '../../../kernel/errors.ts';
import { syncDirectory } from '../../../kernel/storage/durable-files.ts';
import { HISTORY_TABLES, HISTORY_TABLES_SQL } from './sqlite-history.ts';
import type { StorageSession } from './storage-session.ts';

/** Where a sqlite placement's events are, relative to the persona folder (under the kernel's logs/). */
export const KERNEL_EVENTS_DB = 'logs/events.db';
/** The plugin database a sqlite placement names (and where versions before issue 27 kept the kernel's tables). */
export const SQLITE_PLACEMENT_DB = 'persistence.db';

export const EVENTS_TABLE_SQL = `CREATE TABLE IF NOT EXISTS events (
  seq INTEGER PRIMARY KEY, v INTEGER NOT NULL, type TEXT NOT NULL, payload TEXT NOT NULL,
  prev TEXT NOT NULL, hash TEXT NOT NULL, at TEXT NOT NULL)`;

export const EVENT_ROW_QUERY = 'SELECT seq, v, type, payload, prev, hash, at FROM events ORDER BY seq';

const KERNEL_META_SQL = 'CREATE TABLE IF NOT EXISTS kernel_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)';
const KERNEL_DB_FORMAT = 'runtimectl-kernel-events';
const KERNEL_DB_VERSION = 1;

/** The kernel's tables a previous version kept in persistence.db, with their columns. */
const LEGACY_TABLES: readonly { name: string; columns: string }[] = [
  { name: 'events', columns: 'seq, v, type, payload, prev, hash, at' },
  { name: 'event_segments', columns: 'segment, data, stub' },
  { name: 'event_index', columns: 'segment, line' },
  { name: 'event_rollups', columns: 'segment, line' },
  { name: 'history_documents', columns: 'name, content' },
];
const KERNEL_TABLE_NAMES: readonly string[] = ['events', ...HISTORY_TABLES];

export interface MigrationRecord {
  from: string;
  to: string;
  /** rows of the open segment moved (the sealed events are in the segments) */
  open_events: number;
  last_seq: number;
  segments: number;
}

function corrupt(file: string, what: string, cause?: unknown): never {
  throw kernelError('RTC_ERR_PERSISTENCE_CORRUPT', `${file}: ${what}; the file was left as it is`, { details: { file }, ...(cause === undefined ? {} : { cause }) });
}

/** The kernel's pragmas on any connection of its own: no schema it did not write is trusted. */
function kernelPragmas(db: Database.Database, write: boolean): void {
  db.pragma('busy_timeout = 5000');
  db.pragma('trusted_schema = OFF');
  if (write) {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
  }
}

function tableTypes(db: Database.Database): Map<string, string> {
  const rows = db.prepare('SELECT type, name FROM sqlite_master').all() as { type: string; name: string }[];
  return new Map(rows.map((r) => [r.name.toLowerCase(), r.type]));
}

/** The kernel tables a database holds (a previous version's persistence.db); refuses one that is a view or a trigger's name. */
function legacyTablesIn(db: Database.Database, file: string): string[] {
  const types = tableTypes(db);
  const found = KERNEL_TABLE_NAMES.filter((t) => types.has(t));
  for (const t of found) if (types.get(t) !== 'table') corrupt(file, `"${t}" is a ${types.get(t)}, not the kernel's table of that name`);
  return found;
}

function readMeta(db: Database.Database): Map<string, string> {
  const has = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'kernel_meta'").get() !== undefined;
  if (!has) return new Map();
  return new Map((db.prepare('SELECT key, value FROM kernel_meta').all() as { key: string; value: string }[]).map((r) => [r.key, r.value]));
}

function paths(session: StorageSession) {
  const kernel = path.join(session.personaDir, KERNEL_EVENTS_DB);
  const legacy = path.join(session.personaDir, SQLITE_PLACEMENT_DB);
  return { kernel, legacy, shown: `${session.personaId}/${KERNEL_EVENTS_DB}`, shownLegacy: `${session.personaId}/${SQLITE_PLACEMENT_DB}` };
}

/** A read-only kernel handle on `file` (undefined when it does not exist). */
export function openKernelReadOnly(file: string): Database.Database | undefined {
  if (!existsSync(file)) return undefined;
  let db: Database.Database;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
  } catch (error) {
    corrupt(path.basename(file), `cannot be opened as a sqlite database (${(error as Error).message.split('\n')[0]})`, error);
  }
  kernelPragmas(db, false);
  return db;
}

/**
 * A read-only handle on the file holding this persona's sqlite events (eventsFileToRead), or
 * undefined when there is none. The kernel's file is refused when a newer runtimectl wrote it.
 */
export function openEventsReader(personaDir: string): { db: Database.Database; file: string } | undefined {
  const file = eventsFileToRead(personaDir);
  const db = openKernelReadOnly(file);
  if (db === undefined) return undefined;
  if (file.endsWith(KERNEL_EVENTS_DB)) {
    try {
      const version = readMeta(db).get('schema_version');
      if (version !== undefined && !(Number(version) <= KERNEL_DB_VERSION)) {
        throw kernelError('RTC_ERR_PERSISTENCE_SCHEMA_NEWER', `${file}: schema version ${version} is newer than the ${KERNEL_DB_VERSION} this runtimectl supports; upgrade runtimectl (the file was left untouched)`, { details: { file } });
      }
    } catch (error) {
      db.close();
      throw error;
    }
  }
  return { db, file };
}

/**
 * The file a reader finds this persona's sqlite events in: the kernel's logs/events.db, or,
 * for a persona no writable session of this version has opened yet, the previous version's
 * persistence.db. Never the plugin's file once the kernel's exists.
 */
export function eventsFileToRead(personaDir: string): string {
  const kernel = path.join(personaDir, KERNEL_EVENTS_DB);
  if (existsSync(kernel)) return kernel;
  const legacy = path.join(personaDir, SQLITE_PLACEMENT_DB);
  const db = openKernelReadOnly(legacy);
  if (db === undefined) return kernel;
  try {
    return tableTypes(db).get('events') === 'table' ? legacy : kernel;
  } catch {
    return kernel;
  } finally {
    db.close();
  }
}

function checkOwner(meta: Map<string, string>, session: StorageSession, shown: string): void {
  if (meta.size === 0) return;
  if (meta.get('format') !== KERNEL_DB_FORMAT) corrupt(shown, `kernel_meta.format is ${JSON.stringify(meta.get('format') ?? null)}, not ${KERNEL_DB_FORMAT}`);
  const version = Number(meta.get('schema_version'));
  if (!Number.isInteger(version) || version > KERNEL_DB_VERSION) {
    throw kernelError('RTC_ERR_PERSISTENCE_SCHEMA_NEWER', `${shown}: schema version ${meta.get('schema_version')} is newer than the ${KERNEL_DB_VERSION} this runtimectl supports; upgrade runtimectl (the file was left untouched)`, { details: { file: shown } });
  }
  if (meta.get('persona_id') !== session.personaId) corrupt(shown, `belongs to persona ${JSON.stringify(meta.get('persona_id') ?? null)}, not ${session.personaId}; an events database is never shared between personas`);
}

/** A digest of every row of the kernel tables in `schema` of `db` (main, or an attached legacy file), table by table in key order. */
function fingerprint(db: Database.Database, schema: string, tables: readonly string[]): string {
  const hash = createHash('sha256');
  for (const t of tables) {
    const columns = LEGACY_TABLES.find((x) => x.name === t)!.columns;
    let rows = 0;
    for (const row of db.prepare(`SELECT ${columns} FROM ${schema}."${t}" ORDER BY 1`).raw().iterate() as Iterable<unknown[]>) {
      rows += 1;
      hash.update(JSON.stringify(row.map((v) => (Buffer.isBuffer(v) ? `x${v.toString('hex')}` : typeof v === 'bigint' ? String(v) : v))));
      hash.update('\n');
    }
    hash.update(`${t}:${rows}\n`);
  }
  return `sha256:${hash.digest('hex')}`;
}

/** Copies the legacy tables into a new kernel database at `kernel` (steps 1 and 2 above); returns the record. */
function copyOut(session: StorageSession, legacyFile: string, tables: string[], kernelFile: string): MigrationRecord {
  const { shown, shownLegacy } = paths(session);
  const tmp = `${kernelFile}.migrating`;
  rmSync(tmp, { force: true });
  rmSync(`${tmp}-journal`, { force: true });
  mkdirSync(path.dirname(kernelFile), { recursive: true });
  const db = new Database(tmp);
  let record: MigrationRecord;
  try {
    kernelPragmas(db, false);
    db.exec(EVENTS_TABLE_SQL);
    db.exec(HISTORY_TABLES_SQL);
    db.exec(KERNEL_META_SQL);
    db.prepare('ATTACH DATABASE ? AS legacy').run(legacyFile);
    db.transaction(() => {
      for (const t of tables) {
        const columns = LEGACY_TABLES.find((x) => x.name === t)!.columns;
        db.exec(`INSERT INTO main."${t}" (${columns}) SELECT ${columns} FROM legacy."${t}"`);
      }
      const copied = fingerprint(db, 'main', tables);
      const source = fingerprint(db, 'legacy', tables);
      if (copied !== source) throw new Error(`the copy (${copied}) differs from the source (${source})`);
      const last = db.prepare('SELECT seq FROM main.events ORDER BY seq DESC LIMIT 1').get() as { seq: number } | undefined;
      record = {
        from: SQLITE_PLACEMENT_DB,
        to: KERNEL_EVENTS_DB,
        open_events: (db.prepare('SELECT count(*) AS n FROM main.events').get() as { n: number }).n,
        last_seq: last?.seq ?? 0,
        segments: (db.prepare('SELECT count(*) AS n FROM main.event_segments').get() as { n: number }).n,
      };
      const meta = db.prepare('INSERT INTO kernel_meta (key, value) VALUES (?, ?)');
      for (const [k, v] of [
        ['format', KERNEL_DB_FORMAT],
        ['schema_version', String(KERNEL_DB_VERSION)],
        ['persona_id', session.personaId],
        ['migration', 'copied'],
        ['migrated', JSON.stringify(record)],
        ['fingerprint', copied],
        ['logged', '0'],
      ] as const) {
        meta.run(k, v);
      }
    }).immediate();
    db.exec('DETACH DATABASE legacy');
    db.pragma('journal_mode = WAL');
  } catch (error) {
    db.close();
    rmSync(tmp, { force: true });
    if ((error as { code?: string }).code?.startsWith('RTC_ERR_')) throw error;
    throw kernelError('RTC_ERR_PERSISTENCE_CORRUPT', `${shownLegacy}: the kernel's tables could not be moved to ${shown} (${(error as Error).message.split('\n')[0]}); nothing was changed`, { details: { file: shownLegacy }, cause: error });
  }
  db.close();
  const fd = openSync(tmp, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, kernelFile);
  syncDirectory(path.dirname(kernelFile));
  return record!;
}

/** Step 3: drops the legacy tables from persistence.db once the kernel's copy is there and the same. */
function dropLegacy(session: StorageSession, kernel: Database.Database, legacyFile: string): void {
  const { shown, shownLegacy } = paths(session);
  const legacy = new Database(legacyFile, { fileMustExist: true });
  try {
    kernelPragmas(legacy, false);
    const tables = legacyTablesIn(legacy, shownLegacy);
    if (tables.length > 0) {
      const expected = readMeta(kernel).get('fingerprint');
      const found = fingerprint(legacy, 'main', tables);
      if (expected !== found) {
        throw kernelError('RTC_ERR_PERSISTENCE_CORRUPT', `${shownLegacy}: still holds the kernel's tables (${found}), which differ from what was moved to ${shown} (${expected}); both were left as they are: compare them and remove the wrong one`, {
          details: { file: shownLegacy },
        });
      }
      legacy.transaction(() => {
        for (const t of tables) legacy.exec(`DROP TABLE main."${t}"`);
      }).immediate();
    }
  } finally {
    legacy.close();
  }
  kernel.prepare("UPDATE kernel_meta SET value = 'done' WHERE key = 'migration'").run();
}

/** Makes sure the kernel's events database exists (moving a previous version's tables first); its writable connection. */
function createOrMigrate(session: StorageSession): Database.Database {
  const { kernel: kernelFile, legacy: legacyFile, shown, shownLegacy } = paths(session);
  if (!existsSync(kernelFile) && existsSync(legacyFile)) {
    const probe = new Database(legacyFile, { readonly: true, fileMustExist: true });
    let tables: string[];
    try {
      kernelPragmas(probe, false);
      tables = legacyTablesIn(probe, shownLegacy);
    } catch (error) {
      if ((error as { code?: string }).code?.startsWith('RTC_ERR_')) throw error;
      // Not a database: the plugin's own open refuses it, with its own words.
      tables = [];
    } finally {
      probe.close();
    }
    if (tables.includes('events')) copyOut(session, legacyFile, tables, kernelFile);
  }
  mkdirSync(path.dirname(kernelFile), { recursive: true });
  let db: Database.Database;
  try {
    db = new Database(kernelFile);
    kernelPragmas(db, true);
  } catch (error) {
    corrupt(shown, `cannot be opened as the kernel's events database (${(error as Error).message.split('\n')[0]})`, error);
  }
  try {
    const meta = readMeta(db);
    checkOwner(meta, session, shown);
    db.exec(EVENTS_TABLE_SQL);
    db.exec(HISTORY_TABLES_SQL);
    db.exec(KERNEL_META_SQL);
    if (meta.size === 0) {
      const insert = db.prepare('INSERT OR IGNORE INTO kernel_meta (key, value) VALUES (?, ?)');
      db.transaction(() => {
        insert.run('format', KERNEL_DB_FORMAT);
        insert.run('schema_version', String(KERNEL_DB_VERSION));
        insert.run('persona_id', session.personaId);
        insert.run('migration', 'none');
      })();
    }
    if (readMeta(db).get('migration') === 'copied') dropLegacy(session, db, legacyFile);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

/**
 * The session's writable connection to the kernel's events database, made on first use; a
 * previous version's tables are moved out of persistence.db first. Refused on a read-only
 * session. Plugin connections (sqlite-bindings.ts) call it before their first write, so no
 * plugin statement ever runs on a persistence.db that still holds the kernel's tables.
 */
export function kernelEventsDb(session: StorageSession): Database.Database {
  const { kernel } = paths(session);
  const held = session.kernelSqlite.get(kernel);
  if (held) return held;
  if (session.readonly) throw kernelError('RTC_ERR_PERSISTENCE_READONLY', `cannot open ${KERNEL_EVENTS_DB} for writing: the persistence backend was opened read-only`);
  const db = createOrMigrate(session);
  session.kernelSqlite.set(kernel, db);
  return db;
}

/** The move this database records and has not yet written to the chain (events open appends `storage_migrated`). */
export function pendingMigration(db: Database.Database): MigrationRecord | undefined {
  const meta = readMeta(db);
  if (meta.get('logged') !== '0' || meta.get('migrated') === undefined) return undefined;
  return JSON.parse(meta.get('migrated')!) as MigrationRecord;
}

export function markMigrationLogged(db: Database.Database): void {
  db.prepare("UPDATE kernel_meta SET value = '1' WHERE key = 'logged'").run();
}
