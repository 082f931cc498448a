/**
 * The `sqlite` ledger backend (better-sqlite3 12.x): one table per kind of row, WAL mode
 * with `synchronous=FULL` so a committed transaction survives a crash of the process, and a
 * `schema_version` table checked through a read-only handle before anything writes, so a
 * ledger from a newer runtimectl is refused byte for byte untouched.
 */
import Database from 'better-sqlite3';
import { isKernelError, kernelError } from '../../kernel/errors.ts';
import { assertFormat, newerSchemaError } from './format.ts';
import type { TaskState } from './lifecycle.ts';
import {
  LEDGER_SCHEMA_VERSION,
  idNumber,
  type Checkpoint,
  type CounterName,
  type HistoryEntry,
  type Lease,
  type LeaseEvent,
  type Surprise,
  type TaskRow,
} from './records.ts';
import type { LedgerRepo, RepoOpenOptions } from './repo.ts';

const SCHEMA_V1 = `
CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS tasks (
  id TEXT PRIMARY KEY, num INTEGER NOT NULL UNIQUE, title TEXT NOT NULL, description TEXT NOT NULL,
  state TEXT NOT NULL, blocked_from TEXT, blocked_by_surprise INTEGER NOT NULL,
  created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS task_history (
  id INTEGER PRIMARY KEY AUTOINCREMENT, task_id TEXT NOT NULL REFERENCES tasks(id), at INTEGER NOT NULL,
  by TEXT NOT NULL, from_state TEXT, to_state TEXT NOT NULL, reason TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS task_history_task ON task_history (task_id, id);
CREATE TABLE IF NOT EXISTS leases (
  resource TEXT PRIMARY KEY, owner TEXT NOT NULL, acquired_at INTEGER NOT NULL, renewed_at INTEGER NOT NULL,
  ttl_ms INTEGER NOT NULL, expires_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS lease_events (
  id INTEGER PRIMARY KEY AUTOINCREMENT, resource TEXT NOT NULL, owner TEXT NOT NULL, event TEXT NOT NULL,
  at INTEGER NOT NULL, by TEXT NOT NULL, reason TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS checkpoints (
  task_id TEXT NOT NULL REFERENCES tasks(id), seq INTEGER NOT NULL, at INTEGER NOT NULL, by TEXT NOT NULL,
  body TEXT NOT NULL, PRIMARY KEY (task_id, seq));
CREATE TABLE IF NOT EXISTS surprises (
  id TEXT PRIMARY KEY, num INTEGER NOT NULL UNIQUE, observation TEXT NOT NULL, evidence TEXT NOT NULL,
  affects TEXT NOT NULL, state TEXT NOT NULL, recorded_at INTEGER NOT NULL, recorded_by TEXT NOT NULL,
  resolved_at INTEGER, resolved_by TEXT, outcome TEXT);
`;

interface TaskSqlRow {
  id: string;
  title: string;
  description: string;
  state: TaskState;
  blocked_from: TaskState | null;
  blocked_by_surprise: number;
  created_at: number;
  updated_at: number;
}

interface SurpriseSqlRow {
  id: string;
  observation: string;
  evidence: string;
  affects: string;
  state: 'open' | 'resolved';
  recorded_at: number;
  recorded_by: string;
  resolved_at: number | null;
  resolved_by: string | null;
  outcome: string | null;
}

interface LeaseSqlRow {
  resource: string;
  owner: string;
  acquired_at: number;
  renewed_at: number;
  ttl_ms: number;
  expires_at: number;
}

interface CheckpointSqlRow {
  task_id: string;
  seq: number;
  at: number;
  by: string;
  body: string;
}

function corrupt(displayName: string, error: unknown): never {
  const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
  throw kernelError('RTC_ERR_LEDGER_CORRUPT', `${displayName}: cannot be read as a sqlite ledger: ${reason}`, {
    details: { file: displayName },
    cause: error,
  });
}

/** Reads the schema version through a read-only handle; undefined for a database with no tables. */
function readSchemaVersion(file: string, displayName: string): number | undefined {
  let db: Database.Database | undefined;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[];
    if (tables.length === 0) return undefined;
    if (!tables.some((t) => t.name === 'schema_version')) {
      throw kernelError('RTC_ERR_LEDGER_CORRUPT', `${displayName}: a sqlite database without a schema_version table is not a runtimectl ledger; the file was left untouched`, {
        details: { file: displayName },
      });
    }
    const rows = db.prepare('SELECT version FROM schema_version').all() as { version: unknown }[];
    const version = rows[0]?.version;
    if (rows.length !== 1 || typeof version !== 'number' || !Number.isInteger(version) || version < 1) {
      throw kernelError('RTC_ERR_LEDGER_CORRUPT', `${displayName}: schema_version must hold exactly one positive integer`, { details: { file: displayName } });
    }
    return version;
  } catch (error) {
    if (isKernelError(error)) throw error;
    return corrupt(displayName, error);
  } finally {
    db?.close();
  }
}

