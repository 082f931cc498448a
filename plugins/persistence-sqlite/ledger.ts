/**
 * The ledger's rows in the sqlite ledger format (`orchestra/orchestra.db`: one table per kind
 * of row, a `schema_version` table), through parameterised statements on the persona's own
 * database file. The version is a `changes` row in `counters`: each commit bumps it in the same
 * IMMEDIATE transaction as its rows, and only from the version its change was decided on, so a
 * change another writer got in first is refused (the ledger plugin reloads and decides again).
 */
import { coded, codeOf, sqlite, type SqlValue, type Token } from '../persistence-shared/storage.ts';
import type { JsonlOp } from '../ledger/model/jsonl-records.ts';
import type { RowSnapshot } from '../ledger/model/row-state.ts';
import type { Checkpoint, HistoryEntry, Lease, LeaseEvent, Surprise, TaskRow } from '../ledger/model/records.ts';

const LEDGER_SCHEMA_VERSION = 1;
const VERSION_COUNTER = 'changes';

/** Version 1's tables (as the host-side sqlite ledger always created them). */
const SCHEMA_V1 = [
  'CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)',
  'CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL)',
  `CREATE TABLE IF NOT EXISTS tasks (
  id TEXT PRIMARY KEY, num INTEGER NOT NULL UNIQUE, title TEXT NOT NULL, description TEXT NOT NULL,
  state TEXT NOT NULL, blocked_from TEXT, blocked_by_surprise INTEGER NOT NULL,
  created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS task_history (
  id INTEGER PRIMARY KEY AUTOINCREMENT, task_id TEXT NOT NULL REFERENCES tasks(id), at INTEGER NOT NULL,
  by TEXT NOT NULL, from_state TEXT, to_state TEXT NOT NULL, reason TEXT NOT NULL)`,
  'CREATE INDEX IF NOT EXISTS task_history_task ON task_history (task_id, id)',
  `CREATE TABLE IF NOT EXISTS leases (
  resource TEXT PRIMARY KEY, owner TEXT NOT NULL, acquired_at INTEGER NOT NULL, renewed_at INTEGER NOT NULL,
  ttl_ms INTEGER NOT NULL, expires_at INTEGER NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS lease_events (
  id INTEGER PRIMARY KEY AUTOINCREMENT, resource TEXT NOT NULL, owner TEXT NOT NULL, event TEXT NOT NULL,
  at INTEGER NOT NULL, by TEXT NOT NULL, reason TEXT NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS checkpoints (
  task_id TEXT NOT NULL REFERENCES tasks(id), seq INTEGER NOT NULL, at INTEGER NOT NULL, by TEXT NOT NULL,
  body TEXT NOT NULL, PRIMARY KEY (task_id, seq))`,
  `CREATE TABLE IF NOT EXISTS surprises (
  id TEXT PRIMARY KEY, num INTEGER NOT NULL UNIQUE, observation TEXT NOT NULL, evidence TEXT NOT NULL,
  affects TEXT NOT NULL, state TEXT NOT NULL, recorded_at INTEGER NOT NULL, recorded_by TEXT NOT NULL,
  resolved_at INTEGER, resolved_by TEXT, outcome TEXT)`,
];

function idNumber(id: string): number {
  return Number(id.slice(id.indexOf('-') + 1));
}

function corrupt(db: string, what: string): Error {
  return coded('RTC_ERR_LEDGER_CORRUPT', `${db}: ${what}`);
}

/** The schema version, or undefined for a database without tables; refuses a foreign database. */
function schemaVersion(s: Token, db: string): number | undefined {
  let tables: string[];
  try {
    tables = sqlite.query<{ name: string }>(s, db, "SELECT name FROM sqlite_master WHERE type = 'table'").map((r) => r.name);
  } catch (error) {
    const message = (error as Error).message;
    if (codeOf(error)?.startsWith('RTC_ERR_LEDGER')) throw error;
    throw corrupt(db, `cannot be read as a sqlite ledger: ${message.split('\n')[0]}`);
  }
  if (tables.length === 0) return undefined;
  if (!tables.includes('schema_version')) throw corrupt(db, 'a sqlite database without a schema_version table is not a runtimectl ledger; the file was left untouched');
  const rows = sqlite.query<{ version: unknown }>(s, db, 'SELECT version FROM schema_version');
  const version = rows[0]?.version;
  if (rows.length !== 1 || typeof version !== 'number' || !Number.isInteger(version) || version < 1) throw corrupt(db, 'schema_version must hold exactly one positive integer');
  return version;
}

