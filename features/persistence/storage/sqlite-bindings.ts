/**
 * `storage.sqlite`: parameterised statements on sqlite databases inside the persona's own
 * folder. Writable connections use WAL with `synchronous=FULL` (a committed transaction
 * survives kill -9 and power loss) and a 5 s busy timeout; until the plugin first writes, a
 * database is read through a read-only handle, so a check made before anything writes (a
 * newer schema, another persona's database) leaves the file byte for byte as it was.
 *
 *   exists   whether the database file is there
 *   query    one statement, its rows as objects
 *   run      one statement, { changes, last_insert_rowid }
 *   batch    several statements in one IMMEDIATE transaction: all or none; a statement
 *            may carry `expect_changes`, and when it changes another number of rows the
 *            whole transaction is rolled back and the answer is { conflict: index } (how a
 *            change decided on what was read commits only if nobody changed it since)
 *
 * **What a plugin can reach is its own files, by construction.** The kernel's tables (the
 * chain and its history) live in another file, `logs/events.db` (sqlite-events-db.ts), which
 * no plugin connection opens: every database a plugin names is resolved inside the persona
 * folder (links included) and refused, for reading as for writing, when it is one of the
 * kernel's files (logs/, trace/, persistence.yaml, the writer lock). A connection holds that
 * one file: ATTACH, DETACH, VACUUM (INTO), PRAGMA and transaction control are refused by kind
 * (sqlite-statement.ts), and the connection runs in SQLite's defensive mode with
 * trusted_schema off and load_extension disabled. Before a plugin's first writable
 * connection, the kernel moves a previous version's tables out of persistence.db (so no
 * plugin statement ever runs on a file that still holds them). Events go through
 * event-bindings.ts.
 */
import { mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { DenoOpError } from '../../../kernel/broker/deno-error.ts';
import { kernelError } from '../../../kernel/errors.ts';
import { checkSqliteStatement } from './sqlite-statement.ts';
import { pathArg, storageOp } from './binding-kit.ts';
import { kernelEventsDb } from './sqlite-events-db.ts';
import type { StorageSession } from './storage-session.ts';
import { refuseLinkedFiles } from '../../../sandboxes/fs-safety/no-follow.ts';

type SqlValue = string | number | null;

function params(o: Record<string, unknown>, key = 'params'): SqlValue[] {
  const value = o[key] ?? [];
  if (!Array.isArray(value)) throw new DenoOpError('TypeError', `"${key}" must be an array`);
  return value.map((v, i) => {
    if (v === null || typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v))) return v as SqlValue;
    if (typeof v === 'boolean') return v ? 1 : 0;
    throw new DenoOpError('TypeError', `${key}[${i}] must be a string, a finite number, a boolean or null`);
  });
}

function sqlArg(o: Record<string, unknown>): string {
  if (typeof o.sql !== 'string') throw new DenoOpError('TypeError', '"sql" must be a string');
  return o.sql;
}

function isFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

function openFailure(relative: string, error: unknown): never {
  throw kernelError('RTC_ERR_PERSISTENCE_CORRUPT', `${relative}: cannot be opened as a sqlite database (${(error as Error).message.split('\n')[0]}); the file was left untouched`, {
    details: { file: relative },
    cause: error,
  });
}

/** The real path of a database the plugin names: inside the persona folder, and none of the kernel's files. */
function pluginDatabase(session: StorageSession, relative: string, write: boolean): string {
  const file = write ? session.resolveForWrite(relative, 'write a database at') : session.resolve(relative);
  if (session.isKernelPath(file)) {
    throw new DenoOpError('Error', `${relative}: is the kernel's (the event log and its history, the trace, the backend choice, the writer lock); a plugin's connection opens only its own databases`, 'RTC_ERR_PERSISTENCE_BACKEND');
  }
  return file;
}

/**
 * The session's connection to the plugin's database `relative`: the writable one when it is
 * open or `write` asks for it (creating the database), else a read-only one; undefined when
 * reading a database that does not exist.
 */
export function sqliteConnection(session: StorageSession, relative: string, write: boolean): Database.Database | undefined {
  const file = pluginDatabase(session, relative, write);
  // SQLite opens the database and its -wal/-shm/-journal by path, following links: a link a
  // plugin's sandboxed child left there (orchestra/ is an executor's to write) is refused first.
  const lexical = path.join(session.personaDir, relative);
  refuseLinkedFiles(['', '-wal', '-shm', '-journal'].map((suffix) => `${lexical}${suffix}`), { anchor: session.personaDir, shown: (f) => path.relative(session.personaDir, f) });
  const existing = session.sqlite.get(file);
  if (existing && (existing.writable || !write)) return existing.db;
  if (!write && !isFile(file)) return undefined;
  // The kernel's events database exists (a previous version's tables moved out of persistence.db) before any plugin write.
  if (write) kernelEventsDb(session);
  existing?.db.close();
  session.sqlite.delete(file);
  let db: Database.Database;
  try {
    if (write) mkdirSync(path.dirname(file), { recursive: true });
    db = write ? new Database(file) : new Database(file, { readonly: true, fileMustExist: true });
  } catch (error) {
    openFailure(relative, error);
  }
  try {
    db.pragma('busy_timeout = 5000');
    db.pragma('trusted_schema = OFF');
    if (write) {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = FULL');
      db.pragma('foreign_keys = ON');
    }
  } catch (error) {
    db.close();
    throw kernelError('RTC_ERR_PERSISTENCE_CORRUPT', `${relative}: not a usable sqlite database (${(error as Error).message.split('\n')[0]}); the file was left untouched`, {
      details: { file: relative },
      cause: error,
    });
  }
  session.sqlite.set(file, { db, writable: write });
  return db;
}

