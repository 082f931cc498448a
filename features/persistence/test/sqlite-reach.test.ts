/**
 * What a sqlite persistence plugin can reach (issue 27, item 5): its own database files, and
 * nothing of the kernel's, by construction. The kernel keeps the chain and its history in
 * `logs/events.db`, a file no plugin connection opens; a plugin's connection holds only its
 * own file (no ATTACH, DETACH, VACUUM INTO, PRAGMA or transaction control), in SQLite's
 * defensive mode with trusted_schema off and load_extension disabled.
 *
 * The hostile backend (fixtures/plugins/persistence-hostile) tries, as an attacker would: the
 * old guard's misses (the string-literal table name 'events': rename away, edit, rename back),
 * every spelling of the kernel's file (relative, '..', links planted in the folder), ATTACH
 * and VACUUM INTO behind comments and odd case, PRAGMA in statement and table-valued form,
 * load_extension, several statements in one text, a forged `events` table of its own. After
 * each, the kernel's events are exactly what the kernel wrote.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { openBackend } from '../index.ts';
import type { PersonaBackend } from '../backend.ts';
import { firstKeyword } from '../storage/sqlite-statement.ts';
import { personaDir } from './helpers.ts';

const FIXTURE_PLUGINS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'plugins');

type Answer = { ok?: unknown; error?: string };

async function tryOp(b: PersonaBackend, call: Record<string, unknown>): Promise<Answer> {
  return (await b.callPlugin('tryOp', call)) as Answer;
}

/** Everything in the kernel's events database, table by table (what no plugin statement may change). */
function kernelState(dir: string): string {
  const db = new Database(path.join(dir, 'logs', 'events.db'), { readonly: true });
  try {
    const tables = (db.prepare("SELECT name, sql FROM sqlite_master ORDER BY name").all() as { name: string; sql: string | null }[]);
    const rows = tables.filter((t) => t.sql?.startsWith('CREATE TABLE')).map((t) => [t.name, db.prepare(`SELECT * FROM "${t.name}" ORDER BY 1`).all()]);
    return JSON.stringify({ tables, rows });
  } finally {
    db.close();
  }
}

