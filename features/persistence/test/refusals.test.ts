/**
 * What openBackend refuses, leaving the files as they are: a newer schema version (the
 * database, persistence.yaml), a damaged sqlite event chain, another persona's database; and
 * how plugins are held to their manifests: only declared storage is handed over, only storage
 * bindings may be declared, and no path leaves the persona directory.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { openBackend, readPersistenceConfig, writePersistenceConfig } from '../index.ts';
import { personaFiles, personaSqlite } from '../../../kernel/storage/persona-storage.ts';
import { PLUGINS_DIR } from '../../../kernel/plugins/registry.ts';
import { assertRejectsKernel, personaDir, pinnedClock, sha256File } from './helpers.ts';

async function sqlitePersona(events = 5): Promise<string> {
  const dir = personaDir();
  const backend = await openBackend(dir, 'sqlite', { now: pinnedClock() });
  for (let i = 0; i < events; i++) await backend.events.append('test.tick', { i });
  await backend.close();
  return dir;
}

function editDb(dir: string, sql: string): void {
  const db = new Database(path.join(dir, 'persistence.db'));
  db.exec(sql);
  db.close();
}

test('a sqlite database from a newer schema version is refused and left byte for byte', async () => {
  const dir = await sqlitePersona();
  editDb(dir, "UPDATE meta SET value = '3' WHERE key = 'schema_version'");
  const db = path.join(dir, 'persistence.db');
  const before = sha256File(db);
  await assertRejectsKernel(() => openBackend(dir, 'sqlite'), 'RTC_ERR_PERSISTENCE_SCHEMA_NEWER', 'persistence.db: schema version 3 is newer than the 2', 'left untouched');
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
  await assertRejectsKernel(() => openBackend(dir), 'RTC_ERR_PERSISTENCE_PLUGIN', 'no persistence backend "mongo"', 'jsonl-fs, sqlite');
});

test('an edited or deleted sqlite event is caught by verify, and refused at open with the database untouched', async () => {
  const dir = await sqlitePersona(6);
  editDb(dir, `UPDATE events SET payload = '{"i":99}' WHERE seq = 3`);
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
  const before = sha256File(path.join(dir, 'persistence.db'));
  const writer = await openBackend(dir, 'sqlite');
  await assertRejectsKernel(() => writer.events.append('test.more', {}), 'RTC_ERR_EVENTS_CHAIN', 'persistence.db (seq 3)', 'left as it is');
  await writer.close();
  assert.equal(sha256File(path.join(dir, 'persistence.db')), before);

  const gap = await sqlitePersona(6);
  editDb(gap, 'DELETE FROM events WHERE seq = 4');
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
});

/** A plugins dir with one persistence plugin whose factory reports what it was handed. */
function fakePlugins(bindings: string, factory: string, kind = 'persistence'): string {
  const root = path.join(path.dirname(personaDir()), '..', 'plugins');
  const dir = path.join(root, 'persistence-probe');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'plugin.yaml'), `id: persistence.probe\nversion: 1.0.0\nkind: ${kind}\nentry: backend.ts\ndescription: probe\nbindings: ${bindings}\nexports: [createBackend]\n`);
  fs.writeFileSync(path.join(dir, 'backend.ts'), factory);
  return root;
}

test('a backend is handed only the storage its manifest declares, and only storage bindings may be declared', async () => {
  const dir = personaDir();
  const report = `export function createBackend(ctx) { throw new Error('handed ' + Object.keys(ctx.storage).sort().join(',')); }\n`;
  await assert.rejects(openBackend(dir, 'probe', { pluginsDir: fakePlugins('[storage.sqlite]', report) }), /handed sqlite$/);
  await assert.rejects(openBackend(dir, 'probe', { pluginsDir: fakePlugins('[storage.files]', report) }), /handed files$/);
  await assert.rejects(openBackend(dir, 'probe', { pluginsDir: fakePlugins('[]', report) }), /handed $/);
  await assertRejectsKernel(() => openBackend(dir, 'probe', { pluginsDir: fakePlugins('[storage.files, ledger]', report) }), 'RTC_ERR_PERSISTENCE_BINDING', 'bindings: a persistence backend may declare only storage.files, storage.sqlite, not ledger');
  await assertRejectsKernel(() => openBackend(dir, 'probe', { pluginsDir: fakePlugins('[storage.files]', report, 'tool') }), 'RTC_ERR_PERSISTENCE_PLUGIN', 'is a tool plugin, not a persistence backend');
  await assertRejectsKernel(() => openBackend(dir, 'probe', { pluginsDir: fakePlugins('[storage.files]', 'export const other = 1;\n') }), 'RTC_ERR_PERSISTENCE_PLUGIN', 'does not export a function createBackend');

  // The shipped backends hold themselves to the same rule: sqlite without storage.sqlite refuses to start.
  const root = path.join(path.dirname(personaDir()), '..', 'plugins');
  fs.cpSync(path.join(PLUGINS_DIR, 'persistence-sqlite'), path.join(root, 'persistence-sqlite'), { recursive: true });
  const manifest = path.join(root, 'persistence-sqlite', 'plugin.yaml');
  fs.writeFileSync(manifest, fs.readFileSync(manifest, 'utf8').replace('bindings: [storage.sqlite]', 'bindings: [storage.files]'));
  // Its imports are relative to the repository; point them back at it.
  const repo = path.join(PLUGINS_DIR, '..');
  for (const file of fs.readdirSync(path.join(root, 'persistence-sqlite')).filter((f) => f.endsWith('.ts'))) {
    const copy = path.join(root, 'persistence-sqlite', file);
    fs.writeFileSync(copy, fs.readFileSync(copy, 'utf8').replaceAll("'../../kernel/", `'${repo}/kernel/`).replaceAll("'../../features/", `'${repo}/features/`));
  }
  // (Loaded from outside the repository, the copy gets its own instance of kernel/errors.ts: compare by code.)
  await assert.rejects(openBackend(dir, 'sqlite', { pluginsDir: root }), (e: Error & { code?: string }) => e.code === 'RTC_ERR_PERSISTENCE_BINDING' && e.message.includes('needs storage.sqlite, which its manifest does not declare'));
});

test('storage handles refuse any path outside the persona directory, links included', () => {
  const dir = personaDir();
  const outside = path.join(path.dirname(dir), 'bob');
  fs.mkdirSync(outside);
  fs.symlinkSync(outside, path.join(dir, 'link'));
  for (const handle of [personaFiles(dir, false), personaSqlite(dir, false)]) {
    for (const bad of ['../bob/persistence.db', '/etc/passwd', 'link/persistence.db', '.']) {
      assert.throws(() => handle.resolve(bad), (e: Error & { code?: string }) => e.code === 'RTC_ERR_PERSISTENCE_PATH_ESCAPE' && e.message.includes('outside the persona directory'), bad);
    }
    assert.equal(handle.resolve('brain/memory/brain.json'), path.join(fs.realpathSync(dir), 'brain/memory/brain.json'));
  }
  assert.throws(() => personaSqlite(dir, false).open('../bob/x.db'), /PATH_ESCAPE|outside the persona directory/);
  assert.deepEqual(fs.readdirSync(outside), [], 'nothing was created outside');
});