function versionOf(s: Token, db: string): number {
  return sqlite.query<{ value: number }>(s, db, 'SELECT value FROM counters WHERE name = ?', [VERSION_COUNTER])[0]?.value ?? 0;
}

function snapshot(s: Token, db: string): RowSnapshot {
  const q = <T>(sql: string, params: SqlValue[] = []) => sqlite.query(s, db, sql, params) as unknown as T[];
  const counters: RowSnapshot['counters'] = {};
  for (const r of q<{ name: string; value: number }>('SELECT name, value FROM counters')) if (r.name === 'task' || r.name === 'surprise') counters[r.name] = r.value;
  const tasks = q<Record<string, unknown>>('SELECT * FROM tasks ORDER BY num').map(
    (r): TaskRow => ({
      id: r.id as string,
      title: r.title as string,
      description: r.description as string,
      state: r.state as TaskRow['state'],
      blockedFrom: (r.blocked_from as TaskRow['blockedFrom']) ?? null,
      blockedBySurprise: r.blocked_by_surprise === 1,
      createdAt: r.created_at as number,
      updatedAt: r.updated_at as number,
    }),
  );
  const history: Record<string, HistoryEntry[]> = {};
  for (const r of q<Record<string, unknown>>('SELECT task_id, at, by, from_state, to_state, reason FROM task_history ORDER BY id')) {
    (history[r.task_id as string] ??= []).push({ at: r.at as number, by: r.by as string, from: (r.from_state as HistoryEntry['from']) ?? null, to: r.to_state as HistoryEntry['to'], reason: r.reason as string });
  }
  const leases = q<Record<string, unknown>>('SELECT * FROM leases').map(
    (r): Lease => ({ resource: r.resource as string, owner: r.owner as string, acquiredAt: r.acquired_at as number, renewedAt: r.renewed_at as number, ttlMs: r.ttl_ms as number, expiresAt: r.expires_at as number }),
  );
  const leaseEvents = q<LeaseEvent>('SELECT resource, owner, event, at, by, reason FROM lease_events ORDER BY id');
  const checkpoints = q<Record<string, unknown>>('SELECT * FROM checkpoints').map(
    (r): Checkpoint => ({ taskId: r.task_id as string, seq: r.seq as number, at: r.at as number, by: r.by as string, body: JSON.parse(r.body as string) as Checkpoint['body'] }),
  );
  const surprises = q<Record<string, unknown>>('SELECT * FROM surprises ORDER BY num').map(
    (r): Surprise => ({
      id: r.id as string,
      observation: r.observation as string,
      evidence: JSON.parse(r.evidence as string) as string[],
      affects: JSON.parse(r.affects as string) as string[],
      state: r.state as Surprise['state'],
      recordedAt: r.recorded_at as number,
      recordedBy: r.recorded_by as string,
      resolvedAt: (r.resolved_at as number | null) ?? null,
      resolvedBy: (r.resolved_by as string | null) ?? null,
      outcome: (r.outcome as string | null) ?? null,
    }),
  );
  return { counters, tasks, history, leases, leaseEvents, checkpoints, surprises };
}

