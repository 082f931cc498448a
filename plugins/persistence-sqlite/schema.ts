/**
 * persistence.db, the `sqlite` backend's one database per persona:
 *
 *   meta       format, schema_version, persona_id: checked before anything writes (through
 *              the binding's read-only handle), so a newer or foreign database is left untouched
 *   events     the kernel's table (created and written only by the kernel's events binding):
 *              one row per event, the envelope's fields as columns, so the JSONL line of
 *              every event can be rebuilt byte for byte
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
 * The history tables, like `events`, are the kernel's (kernel/persistence/sqlite-history.ts):
 * created and written only by the kernel, out of the plugin's statements' reach. A schema-1
 * database is upgraded by the first writable open; a kernel that only knows schema 1 refuses
 * a schema-2 database as newer, as it must: it would not see the sealed events.
 */
import { coded, sqlite, type Token } from '../persistence-shared/storage.ts';

export const DB_FILE = 'persistence.db';
export const DB_FORMAT = 'runtimectl-persistence-sqlite';
export const DB_SCHEMA_VERSION = 2;

/** Version 1's tables besides the kernel's `events` (same definitions as before backends were isolated). */
const SCHEMA_V1 = [
  'CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)',
  'CREATE TABLE IF NOT EXISTS memory (name TEXT PRIMARY KEY, content TEXT NOT NULL)',
  'CREATE TABLE IF NOT EXISTS proposals (seq INTEGER PRIMARY KEY, line TEXT NOT NULL)',
];

export const BRAIN_KEY = 'brain.json';
export const LONG_TERM_KEY = 'long-term.md';

function corrupt(what: string): Error {
  return coded('RTC_ERR_PERSISTENCE_CORRUPT', `${DB_FILE}: ${what}; the file was left untouched`);
}

/** A query that turns "not a database" into this backend's refusal. */
function tablesOf(s: Token): string[] {
  try {
    return sqlite.query<{ name: string }>(s, DB_FILE, "SELECT name FROM sqlite_master WHERE type = 'table'").map((r) => r.name);
  } catch (error) {
    const message = (error as Error).message;
    if (message.startsWith('RTC_ERR_')) throw error;
    throw corrupt(`not a sqlite database (${message.replace(/^persistence\.db: /, '').split('\n')[0]})`);
  }
}

/**
 * Checks the database's meta. False for a database that does not exist or has no tables yet
 * (created, never written), true for this persona's; throws for anything else.
 */
export function checkMeta(s: Token, personaId: string): boolean {
  if (!sqlite.exists(s, DB_FILE)) return false;
  const tables = tablesOf(s);
  if (tables.length === 0) return false;
  if (!tables.includes('meta')) throw corrupt('a sqlite database without a meta table is not a runtimectl persistence database');
  const meta = new Map(sqlite.query<{ key: string; value: string }>(s, DB_FILE, 'SELECT key, value FROM meta').map((r) => [r.key, r.value]));
  if (meta.get('format') !== DB_FORMAT) throw corrupt(`meta.format is ${JSON.stringify(meta.get('format') ?? null)}, not ${DB_FORMAT}`);
  const version = Number(meta.get('schema_version'));
  if (!Number.isInteger(version) || version < 1) throw corrupt('meta.schema_version must be a positive integer');
  if (version > DB_SCHEMA_VERSION) {
    throw coded('RTC_ERR_PERSISTENCE_SCHEMA_NEWER', `${DB_FILE}: schema version ${version} is newer than the ${DB_SCHEMA_VERSION} this runtimectl supports; upgrade runtimectl (the file was left untouched)`);
  }
  const owner = meta.get('persona_id');
  if (owner !== personaId) {
    throw coded('RTC_ERR_PERSISTENCE_CORRUPT', `${DB_FILE}: belongs to persona ${JSON.stringify(owner ?? null)}, not ${personaId}; a persistence database is never shared between personas`);
  }
  return true;
}

/** Creates the plugin's tables and meta, all or nothing (the kernel creates its own: events and the history tables). */
export function createSchema(s: Token, personaId: string): void {
  sqlite.batch(s, DB_FILE, [
    ...SCHEMA_V1.map((sql) => ({ sql })),
    { sql: 'INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)', params: ['format', DB_FORMAT] },
    { sql: 'INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)', params: ['schema_version', String(DB_SCHEMA_VERSION)] },
    { sql: 'INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)', params: ['persona_id', personaId] },
  ]);
}

/**
 * Brings a schema-1 database to schema 2 (writable sessions only). Schema 2's new tables are the
 * kernel's history tables, which the kernel's events binding creates; the plugin records the version.
 */
export function upgradeSchema(s: Token): void {
  const version = Number(sqlite.query<{ value: string }>(s, DB_FILE, "SELECT value FROM meta WHERE key = 'schema_version'")[0]?.value);
  if (version >= DB_SCHEMA_VERSION) return;
  sqlite.batch(s, DB_FILE, [{ sql: "UPDATE meta SET value = ? WHERE key = 'schema_version'", params: [String(DB_SCHEMA_VERSION)] }]);
}
