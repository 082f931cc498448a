/**
 * persistence.db, the `sqlite` backend's one database per persona:
 *
 *   meta       format, schema_version, persona_id: checked through a read-only handle
 *              before anything writes, so a newer or foreign database is left untouched
 *   events     one row per event, the envelope's fields as columns (payload as its
 *              canonical JSON text): the same v, seq, type, payload, prev, hash and at as
 *              the JSONL line, so the line can be rebuilt byte for byte
 *   memory     `brain.json` and `long-term.md`, as text
 *   proposals  one row per proposal record, the raw JSON line
 *
 * Schema 2 adds the event log's history (kernel/history). A segment here is what it is in the
 * jsonl-fs backend: the events table holds the open segment (its first row is the
 * `log_segment` header after the first seal); sealing moves its rows, in one transaction,
 * into one row of `event_segments` (the gzip of their exact JSONL lines, the same bytes the
 * jsonl-fs backend stores as a file) and one line of `event_index`, and leaves the header of
 * the next segment as the events table's only row. An archived segment keeps its row with
 * `data` NULL and the stub (its digests and where it went) in `stub`.
 *
 *   event_segments      segment, data (gzip, or NULL when archived), stub (JSON, when archived)
 *   event_index         segment, line: the index entry
 *   event_rollups       segment, line: the segment's rollup (status and activity read these)
 *   history_documents   name, content: the checkpoint (and documents set aside as evidence)
 *
 * A schema-1 database is upgraded by the first writable open (the tables are added); a
 * kernel that only knows schema 1 refuses a schema-2 database as newer, as it must: it would
 * not see the sealed events.
 */
import type Database from 'better-sqlite3';
import { kernelError } from '../../kernel/errors.ts';

export const DB_FILE = 'persistence.db';
export const DB_FORMAT = 'runtimectl-persistence-sqlite';
export const DB_SCHEMA_VERSION = 2;

export const SCHEMA_V1 = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS events (
  seq INTEGER PRIMARY KEY, v INTEGER NOT NULL, type TEXT NOT NULL, payload TEXT NOT NULL,
  prev TEXT NOT NULL, hash TEXT NOT NULL, at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS memory (name TEXT PRIMARY KEY, content TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS proposals (seq INTEGER PRIMARY KEY, line TEXT NOT NULL);
`;

export const SCHEMA_V2 = `
CREATE TABLE IF NOT EXISTS event_segments (segment INTEGER PRIMARY KEY, data BLOB, stub TEXT);
CREATE TABLE IF NOT EXISTS event_index (segment INTEGER PRIMARY KEY, line TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS event_rollups (segment INTEGER PRIMARY KEY, line TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS history_documents (name TEXT PRIMARY KEY, content TEXT NOT NULL);
`;

export const BRAIN_KEY = 'brain.json';
export const LONG_TERM_KEY = 'long-term.md';

/**
 * Checks a database's meta through a read-only handle. Returns false for a database with
 * no tables yet (created but never written), true for ours; throws for anything else.
 */
export function checkMeta(db: Database.Database, personaId: string): boolean {
  let tables: { name: string }[];
  try {
    tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[];
  } catch (error) {
    throw kernelError('RTC_ERR_PERSISTENCE_CORRUPT', `${DB_FILE}: not a sqlite database (${(error as Error).message.split('\n')[0]}); the file was left untouched`, {
      details: { file: DB_FILE },
    });
  }
  if (tables.length === 0) return false;
  if (!tables.some((t) => t.name === 'meta')) {
    throw kernelError('RTC_ERR_PERSISTENCE_CORRUPT', `${DB_FILE}: a sqlite database without a meta table is not a runtimectl persistence database; the file was left untouched`, {
      details: { file: DB_FILE },
    });
  }
  const meta = new Map((db.prepare('SELECT key, value FROM meta').all() as { key: string; value: string }[]).map((r) => [r.key, r.value]));
  if (meta.get('format') !== DB_FORMAT) {
    throw kernelError('RTC_ERR_PERSISTENCE_CORRUPT', `${DB_FILE}: meta.format is ${JSON.stringify(meta.get('format') ?? null)}, not ${DB_FORMAT}; the file was left untouched`, {
      details: { file: DB_FILE },
    });
  }
  const version = Number(meta.get('schema_version'));
  if (!Number.isInteger(version) || version < 1) {
    throw kernelError('RTC_ERR_PERSISTENCE_CORRUPT', `${DB_FILE}: meta.schema_version must be a positive integer; the file was left untouched`, { details: { file: DB_FILE } });
  }
  if (version > DB_SCHEMA_VERSION) {
    throw kernelError(
      'RTC_ERR_PERSISTENCE_SCHEMA_NEWER',
      `${DB_FILE}: schema version ${version} is newer than the ${DB_SCHEMA_VERSION} this runtimectl supports; upgrade runtimectl (the file was left untouched)`,
      { details: { file: DB_FILE, found: version, supported: DB_SCHEMA_VERSION } },
    );
  }
  const owner = meta.get('persona_id');
  if (owner !== personaId) {
    throw kernelError('RTC_ERR_PERSISTENCE_CORRUPT', `${DB_FILE}: belongs to persona ${JSON.stringify(owner ?? null)}, not ${personaId}; a persistence database is never shared between personas`, {
      details: { file: DB_FILE, found: owner, expected: personaId },
    });
  }
  return true;
}

export function createSchema(db: Database.Database, personaId: string): void {
  db.transaction(() => {
    db.exec(SCHEMA_V1);
    db.exec(SCHEMA_V2);
    const put = db.prepare('INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)');
    put.run('format', DB_FORMAT);
    put.run('schema_version', String(DB_SCHEMA_VERSION));
    put.run('persona_id', personaId);
  }).immediate();
}

/** Brings a schema-1 database to schema 2 (writable handles only): the history tables are added. */
export function upgradeSchema(db: Database.Database): void {
  const version = Number((db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as { value: string } | undefined)?.value);
  if (version >= DB_SCHEMA_VERSION) return;
  db.transaction(() => {
    db.exec(SCHEMA_V2);
    db.prepare("UPDATE meta SET value = ? WHERE key = 'schema_version'").run(String(DB_SCHEMA_VERSION));
  }).immediate();
}

/** True when the database has the history tables (a schema-1 database read-only does not). */
export function hasHistoryTables(db: Database.Database): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'event_segments'").get() !== undefined;
}