export function ledgerLoad(s: Token, a: { db: string; since: number | null; repair: boolean }) {
  const exists = sqlite.exists(s, a.db);
  let version = exists ? schemaVersion(s, a.db) : undefined;
  const created = version === undefined;
  if (version === undefined) {
    if (!a.repair) return { missing: true };
    sqlite.batch(s, a.db, [
      ...SCHEMA_V1.map((sql) => ({ sql })),
      { sql: 'INSERT INTO schema_version (version) SELECT ? WHERE NOT EXISTS (SELECT 1 FROM schema_version)', params: [LEDGER_SCHEMA_VERSION] },
    ]);
    version = LEDGER_SCHEMA_VERSION;
  }
  // A newer ledger is refused by the ledger plugin from this answer, before anything writes.
  if (version > LEDGER_SCHEMA_VERSION) return { version: 0, schema_version: version };
  const changes = versionOf(s, a.db);
  return { version: changes, schema_version: version, snapshot: snapshot(s, a.db), created };
}

function opStatement(op: JsonlOp): { sql: string; params: SqlValue[] } {
  switch (op.op) {
    case 'counter':
      return { sql: 'INSERT INTO counters (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value', params: [op.name, op.value] };
    case 'task': {
      const r = op.row;
      return {
        sql: `INSERT INTO tasks (id, num, title, description, state, blocked_from, blocked_by_surprise, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET title = excluded.title, description = excluded.description, state = excluded.state,
           blocked_from = excluded.blocked_from, blocked_by_surprise = excluded.blocked_by_surprise, updated_at = excluded.updated_at`,
        params: [r.id, idNumber(r.id), r.title, r.description, r.state, r.blockedFrom, r.blockedBySurprise ? 1 : 0, r.createdAt, r.updatedAt],
      };
    }
    case 'history':
      return { sql: 'INSERT INTO task_history (task_id, at, by, from_state, to_state, reason) VALUES (?, ?, ?, ?, ?, ?)', params: [op.taskId, op.entry.at, op.entry.by, op.entry.from, op.entry.to, op.entry.reason] };
    case 'lease': {
      const l = op.lease;
      return {
        sql: `INSERT INTO leases (resource, owner, acquired_at, renewed_at, ttl_ms, expires_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (resource) DO UPDATE SET owner = excluded.owner, acquired_at = excluded.acquired_at,
           renewed_at = excluded.renewed_at, ttl_ms = excluded.ttl_ms, expires_at = excluded.expires_at`,
        params: [l.resource, l.owner, l.acquiredAt, l.renewedAt, l.ttlMs, l.expiresAt],
      };
    }
    case 'lease-delete':
      return { sql: 'DELETE FROM leases WHERE resource = ?', params: [op.resource] };
    case 'lease-event': {
      const e = op.event;
      return { sql: 'INSERT INTO lease_events (resource, owner, event, at, by, reason) VALUES (?, ?, ?, ?, ?, ?)', params: [e.resource, e.owner, e.event, e.at, e.by, e.reason] };
    }
    case 'checkpoint': {
      const c = op.checkpoint;
      return { sql: 'INSERT INTO checkpoints (task_id, seq, at, by, body) VALUES (?, ?, ?, ?, ?)', params: [c.taskId, c.seq, c.at, c.by, JSON.stringify(c.body)] };
    }
    case 'surprise': {
      const x = op.surprise;
      return {
        sql: `INSERT INTO surprises (id, num, observation, evidence, affects, state, recorded_at, recorded_by, resolved_at, resolved_by, outcome)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET state = excluded.state, resolved_at = excluded.resolved_at,
           resolved_by = excluded.resolved_by, outcome = excluded.outcome`,
        params: [x.id, idNumber(x.id), x.observation, JSON.stringify(x.evidence), JSON.stringify(x.affects), x.state, x.recordedAt, x.recordedBy, x.resolvedAt, x.resolvedBy, x.outcome],
      };
    }
  }
}

export function ledgerCommit(s: Token, a: { db: string; base: number; ops: JsonlOp[] }) {
  const answer = sqlite.batchIf(s, a.db, [
    { sql: 'INSERT OR IGNORE INTO counters (name, value) VALUES (?, 0)', params: [VERSION_COUNTER] },
    { sql: 'UPDATE counters SET value = value + 1 WHERE name = ? AND value = ?', params: [VERSION_COUNTER, a.base], expect_changes: 1 },
    ...a.ops.map(opStatement),
  ]);
  return 'conflict' in answer ? { ok: false } : { ok: true, version: a.base + 1 };
}