export function openSqliteRepo(file: string, options: RepoOpenOptions): LedgerRepo {
  const { displayName } = options;
  const readonly = options.readonly ?? false;
  const format = assertFormat(file, displayName, 'sqlite');
  if (readonly && format !== 'sqlite') {
    throw kernelError('RTC_ERR_LEDGER_NOT_FOUND', `${displayName}: no sqlite ledger to read`, { details: { file: displayName } });
  }
  if (format === 'sqlite') {
    const version = readSchemaVersion(file, displayName);
    if (version !== undefined && version > LEDGER_SCHEMA_VERSION) throw newerSchemaError(displayName, version, LEDGER_SCHEMA_VERSION);
  }
  let db: Database.Database;
  try {
    db = new Database(file, { readonly, fileMustExist: readonly });
    db.pragma('busy_timeout = 5000');
    if (!readonly) {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = FULL');
      db.pragma('foreign_keys = ON');
      db.transaction(() => {
        db.exec(SCHEMA_V1);
        const row = db.prepare('SELECT COUNT(*) AS n FROM schema_version').get() as { n: number };
        if (row.n === 0) db.prepare('INSERT INTO schema_version (version) VALUES (?)').run(LEDGER_SCHEMA_VERSION);
      })();
    }
  } catch (error) {
    return corrupt(displayName, error);
  }
  return new SqliteRepo(db, file, readonly);
}

class SqliteRepo implements LedgerRepo {
  readonly backend = 'sqlite' as const;

  constructor(
    private readonly db: Database.Database,
    readonly file: string,
    readonly readonly: boolean,
  ) {}

  refresh(): void {
    // Every query reads the committed state; nothing is cached here.
  }

  transaction<T>(_change: string, fn: () => T): T {
    if (this.readonly) throw kernelError('RTC_ERR_LEDGER_INPUT', 'the ledger was opened read-only', { internal: true });
    // IMMEDIATE takes the write lock before the first read, so a change is never decided on a
    // snapshot another process is about to supersede (a deferred one could fail mid-way).
    return this.db.transaction(fn).immediate();
  }

  private assertWritable(): void {
    if (!this.db.inTransaction) throw kernelError('RTC_ERR_LEDGER_INPUT', 'a ledger write outside a transaction', { internal: true });
  }

  counter(name: CounterName): number {
    const row = this.db.prepare('SELECT value FROM counters WHERE name = ?').get(name) as { value: number } | undefined;
    return row?.value ?? 0;
  }

  task(id: string): TaskRow | undefined {
    const row = this.db.prepare('SELECT * FROM tasks WHERE id = ?').get(id) as TaskSqlRow | undefined;
    return row && toTask(row);
  }

  tasks(): TaskRow[] {
    return (this.db.prepare('SELECT * FROM tasks ORDER BY num').all() as TaskSqlRow[]).map(toTask);
  }

  history(taskId: string): HistoryEntry[] {
    const rows = this.db.prepare('SELECT at, by, from_state, to_state, reason FROM task_history WHERE task_id = ? ORDER BY id').all(taskId) as {
      at: number;
      by: string;
      from_state: TaskState | null;
      to_state: TaskState;
      reason: string;
    }[];
    return rows.map((r) => ({ at: r.at, by: r.by, from: r.from_state, to: r.to_state, reason: r.reason }));
  }

  lease(resource: string): Lease | undefined {
    const row = this.db.prepare('SELECT * FROM leases WHERE resource = ?').get(resource) as LeaseSqlRow | undefined;
    return row && toLease(row);
  }

  leases(): Lease[] {
    return (this.db.prepare('SELECT * FROM leases').all() as LeaseSqlRow[]).map(toLease);
  }

  leaseEvents(): LeaseEvent[] {
    return this.db.prepare('SELECT resource, owner, event, at, by, reason FROM lease_events ORDER BY id').all() as LeaseEvent[];
  }

  checkpoints(taskId?: string): Checkpoint[] {
    const rows = (
      taskId === undefined
        ? this.db.prepare('SELECT * FROM checkpoints').all()
        : this.db.prepare('SELECT * FROM checkpoints WHERE task_id = ? ORDER BY seq').all(taskId)
    ) as CheckpointSqlRow[];
    return rows
      .map((r) => ({ taskId: r.task_id, seq: r.seq, at: r.at, by: r.by, body: JSON.parse(r.body) as Checkpoint['body'] }))
      .sort((a, b) => idNumber(a.taskId) - idNumber(b.taskId) || a.seq - b.seq);
  }

