/**
 * A sqlite persona written by the previous version (the kernel's tables inside persistence.db:
 * fixtures/legacy-sqlite/ada, made by make-legacy.mts.txt at commit 6725d9a, with two sealed
 * segments, memory and a proposal) opens with this one:
 *
 *   - read-only, its events are read where they are, verified, and exported byte for byte as
 *     the previous version exported them (fixtures/legacy-sqlite/exported); nothing is written;
 *   - at the first writable open the kernel moves its tables to logs/events.db before any
 *     plugin statement runs, records the move (kernel_meta, and `storage_migrated` in the
 *     chain, once), and persistence.db keeps only the plugin's tables (schema 3);
 *   - a move cut short (after the copy, before the old tables were dropped) is finished at the
 *     next open, or refused in one line when the two differ; a half-written copy is redone;
 *   - a persistence.db whose "events" is a view is refused, untouched.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { copyPersistence, openBackend } from '../index.ts';
import { assertRejectsKernel, personaDir, sha256File } from './helpers.ts';
import { COPY_PARTS } from './copy-parts.ts';

const FIXTURE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'legacy-sqlite');
const FIXTURE_PLUGINS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'plugins');
const KERNEL_TABLES = ['event_index', 'event_rollups', 'event_segments', 'events', 'history_documents'];

/** A copy of the previous version's persona `ada` in a fresh state directory. */
function legacyPersona(): string {
  const dir = personaDir('ada');
  fs.copyFileSync(path.join(FIXTURE, 'ada', 'persistence.db'), path.join(dir, 'persistence.db'));
  return dir;
}

function tablesOf(file: string): string[] {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]).map((r) => r.name);
  } finally {
    db.close();
  }
}

function metaOf(file: string, table: string): Record<string, string> {
  const db = new Database(file, { readonly: true });
  try {
    return Object.fromEntries((db.prepare(`SELECT key, value FROM ${table}`).all() as { key: string; value: string }[]).map((r) => [r.key, r.value]));
  } finally {
    db.close();
  }
}

/** Every file of a folder, relative path → bytes. */
function files(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const rel of fs.readdirSync(dir, { recursive: true }) as string[]) {
    const file = path.join(dir, rel);
    if (fs.statSync(file).isFile()) out.set(rel, fs.readFileSync(file));
  }
  return out;
}

async function exportToFiles(from: string): Promise<string> {
  const source = await openBackend(from, 'sqlite', { readonly: true });
  const target = personaDir('ada');
  const to = await openBackend(target, 'jsonl-fs');
  try {
    await copyPersistence(source, to, COPY_PARTS);
  } finally {
    await to.close();
    await source.close();
  }
  return target;
}

test('read-only: the previous layout is read where it is, verified, and exported byte for byte as the previous version did; nothing is written', async () => {
  const dir = legacyPersona();
  const before = sha256File(path.join(dir, 'persistence.db'));
  const reader = await openBackend(dir, 'sqlite', { readonly: true });
  try {
    assert.equal([...reader.events.read()].length, 55);
    assert.equal(reader.events.verify({ mode: 'full', deep: true }).ok, true);
    assert.equal(reader.events.history.list().segments.length, 2);
    assert.equal(reader.memory.readBrain(), '{"format":"runtimectl.brain/1","cycles":25}\n');
  } finally {
    await reader.close();
  }
  const exported = await exportToFiles(dir);
  assert.deepEqual(files(exported), files(path.join(FIXTURE, 'exported', 'ada')), 'the export is the previous version\'s, file for file, byte for byte');
  assert.equal(sha256File(path.join(dir, 'persistence.db')), before);
  assert.equal(fs.existsSync(path.join(dir, 'logs', 'events.db')), false, 'a reader moves nothing');
});

