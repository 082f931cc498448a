/**
 * What must hold across restarts, on both backends: a reopened ledger is the same ledger;
 * a ledger from a newer schema is refused with one precise line and the file left byte for
 * byte as it was; two handles on one ledger see each other's changes.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { bootstrapLedger, checkLedgerConsistency, openLedger } from '../index.ts';
import { BACKENDS, assertKernelError, by, freshStore, personaDir, populate, sha256File } from './helpers.ts';

const DB = 'orchestra/orchestra.db';

/** Stamps an existing ledger with schema version `version`, the way a newer runtimectl would. */
function stampVersion(dir: string, backend: string, version: number): void {
  const file = path.join(dir, DB);
  if (backend === 'sqlite') {
    const db = new Database(file);
    db.prepare('UPDATE schema_version SET version = ?').run(version);
    db.close();
  } else {
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    lines[0] = JSON.stringify({ format: 'runtimectl-ledger-jsonl', schemaVersion: version });
    fs.writeFileSync(file, lines.join('\n'));
  }
}

for (const backend of BACKENDS) {
  describe(`durability on ${backend}`, () => {
    test('a reopened ledger holds exactly what was committed', () => {
      const { dir, store } = freshStore(backend);
      populate(store);
      const before = store.exportLedger();
      store.close();
      const { store: reopened } = openLedger(dir);
      assert.equal(reopened.backend, backend);
      assert.deepEqual(reopened.exportLedger(), before);
      reopened.close();
      assert.deepEqual(checkLedgerConsistency(dir, backend), []);
    });

    test('a ledger from a newer schema version is refused and left untouched', () => {
      const { dir, store } = freshStore(backend);
      store.addTask({ title: 'written by the old version', by, now: 1 });
      store.close();
      stampVersion(dir, backend, 7);
      const file = path.join(dir, DB);
      const digest = sha256File(file);
      const listing = fs.readdirSync(path.dirname(file)).sort();
      assertKernelError(() => openLedger(dir), 'RTC_ERR_LEDGER_SCHEMA_NEWER', `${DB}: ledger schema version 7 is newer than the 1 this runtimectl supports`, 'left untouched');
      assertKernelError(() => openLedger(dir, { backend }), 'RTC_ERR_LEDGER_SCHEMA_NEWER');
      assert.equal(sha256File(file), digest, 'the file is byte for byte unchanged');
      const problems = checkLedgerConsistency(dir, backend);
      assert.equal(problems.length, 1);
      assert.match(problems[0]!.problem, /RTC_ERR_LEDGER_SCHEMA_NEWER/);
      assert.equal(sha256File(file), digest);
      assert.deepEqual(
        fs.readdirSync(path.dirname(file)).sort().filter((f) => !f.endsWith('-shm') && !f.endsWith('-wal')),
        listing.filter((f) => !f.endsWith('-shm') && !f.endsWith('-wal')),
      );
    });

    test('a config.yaml from a newer schema version is refused too', () => {
      const dir = personaDir();
      bootstrapLedger(dir, { backend });
      const config = path.join(dir, 'orchestra/project/.orchestra/config.yaml');
      fs.writeFileSync(config, fs.readFileSync(config, 'utf8').replace('schema_version: 1', 'schema_version: 3'));
      assertKernelError(() => openLedger(dir), 'RTC_ERR_LEDGER_SCHEMA_NEWER', 'config.yaml', 'version 3');
    });

    test('two handles on one ledger see each other and never reuse an id', () => {
      const { dir, store: first } = freshStore(backend);
      const { store: second } = openLedger(dir);
      first.addTask({ title: 'from the kernel', by: 'kernel', now: 1 });
      second.addTask({ title: 'from the CLI', by: 'operator', now: 2 });
      first.addTask({ title: 'from the kernel again', by: 'kernel', now: 3 });
      assert.deepEqual(second.listTasks().map((t) => `${t.id} ${t.title}`), ['T-0001 from the kernel', 'T-0002 from the CLI', 'T-0003 from the kernel again']);
      second.acquireLease('vm', 'operator', 1_000, 10);
      assertKernelError(() => first.acquireLease('vm', 'kernel', 1_000, 11), 'RTC_ERR_LEDGER_LEASE_HELD', 'operator');
      assert.deepEqual(first.exportLedger(), second.exportLedger());
      first.close();
      second.close();
    });
  });
}

