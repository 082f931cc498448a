/**
 * What openBackend refuses, leaving the files as they are: a newer schema version (the
 * database, persistence.yaml), a damaged sqlite event chain, another persona's database.
 * (How backends are held to their manifests and the persona folder: isolation.test.ts.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { openBackend, readPersistenceConfig, writePersistenceConfig } from '../index.ts';
import { assertRejectsKernel, personaDir, pinnedClock, sha256File } from './helpers.ts';

async function sqlitePersona(events = 5): Promise<string> {
  const dir = personaDir();
  const backend = await openBackend(dir, 'sqlite', { now: pinnedClock() });
  for (let i = 0; i < events; i++) await backend.events.append('test.tick', { i });
  await backend.close();
  return dir;
}

/** Edits the plugin's database (`file` persistence.db) or the kernel's (logs/events.db) behind the backend's back. */
function editDb(dir: string, sql: string, file = 'persistence.db'): void {
  const db = new Database(path.join(dir, file));
  db.exec(sql);
  db.close();
}

test('a sqlite database from a newer schema version is refused and left byte for byte', async () => {
  const dir = await sqlitePersona();
  editDb(dir, "UPDATE meta SET value = '4' WHERE key = 'schema_version'");
  const db = path.join(dir, 'persistence.db');
  const before = sha256File(db);
  await assertRejectsKernel(() => openBackend(dir, 'sqlite'), 'RTC_ERR_PERSISTENCE_SCHEMA_NEWER', 'persistence.db: schema version 4 is newer than the 3', 'left untouched');
  await assertRejectsKernel(() => openBackend(dir, 'sqlite', { readonly: true }), 'RTC_ERR_PERSISTENCE_SCHEMA_NEWER');
  assert.equal(sha256File(db), before);
});

test('a persistence.yaml from a newer schema version, or naming nonsense, is refused', async () => {
  const dir = personaDir();
  assert.equal(readPersistenceConfig(dir).backend, 'jsonl-fs', 'no file: the embedded default');
  writePersistenceConfig(dir, 'sqlite');
  assert.deepEqual({ ...readPersistenceConfig(dir) }, { schema_version: 1, backend: 'sqlite', source: 'file' });
  const backend = await openBackend(dir, undefined, { readonly: true });
  assert.equal(backend.name, 'sqlite', 'the configured backend is opened when none is named');
  await backend.close();

  const file = path.join(dir, 'persistence.yaml');
  fs.writeFileSync(file, 'schema_version: 2\nbackend: sqlite\n');
  await assertRejectsKernel(() => openBackend(dir), 'RTC_ERR_PERSISTENCE_SCHEMA_NEWER', 'persistence.yaml: schema version 2');
  assert.equal(fs.readFileSync(file, 'utf8'), 'schema_version: 2\nbackend: sqlite\n');
  fs.writeFileSync(file, 'schema_version: 1\nbackend: Oracle\n');
  await assertRejectsKernel(() => openBackend(dir), 'RTC_ERR_PERSISTENCE_CONFIG', 'backend');
  fs.writeFileSync(file, 'schema_version: 1\nbackend: mongo\n');
  await assertRejectsKernel(() => openBackend(dir), 'RTC_ERR_PERSISTENCE_PLUGIN', 'no persistence backend "mongo"', 'jsonl-fs, postgres, sqlite');
});

test('an edited or deleted sqlite event is caught by verify, and refused at open with the database untouched', async () => {
  const dir = await sqlitePersona(6);
  editDb(dir, `UPDATE events SET payload = '{"i":99}' WHERE seq = 3`, 'logs/events.db');
  const reader = await openBackend(dir, 'sqlite', { readonly: true });
  const report = reader.events.verify();
  assert.equal(report.ok, false);
  assert.deepEqual(
    report.problems.map((p) => [p.seq, p.code]),
    [[3, 'RTC_ERR_EVENTS_CHAIN']],
  );
  assert.match(report.problems[0]!.what, /the event was edited/);
  assert.throws(() => [...reader.events.read()], /\(seq 3\).*edited/);
  await reader.close();
  const before = sha256File(path.join(dir, 'logs', 'events.db'));
  const writer = await openBackend(dir, 'sqlite');
  await assertRejectsKernel(() => writer.events.append('test.more', {}), 'RTC_ERR_EVENTS_CHAIN', 'logs/events.db (seq 3)', 'left as it is');
  await writer.close();
  assert.equal(sha256File(path.join(dir, 'logs', 'events.db')), before);

  const gap = await sqlitePersona(6);
  editDb(gap, 'DELETE FROM events WHERE seq = 4', 'logs/events.db');
  const gapReader = await openBackend(gap, 'sqlite', { readonly: true });
  assert.match(gapReader.events.verify().problems[0]!.what, /seq 5 where seq 4 was expected \(an event is missing/);
  await gapReader.close();
});

test("another persona's database is refused", async () => {
  const dir = await sqlitePersona(1);
  const other = path.join(path.dirname(dir), 'bob');
  fs.mkdirSync(other);
  fs.copyFileSync(path.join(dir, 'persistence.db'), path.join(other, 'persistence.db'));
  await assertRejectsKernel(() => openBackend(other, 'sqlite'), 'RTC_ERR_PERSISTENCE_CORRUPT', 'belongs to persona "alice", not bob');
  // So is another persona's event database (the kernel's logs/events.db), at the first write.
  const third = path.join(path.dirname(dir), 'carol');
  fs.mkdirSync(path.join(third, 'logs'), { recursive: true });
  fs.copyFileSync(path.join(dir, 'logs', 'events.db'), path.join(third, 'logs', 'events.db'));
  const before = sha256File(path.join(third, 'logs', 'events.db'));
  const carol = await openBackend(third, 'sqlite');
  try {
    await assertRejectsKernel(() => carol.events.append('test.tick', {}), 'RTC_ERR_PERSISTENCE_CORRUPT', 'carol/logs/events.db: belongs to persona "alice", not carol');
  } finally {
    await carol.close();
  }
  assert.equal(sha256File(path.join(third, 'logs', 'events.db')), before);
});
