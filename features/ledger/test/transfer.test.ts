/**
 * Moving a ledger between backends, and checking a ledger's consistency: a round trip
 * sqlite → jsonl-fs → sqlite gives back the same ledger; imports go only into an empty
 * ledger and only when consistent; a tampered ledger is reported with file and position.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { checkLedgerConsistency, exportLedger, importLedger, openLedger } from '../index.ts';
import { BACKENDS, assertKernelError, by, freshStore, personaDir, populate } from './helpers.ts';

describe('export and import', () => {
  test('sqlite → jsonl-fs → sqlite round-trips every task, history, lease, event, checkpoint and surprise', () => {
    const { store: source } = freshStore('sqlite');
    populate(source);
    const original = exportLedger(source);
    const { dir: jsonlDir, store: middle } = freshStore('jsonl-fs');
    importLedger(middle, original);
    assert.deepEqual(exportLedger(middle), original);
    middle.close();
    // Through the file, not just the handle: reopen the JSONL ledger and export again.
    const { store: reread } = openLedger(jsonlDir);
    const viaJsonl = exportLedger(reread);
    const { store: back } = freshStore('sqlite');
    importLedger(back, viaJsonl);
    assert.deepEqual(exportLedger(back), original);
    // The copies keep working where the original left off.
    assert.equal(back.addTask({ title: 'next', by, now: 1 }).id, 'T-0005');
    assert.equal(reread.recordSurprise({ observation: 'next', by, now: 1 }).surprise.id, 'S-0003');
    assert.ok(original.tasks.length === 4 && original.surprises.length === 2 && original.leases.length === 2 && original.checkpoints.length === 3);
    for (const s of [source, reread, back]) s.close();
  });

  for (const backend of BACKENDS) {
    test(`an import into a non-empty ${backend} ledger, or of an inconsistent export, is refused whole`, () => {
      const { store: source } = freshStore(backend);
      populate(source);
      const doc = exportLedger(source);
      assertKernelError(() => importLedger(source, doc), 'RTC_ERR_LEDGER_IMPORT', 'not empty');

      const { store: target } = freshStore(backend);
      const edited = structuredClone(doc);
      edited.tasks[0]!.state = 'accepted';
      assertKernelError(() => importLedger(target, edited), 'RTC_ERR_LEDGER_IMPORT', 'task T-0001', 'history ends at');
      const skipped = structuredClone(doc);
      skipped.tasks[3]!.history.splice(2, 1);
      assertKernelError(() => importLedger(target, skipped), 'RTC_ERR_LEDGER_IMPORT', 'task T-0004 history[2]');
      assertKernelError(() => importLedger(target, { ...doc, schemaVersion: 2 }), 'RTC_ERR_LEDGER_SCHEMA_NEWER');
      assertKernelError(() => importLedger(target, { ...doc, tasks: 'nope' }), 'RTC_ERR_LEDGER_IMPORT', 'tasks');
      assert.deepEqual(target.listTasks(), []);
      source.close();
      target.close();
    });
  }
});

describe('checkLedgerConsistency', () => {
  test('a persona without a ledger has nothing to check; a sound ledger has no problems', () => {
    assert.deepEqual(checkLedgerConsistency(personaDir()), []);
    for (const backend of BACKENDS) {
      const { dir, store } = freshStore(backend);
      populate(store);
      store.close();
      assert.deepEqual(checkLedgerConsistency(dir, backend), []);
      assert.deepEqual(checkLedgerConsistency(dir), [], 'the backend is found from the file when not named');
    }
  });

  test('a tampered sqlite ledger is reported with the file and position', () => {
    const { dir, store } = freshStore('sqlite');
    populate(store);
    store.close();
    const db = new Database(path.join(dir, 'orchestra/orchestra.db'));
    db.prepare("UPDATE tasks SET state = 'accepted', blocked_from = NULL, blocked_by_surprise = 0 WHERE id = 'T-0003'").run();
    db.close();
    const problems = checkLedgerConsistency(dir, 'sqlite');
    assert.deepEqual(problems[0], { file: 'orchestra/orchestra.db', position: 'task T-0003', problem: 'state is accepted but its history ends at blocked' });
    assert.ok(problems.some((p) => p.position === 'surprise S-0002' && p.problem.includes('T-0003')));
  });

  test('a tampered jsonl-fs ledger is reported with the file and position', () => {
    const { dir, store } = freshStore('jsonl-fs');
    populate(store);
    store.close();
    const file = path.join(dir, 'orchestra/orchestra.db');
    // A lease written with an expiry its ttl does not explain.
    const text = fs.readFileSync(file, 'utf8').replace('"ttlMs":60000,"expiresAt":', '"ttlMs":60000,"expiresAt":9');
    fs.writeFileSync(file, text);
    assert.deepEqual(checkLedgerConsistency(dir, 'jsonl-fs'), [
      { file: 'orchestra/orchestra.db', position: 'lease "vm/guest-1"', problem: 'expires at 961021, not at its last renewal 1021 plus ttl 60000' },
    ]);
  });

  test('a backend mismatch is a problem, not a crash', () => {
    const { dir, store } = freshStore('jsonl-fs');
    store.close();
    const problems = checkLedgerConsistency(dir, 'sqlite');
    assert.equal(problems.length, 1);
    assert.match(problems[0]!.problem, /RTC_ERR_LEDGER_BACKEND_MISMATCH/);
  });
});