describe('sqlite specifics', () => {
  test('the database is in WAL mode with a schema_version table', () => {
    const { dir, store } = freshStore('sqlite');
    store.close();
    const db = new Database(path.join(dir, DB), { readonly: true });
    assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
    assert.deepEqual(db.prepare('SELECT version FROM schema_version').all(), [{ version: 1 }]);
    db.close();
  });

  test('a sqlite file that is not a ledger is refused untouched', () => {
    const dir = personaDir();
    fs.mkdirSync(path.join(dir, 'orchestra'), { recursive: true });
    const file = path.join(dir, DB);
    const db = new Database(file);
    db.exec('CREATE TABLE something_else (x INTEGER)');
    db.close();
    const digest = sha256File(file);
    assertKernelError(() => openLedger(dir), 'RTC_ERR_LEDGER_CORRUPT', 'schema_version');
    assert.equal(sha256File(file), digest);
  });
});

describe('jsonl-fs specifics', () => {
  test('one fsynced line per committed change, replayed at open', () => {
    const { dir, store } = freshStore('jsonl-fs');
    store.addTask({ title: 'a', by, now: 1 });
    store.moveTask('T-0001', 'ready', { by, now: 2 });
    assert.throws(() => store.moveTask('T-0001', 'accepted', { by, now: 3 }));
    store.close();
    const lines = fs.readFileSync(path.join(dir, DB), 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.deepEqual(lines.map((l) => l['change'] ?? l['format']), ['runtimectl-ledger-jsonl', 'task.add', 'task.move']);
    assert.deepEqual(lines.slice(1).map((l) => l['seq']), [1, 2]);
  });

  test('a torn last line (an unacknowledged write) is cut off and the repair recorded', () => {
    const { dir, store } = freshStore('jsonl-fs');
    store.addTask({ title: 'kept', by, now: 1 });
    store.close();
    const file = path.join(dir, DB);
    fs.appendFileSync(file, '{"seq":2,"change":"task.add","ops":[{"op":"coun');
    // A reader ignores the torn tail and writes nothing.
    const digest = sha256File(file);
    assert.deepEqual(checkLedgerConsistency(dir), []);
    assert.equal(sha256File(file), digest);
    const { store: reopened } = openLedger(dir);
    assert.deepEqual(reopened.listTasks().map((t) => t.title), ['kept']);
    reopened.addTask({ title: 'after the repair', by, now: 2 });
    reopened.close();
    const records = fs.readFileSync(file, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.deepEqual(records.slice(1).map((r) => [r['seq'], r['change']]), [[1, 'task.add'], [2, 'repair'], [3, 'task.add']]);
    assert.match(String(records[2]?.['note']), /cut 47 bytes/);
  });

  test('a bad line in the middle is refused with its line number and the file kept', () => {
    const { dir, store } = freshStore('jsonl-fs');
    store.addTask({ title: 'a', by, now: 1 });
    store.addTask({ title: 'b', by, now: 2 });
    store.close();
    const file = path.join(dir, DB);
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    for (const [bad, reason] of [
      ['not json at all', 'line 2: not a JSON record'],
      [lines[1]!.replace('"proposed"', '"finished"'), 'line 2: ops[1].row.state'],
      [lines[2]!, 'line 2: record seq 2 follows seq 0'],
    ] as const) {
      const text = [lines[0], bad, ...lines.slice(2)].join('\n');
      fs.writeFileSync(file, text);
      const digest = sha256File(file);
      assertKernelError(() => openLedger(dir), 'RTC_ERR_LEDGER_CORRUPT', reason);
      assert.equal(sha256File(file), digest);
      assert.equal(checkLedgerConsistency(dir)[0]?.position, 'line 2');
    }
  });
});