/** Result rows as plain JSON values (a BLOB comes out as {"base64": ...}). */
function plainRows(rows: unknown[]): Record<string, unknown>[] {
  for (const row of rows as Record<string, unknown>[]) {
    for (const [k, v] of Object.entries(row)) {
      if (Buffer.isBuffer(v)) row[k] = { base64: v.toString('base64') };
      else if (typeof v === 'bigint') row[k] = Number(v);
    }
  }
  return rows as Record<string, unknown>[];
}

function sqliteError(relative: string, error: unknown): never {
  if (error instanceof DenoOpError || (error as { code?: string }).code?.startsWith('RTC_ERR_')) throw error;
  const code = (error as { code?: unknown }).code;
  throw new DenoOpError('Error', `${relative}: ${(error as Error).message}`, typeof code === 'string' ? code : undefined);
}

/** Runs one checked statement: rows for a reader, counts for a writer. */
function execute(db: Database.Database, relative: string, sql: string, values: SqlValue[]): { rows: Record<string, unknown>[] } | { changes: number; last_insert_rowid: number } {
  checkSqliteStatement(sql);
  try {
    const stmt = db.prepare(sql);
    if (stmt.reader) return { rows: plainRows(stmt.all(...values)) };
    const info = stmt.run(...values);
    return { changes: info.changes, last_insert_rowid: Number(info.lastInsertRowid) };
  } catch (error) {
    sqliteError(relative, error);
  }
}

export const sqliteExists = storageOp({
  name: 'storage.sqlite.exists',
  binding: 'storage.sqlite',
  mode: 'sync',
  parse: (o) => ({ db: pathArg(o, 'db') }),
  run: (session, a) => ({ exists: isFile(pluginDatabase(session, a.db, false)) }),
});

export const sqliteQuery = storageOp({
  name: 'storage.sqlite.query',
  binding: 'storage.sqlite',
  mode: 'sync',
  parse: (o) => ({ db: pathArg(o, 'db'), sql: sqlArg(o), params: params(o) }),
  run(session, a) {
    const db = sqliteConnection(session, a.db, false);
    if (db === undefined) throw new DenoOpError('NotFound', `${a.db}: the database does not exist`);
    checkSqliteStatement(a.sql);
    let stmt: Database.Statement;
    try {
      stmt = db.prepare(a.sql);
    } catch (error) {
      sqliteError(a.db, error);
    }
    if (!stmt.reader || !stmt.readonly) throw new DenoOpError('TypeError', `${a.db}: query runs statements that only read; use run or batch to write`);
    try {
      return { rows: plainRows(stmt.all(...a.params)) };
    } catch (error) {
      sqliteError(a.db, error);
    }
  },
});

export const sqliteRun = storageOp({
  name: 'storage.sqlite.run',
  binding: 'storage.sqlite',
  mode: 'sync',
  parse: (o) => ({ db: pathArg(o, 'db'), sql: sqlArg(o), params: params(o) }),
  run(session, a) {
    const db = sqliteConnection(session, a.db, true)!;
    return execute(db, a.db, a.sql, a.params);
  },
});

export const sqliteBatch = storageOp({
  name: 'storage.sqlite.batch',
  binding: 'storage.sqlite',
  mode: 'sync',
  parse(o) {
    const list = o.statements;
    if (!Array.isArray(list) || list.length === 0 || list.length > 10_000) throw new DenoOpError('TypeError', '"statements" must be a list of 1 to 10000 {sql, params}');
    const statements = list.map((item, i) => {
      if (item === null || typeof item !== 'object') throw new DenoOpError('TypeError', `statements[${i}] must be {sql, params}`);
      const s = item as Record<string, unknown>;
      const expect = s.expect_changes;
      if (expect !== undefined && (typeof expect !== 'number' || !Number.isSafeInteger(expect) || expect < 0)) throw new DenoOpError('TypeError', `statements[${i}].expect_changes must be an integer ≥ 0`);
      return { sql: sqlArg(s), params: params(s), expect: expect as number | undefined };
    });
    return { db: pathArg(o, 'db'), statements };
  },
  run(session, a) {
    const db = sqliteConnection(session, a.db, true)!;
    for (const s of a.statements) checkSqliteStatement(s.sql);
    const results: unknown[] = [];
    const conflict = new Error('expected changes differ');
    let conflictAt = -1;
    try {
      db.transaction(() => {
        a.statements.forEach((s, i) => {
          const result = execute(db, a.db, s.sql, s.params);
          if (s.expect !== undefined && (!('changes' in result) || result.changes !== s.expect)) {
            conflictAt = i;
            throw conflict;
          }
          results.push(result);
        });
      }).immediate();
    } catch (error) {
      if (error === conflict) return { conflict: conflictAt };
      sqliteError(a.db, error);
    }
    return { results };
  },
});

export const SQLITE_BINDING_OPS = [sqliteExists, sqliteQuery, sqliteRun, sqliteBatch];