test('the first writable open moves the kernel\'s tables to logs/events.db before any plugin statement, records it once, and the history is whole', async () => {
  const dir = legacyPersona();
  const writer = await openBackend(dir, 'sqlite');
  try {
    await writer.events.append('test.after', { n: 1 });
    const events = [...writer.events.read()];
    assert.deepEqual(events.slice(55).map((e) => e.type), ['reboot', 'storage_migrated', 'test.after']);
    assert.deepEqual(events[56]!.payload, { from: 'persistence.db', to: 'logs/events.db', open_events: 8, last_seq: 55, segments: 2 });
    assert.equal(writer.events.verify({ mode: 'full', deep: true }).ok, true);
  } finally {
    await writer.close();
  }
  assert.deepEqual(tablesOf(path.join(dir, 'persistence.db')), ['memory', 'meta', 'proposals'], 'the plugin\'s file keeps only its own tables');
  assert.equal(metaOf(path.join(dir, 'persistence.db'), 'meta').schema_version, '3');
  const kernelFile = path.join(dir, 'logs', 'events.db');
  assert.deepEqual(tablesOf(kernelFile), [...KERNEL_TABLES, 'kernel_meta'].sort());
  const meta = metaOf(kernelFile, 'kernel_meta');
  assert.equal(meta.migration, 'done');
  assert.equal(meta.logged, '1');
  assert.equal(meta.persona_id, 'ada');
  assert.equal(fs.existsSync(`${kernelFile}.migrating`), false);

  // Recorded once: the next open appends a reboot, not a second storage_migrated.
  const again = await openBackend(dir, 'sqlite');
  try {
    await again.events.append('test.again', {});
    const types = [...again.events.read()].map((e) => e.type);
    assert.equal(types.filter((t) => t === 'storage_migrated').length, 1);
    assert.deepEqual(types.slice(-2), ['reboot', 'test.again']);
    assert.equal(again.memory.readLongTerm(), '# Long-term memory\n\nA fact from before the move.\n');
    assert.deepEqual(again.proposals.lines(), ['{"v":1,"seq":1,"type":"proposal_submitted","payload":{}}']);
  } finally {
    await again.close();
  }

  // The export keeps the sealed segments, index and rollups of before the move byte for byte, and the events as a prefix.
  const exported = files(await exportToFiles(dir));
  const old = files(path.join(FIXTURE, 'exported', 'ada'));
  for (const rel of ['logs/segments/000001.jsonl.gz', 'logs/segments/000002.jsonl.gz', 'logs/index.jsonl', 'logs/rollups.jsonl', 'brain/memory/brain.json', 'brain/memory/long-term.md', 'review/proposals.jsonl']) {
    assert.deepEqual(exported.get(rel), old.get(rel), rel);
  }
  assert.ok(exported.get('logs/events.jsonl')!.subarray(0, old.get('logs/events.jsonl')!.length).equals(old.get('logs/events.jsonl')!));
});

test('a move cut short after the copy is finished at the next open when both agree, refused untouched when they differ; a half-written copy is redone', async () => {
  // The state a crash between the rename and the drop leaves: logs/events.db says "copied", persistence.db still has the tables.
  const done = legacyPersona();
  const first = await openBackend(done, 'sqlite');
  await first.events.append('x', {}); // moves the tables
  await first.close();
  const cutShort = () => {
    const dir = legacyPersona();
    fs.mkdirSync(path.join(dir, 'logs'));
    // The kernel's copy as the move wrote it (before anything was appended after it): rebuilt from the fixture the same way.
    const db = new Database(path.join(dir, 'logs', 'events.db'));
    const source = new Database(path.join(done, 'logs', 'events.db'), { readonly: true });
    for (const { sql } of source.prepare("SELECT sql FROM sqlite_master WHERE type = 'table'").all() as { sql: string }[]) db.exec(sql);
    db.prepare('ATTACH DATABASE ? AS legacy').run(path.join(dir, 'persistence.db'));
    for (const t of KERNEL_TABLES) db.exec(`INSERT INTO main.${t} SELECT * FROM legacy.${t}`);
    db.exec('DETACH DATABASE legacy');
    const meta = db.prepare('INSERT INTO kernel_meta (key, value) VALUES (?, ?)');
    for (const [k, v] of Object.entries(metaOf(path.join(done, 'logs', 'events.db'), 'kernel_meta'))) meta.run(k, k === 'migration' ? 'copied' : k === 'logged' ? '0' : v);
    source.close();
    db.pragma('journal_mode = WAL');
    db.close();
    return dir;
  };

  const agree = cutShort();
  const b = await openBackend(agree, 'sqlite');
  try {
    await b.events.append('test.after', {});
    assert.deepEqual([...b.events.read()].slice(55).map((e) => e.type), ['reboot', 'storage_migrated', 'test.after']);
  } finally {
    await b.close();
  }
  assert.deepEqual(tablesOf(path.join(agree, 'persistence.db')), ['memory', 'meta', 'proposals']);
  assert.equal(metaOf(path.join(agree, 'logs', 'events.db'), 'kernel_meta').migration, 'done');

  const differ = cutShort();
  const legacy = new Database(path.join(differ, 'persistence.db'));
  legacy.prepare("UPDATE events SET type = 'edited' WHERE seq = 55").run();
  legacy.close();
  const shas = [sha256File(path.join(differ, 'persistence.db')), sha256File(path.join(differ, 'logs', 'events.db'))];
  const c = await openBackend(differ, 'sqlite');
  try {
    await assertRejectsKernel(() => c.events.append('test.after', {}), 'RTC_ERR_PERSISTENCE_CORRUPT', 'ada/persistence.db: still holds the kernel\'s tables', 'which differ from what was moved to ada/logs/events.db', 'both were left as they are');
  } finally {
    await c.close();
  }
  assert.deepEqual([sha256File(path.join(differ, 'persistence.db')), sha256File(path.join(differ, 'logs', 'events.db'))], shas);

  // A crash during the copy leaves logs/events.db.migrating: it is thrown away and the move done again.
  const half = legacyPersona();
  fs.mkdirSync(path.join(half, 'logs'));
  fs.writeFileSync(path.join(half, 'logs', 'events.db.migrating'), 'half a database');
  const d = await openBackend(half, 'sqlite');
  try {
    await d.events.append('test.after', {});
    assert.equal([...d.events.read()].length, 58);
  } finally {
    await d.close();
  }
  assert.equal(fs.existsSync(path.join(half, 'logs', 'events.db.migrating')), false);
});