  surprise(id: string): Surprise | undefined {
    const row = this.db.prepare('SELECT * FROM surprises WHERE id = ?').get(id) as SurpriseSqlRow | undefined;
    return row && toSurprise(row);
  }

  surprises(): Surprise[] {
    return (this.db.prepare('SELECT * FROM surprises ORDER BY num').all() as SurpriseSqlRow[]).map(toSurprise);
  }

  setCounter(name: CounterName, value: number): void {
    this.assertWritable();
    this.db.prepare('INSERT INTO counters (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value').run(name, value);
  }

  putTask(row: TaskRow): void {
    this.assertWritable();
    this.db
      .prepare(
        `INSERT INTO tasks (id, num, title, description, state, blocked_from, blocked_by_surprise, created_at, updated_at)
         VALUES (@id, @num, @title, @description, @state, @blockedFrom, @blockedBySurprise, @createdAt, @updatedAt)
         ON CONFLICT (id) DO UPDATE SET title = excluded.title, description = excluded.description, state = excluded.state,
           blocked_from = excluded.blocked_from, blocked_by_surprise = excluded.blocked_by_surprise, updated_at = excluded.updated_at`,
      )
      .run({ ...row, num: idNumber(row.id), blockedBySurprise: row.blockedBySurprise ? 1 : 0 });
  }

  addHistory(taskId: string, entry: HistoryEntry): void {
    this.assertWritable();
    this.db
      .prepare('INSERT INTO task_history (task_id, at, by, from_state, to_state, reason) VALUES (?, ?, ?, ?, ?, ?)')
      .run(taskId, entry.at, entry.by, entry.from, entry.to, entry.reason);
  }

  putLease(lease: Lease): void {
    this.assertWritable();
    this.db
      .prepare(
        `INSERT INTO leases (resource, owner, acquired_at, renewed_at, ttl_ms, expires_at)
         VALUES (@resource, @owner, @acquiredAt, @renewedAt, @ttlMs, @expiresAt)
         ON CONFLICT (resource) DO UPDATE SET owner = excluded.owner, acquired_at = excluded.acquired_at,
           renewed_at = excluded.renewed_at, ttl_ms = excluded.ttl_ms, expires_at = excluded.expires_at`,
      )
      .run(lease);
  }

  deleteLease(resource: string): void {
    this.assertWritable();
    this.db.prepare('DELETE FROM leases WHERE resource = ?').run(resource);
  }

  addLeaseEvent(event: LeaseEvent): void {
    this.assertWritable();
    this.db.prepare('INSERT INTO lease_events (resource, owner, event, at, by, reason) VALUES (@resource, @owner, @event, @at, @by, @reason)').run(event);
  }

  addCheckpoint(checkpoint: Checkpoint): void {
    this.assertWritable();
    this.db
      .prepare('INSERT INTO checkpoints (task_id, seq, at, by, body) VALUES (?, ?, ?, ?, ?)')
      .run(checkpoint.taskId, checkpoint.seq, checkpoint.at, checkpoint.by, JSON.stringify(checkpoint.body));
  }

  putSurprise(s: Surprise): void {
    this.assertWritable();
    this.db
      .prepare(
        `INSERT INTO surprises (id, num, observation, evidence, affects, state, recorded_at, recorded_by, resolved_at, resolved_by, outcome)
         VALUES (@id, @num, @observation, @evidence, @affects, @state, @recordedAt, @recordedBy, @resolvedAt, @resolvedBy, @outcome)
         ON CONFLICT (id) DO UPDATE SET state = excluded.state, resolved_at = excluded.resolved_at,
           resolved_by = excluded.resolved_by, outcome = excluded.outcome`,
      )
      .run({ ...s, num: idNumber(s.id), evidence: JSON.stringify(s.evidence), affects: JSON.stringify(s.affects) });
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}

function toTask(r: TaskSqlRow): TaskRow {
  return {
    id: r.id,
    title: r.title,
    description: r.description,
    state: r.state,
    blockedFrom: r.blocked_from,
    blockedBySurprise: r.blocked_by_surprise === 1,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

function toLease(r: LeaseSqlRow): Lease {
  return { resource: r.resource, owner: r.owner, acquiredAt: r.acquired_at, renewedAt: r.renewed_at, ttlMs: r.ttl_ms, expiresAt: r.expires_at };
}

function toSurprise(r: SurpriseSqlRow): Surprise {
  return {
    id: r.id,
    observation: r.observation,
    evidence: JSON.parse(r.evidence) as string[],
    affects: JSON.parse(r.affects) as string[],
    state: r.state,
    recordedAt: r.recorded_at,
    recordedBy: r.recorded_by,
    resolvedAt: r.resolved_at,
    resolvedBy: r.resolved_by,
    outcome: r.outcome,
  };
}