describe('sqlite: a backend reaches its own file and nothing of the kernel\'s', () => {
  let dir: string;
  let b: PersonaBackend;
  let state: string;
  const run = (sql: string, params: unknown[] = []) => tryOp(b, { op: 'storage.sqlite.run', args: { db: 'persistence.db', sql, params } });
  const query = (sql: string, db = 'persistence.db') => tryOp(b, { op: 'storage.sqlite.query', args: { db, sql } });

  before(async () => {
    dir = personaDir('mallory');
    fs.writeFileSync(path.join(dir, 'attack.txt'), 'sqlite');
    b = await openBackend(dir, 'hostile', { pluginsDir: FIXTURE_PLUGINS });
    await b.events.append('test.tick', { i: 1 });
    await b.events.append('test.tick', { i: 2 });
    await b.events.flush();
    // The plugin's own file exists (the hostile backend writes one table there).
    assert.equal((await run('CREATE TABLE IF NOT EXISTS mine (a TEXT)')).error, undefined);
    state = kernelState(dir);
  });

  after(async () => {
    await b.close();
  });

  /** The kernel's events are exactly as the kernel wrote them. */
  function untouched(what: string): void {
    assert.equal(kernelState(dir), state, `the kernel's database changed after ${what}`);
    assert.deepEqual([...b.events.read()].map((e) => [e.seq, e.type, e.payload]), [
      [1, 'test.tick', { i: 1 }],
      [2, 'test.tick', { i: 2 }],
    ]);
  }

  test("the old guard's misses act on the plugin's own file only: 'events' as a string literal, quoted and bracketed names, main.events", async () => {
    const attempts = [
      // issue 27: rename the kernel's table away by a string literal, edit it, rename it back
      "ALTER TABLE 'events' RENAME TO gone",
      "UPDATE 'events' SET payload = '{\"forged\":true}'",
      "ALTER TABLE gone RENAME TO 'events'",
      'UPDATE events SET payload = \'{"forged":true}\' WHERE seq = 1',
      'DELETE FROM "EVENTS"',
      'DROP TABLE [events]',
      'DROP TABLE `event_segments`',
      "INSERT INTO main.events (seq, v, type, payload, prev, hash, at) VALUES (3, 1, 'forged', '{}', 'x', 'y', 'z')",
      'DELETE FROM main.history_documents',
      "UPDATE sqlite_master SET sql = 'x' WHERE name = 'mine'",
    ];
    for (const sql of attempts) {
      const answer = await run(sql);
      assert.ok(answer.error !== undefined, `${sql}: ${JSON.stringify(answer)}`);
      assert.doesNotMatch(answer.error, /RTC_ERR_PERSISTENCE_STATEMENT/, `${sql} is not refused by parsing: there is nothing of the kernel's to name`);
      assert.match(answer.error, /no such table|may not be modified|table sqlite_master/, sql);
      untouched(sql);
    }
  });

  test('a table of its own named events is its own: the kernel never reads it, now or at the next open', async () => {
    assert.equal((await run('CREATE TABLE events (seq INTEGER PRIMARY KEY, v INTEGER NOT NULL, type TEXT NOT NULL, payload TEXT NOT NULL, prev TEXT NOT NULL, hash TEXT NOT NULL, at TEXT NOT NULL)')).error, undefined);
    assert.equal((await run("INSERT INTO events VALUES (3, 1, 'forged', '{}', 'x', 'y', '2030-01-01T00:00:00.000Z')")).error, undefined);
    assert.equal((await run("ALTER TABLE 'events' RENAME TO 'events2'")).error, undefined);
    assert.equal((await run("ALTER TABLE events2 RENAME TO events")).error, undefined);
    untouched('a forged events table of its own');
    const reader = await openBackend(dir, 'hostile', { pluginsDir: FIXTURE_PLUGINS, readonly: true });
    try {
      assert.deepEqual([...reader.events.read()].map((e) => e.type), ['test.tick', 'test.tick']);
      assert.equal(reader.events.verify().ok, true);
    } finally {
      await reader.close();
    }
  });

  test("the kernel's file cannot be opened by any name: relative, '..', './', doubled slashes, a link planted in the folder", async () => {
    fs.symlinkSync(path.join(dir, 'logs', 'events.db'), path.join(dir, 'alias.db'));
    fs.symlinkSync(path.join(dir, 'logs'), path.join(dir, 'logsdir'));
    const names = ['logs/events.db', './logs/events.db', 'logs//events.db', 'x/../logs/events.db', 'logs/./events.db', 'alias.db', 'logsdir/events.db', 'logs/events.db-wal', 'logs/new.db', 'trace/t.db', 'persistence.yaml', 'writer.lock'];
    for (const db of names) {
      for (const op of ['storage.sqlite.run', 'storage.sqlite.query', 'storage.sqlite.exists'] as const) {
        const answer = await tryOp(b, { op, args: { db, sql: op === 'storage.sqlite.run' ? 'CREATE TABLE t (a)' : 'SELECT 1' } });
        assert.ok(answer.error !== undefined, `${op} ${db}: ${JSON.stringify(answer)}`);
        assert.match(answer.error, /RTC_ERR_PERSISTENCE_BACKEND: .*is the kernel's|the kernel writes this file itself/, `${op} ${db}`);
      }
      const batch = await tryOp(b, { op: 'storage.sqlite.batch', args: { db, statements: [{ sql: 'DELETE FROM events' }] } });
      assert.match(batch.error ?? '', /RTC_ERR_PERSISTENCE_BACKEND/, db);
    }
    for (const db of ['/etc/passwd', '../other/persistence.db', path.join(dir, 'logs', 'events.db')]) {
      assert.match((await tryOp(b, { op: 'storage.sqlite.run', args: { db, sql: 'SELECT 1' } })).error ?? '', /RTC_ERR_PERSISTENCE_PATH_ESCAPE/, db);
    }
    fs.rmSync(path.join(dir, 'alias.db'));
    fs.rmSync(path.join(dir, 'logsdir'));
    assert.equal(fs.existsSync(path.join(dir, 'logs', 'new.db')), false);
    untouched('opening the kernel file');
  });

  test('ATTACH, DETACH, VACUUM (INTO), PRAGMA, EXPLAIN and transaction control are refused, however written', async () => {
    const kernelFile = path.join(dir, 'logs', 'events.db');
    const attempts = [
      `ATTACH DATABASE '${kernelFile}' AS k`,
      "attach 'logs/events.db' as k",
      "AtTaCh 'logs/events.db' AS k",
      "/* a comment */ ATTACH 'logs/events.db' AS k",
      "-- a comment\nATTACH 'logs/events.db' AS k",
      " \n\t\r\fATTACH 'logs/events.db' AS k",
      ";ATTACH 'logs/events.db' AS k",
      "/* unterminated ATTACH 'x' AS k",
      `ATTACH 'file:${kernelFile}?mode=rw' AS k`,
      'DETACH DATABASE main',
      `VACUUM INTO '${kernelFile}'`,
      "VACUUM INTO 'copy.db'",
      'VACUUM',
      'PRAGMA writable_schema = ON',
      'pragma query_only = 0',
      'PRAGMA trusted_schema = ON',
      'PRAGMA hard_heap_limit = 1',
      'PRAGMA main.journal_mode = OFF',
      '/**/PRAGMA synchronous = OFF',
      'EXPLAIN SELECT 1',
      'BEGIN',
      'COMMIT',
      'SAVEPOINT s',
      'RELEASE s',
      'ROLLBACK',
      'REINDEX',
      'ANALYZE',
      '\u00a0SELECT 1',
    ];
    for (const sql of attempts) {
      for (const answer of [await run(sql), await tryOp(b, { op: 'storage.sqlite.batch', args: { db: 'persistence.db', statements: [{ sql: 'CREATE TABLE IF NOT EXISTS ok (a)' }, { sql }] } })]) {
        assert.match(answer.error ?? JSON.stringify(answer), /RTC_ERR_PERSISTENCE_STATEMENT: sqlite statement refused/, JSON.stringify(sql));
      }
    }
    assert.equal(fs.existsSync(path.join(dir, 'copy.db')), false);
    // The table-valued forms of the pragmas read only: they take no value to set.
    for (const sql of ['SELECT * FROM pragma_trusted_schema(1)', 'SELECT * FROM pragma_hard_heap_limit(1)', 'SELECT * FROM pragma_query_only(0)']) {
      assert.match((await query(sql)).error ?? '', /too many arguments/, sql);
    }
    assert.deepEqual((await query('SELECT trusted_schema FROM pragma_trusted_schema')).ok, { rows: [{ trusted_schema: 0 }] });
    // The connection holds one file, its own (and perhaps the connection's private temp schema, which has no file).
    const files = ((await query('SELECT name, file FROM pragma_database_list')).ok as { rows: { name: string; file: string }[] }).rows;
    assert.deepEqual(files.filter((f) => f.name !== 'temp').map((f) => f.name), ['main']);
    assert.equal(fs.realpathSync(files[0]!.file), fs.realpathSync(path.join(dir, 'persistence.db')));
    assert.ok(files.every((f) => f.name === 'main' || f.file === ''), JSON.stringify(files));
    untouched('connection statements');
  });

  test('several statements in one text, load_extension and an unsafe function are refused by SQLite itself', async () => {
    for (const sql of ["SELECT 1; ATTACH 'logs/events.db' AS k", "CREATE TABLE t2 (a); DROP TABLE mine", "SELECT 1 /* ; */; DELETE FROM mine"]) {
      assert.match((await run(sql)).error ?? '', /more than one statement/, sql);
    }
    assert.match((await query("SELECT load_extension('/tmp/nothing.so')")).error ?? '', /not authorized/);
    assert.match((await query("SELECT fts3_tokenizer('simple', x'00')")).error ?? '', /./);
    untouched('multi-statement texts and extensions');
  });

  test('its own tables are its own business', async () => {
    assert.equal((await run('INSERT INTO mine (a) VALUES (?)', ['events'])).error, undefined, 'the word in a value is data');
    assert.equal((await run('CREATE TRIGGER mine_t AFTER INSERT ON mine BEGIN DELETE FROM mine WHERE a = \'x\'; END')).error, undefined);
    assert.equal((await run('CREATE VIEW mine_v AS SELECT a FROM mine')).error, undefined);
    assert.deepEqual((await query('SELECT a FROM mine_v')).ok, { rows: [{ a: 'events' }] });
    untouched('its own tables');
  });
});

test('a new persona: a backend that plants an events table before the kernel opens the events gets a chain of the kernel\'s, not its own', async () => {
  const dir = personaDir('trudy');
  fs.writeFileSync(path.join(dir, 'attack.txt'), 'sqlite');
  const b = await openBackend(dir, 'hostile', { pluginsDir: FIXTURE_PLUGINS });
  try {
    const plant = [
      'CREATE TABLE events (seq INTEGER PRIMARY KEY, v INTEGER NOT NULL, type TEXT NOT NULL, payload TEXT NOT NULL, prev TEXT NOT NULL, hash TEXT NOT NULL, at TEXT NOT NULL)',
      "INSERT INTO events VALUES (1, 1, 'forged', '{}', '0000000000000000000000000000000000000000000000000000000000000000', 'ab', '2030-01-01T00:00:00.000Z')",
    ];
    for (const sql of plant) assert.equal(((await b.callPlugin('tryOp', { op: 'storage.sqlite.run', args: { db: 'persistence.db', sql } })) as Answer).error, undefined);
    // The plugin's first write made the kernel's own file, empty, before the plant ran.
    assert.ok(fs.existsSync(path.join(dir, 'logs', 'events.db')));
    await b.events.append('test.honest', {});
    assert.deepEqual([...b.events.read()].map((e) => [e.seq, e.type]), [[1, 'test.honest']]);
    assert.equal(b.events.verify().ok, true);
  } finally {
    await b.close();
  }
});

test('the first keyword is read as SQLite reads it', () => {
  assert.equal(firstKeyword('  /* x */ -- y\n select 1'), 'select');
  assert.equal(firstKeyword('\f\rWITH x AS (SELECT 1) SELECT * FROM x'), 'with');
  assert.equal(firstKeyword('SELECTx'), 'selectx');
  assert.equal(firstKeyword(';SELECT 1'), undefined);
  assert.equal(firstKeyword('\vSELECT 1'), undefined);
  assert.equal(firstKeyword('"SELECT" 1'), undefined);
  assert.equal(firstKeyword('/* never closed SELECT 1'), undefined);
});