test('a previous-layout persistence.db whose "events" is a view, or whose chain is broken, is refused and left as it is', async () => {
  const view = legacyPersona();
  const db = new Database(path.join(view, 'persistence.db'));
  db.exec('ALTER TABLE events RENAME TO real_events; CREATE VIEW events AS SELECT * FROM real_events');
  db.close();
  const before = sha256File(path.join(view, 'persistence.db'));
  const b = await openBackend(view, 'sqlite');
  try {
    await assertRejectsKernel(() => b.events.append('x', {}), 'RTC_ERR_PERSISTENCE_CORRUPT', 'ada/persistence.db: "events" is a view, not the kernel\'s table of that name');
  } finally {
    await b.close();
  }
  assert.equal(sha256File(path.join(view, 'persistence.db')), before);
  assert.equal(fs.existsSync(path.join(view, 'logs', 'events.db')), false);

  const broken = legacyPersona();
  const edit = new Database(path.join(broken, 'persistence.db'));
  edit.prepare("UPDATE events SET payload = '{}' WHERE seq = 50").run();
  edit.close();
  const c = await openBackend(broken, 'sqlite');
  try {
    // Moved as it is (nothing is lost or rewritten), then refused by the chain check, naming the new place.
    await assertRejectsKernel(() => c.events.append('x', {}), 'RTC_ERR_EVENTS_CHAIN', 'ada/logs/events.db (seq 50)');
  } finally {
    await c.close();
  }
});

test('a hostile backend\'s first write to a previous-layout persona finds the kernel\'s tables already gone from its file', async () => {
  const dir = legacyPersona();
  fs.writeFileSync(path.join(dir, 'attack.txt'), 'sqlite');
  const b = await openBackend(dir, 'hostile', { pluginsDir: FIXTURE_PLUGINS });
  try {
    // Reading before any write sees the old layout (its own file, read-only): harmless.
    const read = (await b.callPlugin('tryOp', { op: 'storage.sqlite.query', args: { db: 'persistence.db', sql: 'SELECT count(*) AS n FROM events' } })) as { ok?: { rows: { n: number }[] } };
    assert.deepEqual(read.ok, { rows: [{ n: 8 }] });
    for (const sql of ["UPDATE events SET payload = '{}' WHERE seq = 50", "ALTER TABLE 'events' RENAME TO gone", 'DELETE FROM event_segments']) {
      const answer = (await b.callPlugin('tryOp', { op: 'storage.sqlite.run', args: { db: 'persistence.db', sql } })) as { error?: string };
      assert.match(answer.error ?? '', /no such table/, sql);
    }
    assert.equal(b.events.verify({ mode: 'full', deep: true }).ok, true);
    assert.equal([...b.events.read()].length, 55);
  } finally {
    await b.close();
  }
});
