/**
 * persistence.db, the `sqlite` backend's one database per persona (the plugin's own file):
 *
 *   meta       format, schema_version, persona_id: checked before anything writes (through
 *              the binding's read-only handle), so a newer or foreign database is left untouched
 *   memory     `brain.json` and `long-term.md`, as text
 *   proposals  one row per proposal record, the raw JSON line
 *
 * The event log is the kernel's and is not in this file (schema 3): the kernel keeps the chain
 * and its history (`events`, `event_segments`, `event_index`, `event_rollups`,
 * `history_documents`) in its own database beside it, `logs/events.db`
 * (features/persistence/storage/sqlite-events-db.ts), which no statement of this plugin can reach. A
 * segment there is what it is in the jsonl-fs backend (the gzip of its exact JSONL lines).
 *
 * Schema 1 had the kernel's `events` table in this file; schema 2 added the kernel's history
 * tables beside it. The kernel moves them out to logs/events.db at the first writable open
 * by this version (recorded in its kernel_meta and in the chain as `storage_migrated`), and
 * this plugin then records schema 3, so a runtimectl that still expects the events here
 * refuses the file as newer instead of starting a second chain.
 */
import { coded, codeOf, sqlite, type Token } from '../persistence-shared/storage.ts';

export const DB_FILE = 'persistence.db';
export const DB_FORMAT = 'runtimectl-persistence-sqlite';
export const DB_SCHEMA_VERSION = 3;

/** The plugin's tables (same definitions since version 1). */
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
    if (codeOf(error)) throw error;
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

/** Creates the plugin's tables and meta, all or nothing (the kernel's are in its own file). */
export function createSchema(s: Token, personaId: string): void {
  sqlite.batch(s, DB_FILE, [
    ...SCHEMA_V1.map((sql) => ({ sql })),
    { sql: 'INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)', params: ['format', DB_FORMAT] },
    { sql: 'INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)', params: ['schema_version', String(DB_SCHEMA_VERSION)] },
    { sql: 'INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)', params: ['persona_id', personaId] },
  ]);
}

/**
 * Brings a schema-1 or -2 database to schema 3 (writable sessions only). What changed is the
 * kernel's: its tables were moved out (the kernel did it before this plugin's first write
 * reached the file); the plugin records the version.
 */
export function upgradeSchema(s: Token): void {
  const version = Number(sqlite.query<{ value: string }>(s, DB_FILE, "SELECT value FROM meta WHERE key = 'schema_version'")[0]?.value);
  if (version >= DB_SCHEMA_VERSION) return;
  sqlite.batch(s, DB_FILE, [{ sql: "UPDATE meta SET value = ? WHERE key = 'schema_version'", params: [String(DB_SCHEMA_VERSION)] }]);
}
