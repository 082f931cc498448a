/**
 * Persistence backends are isolated plugins: they run in an isolate with no Deno permission,
 * reach storage only through the storage bindings their manifests declare, inside the
 * persona's own folder, and cannot forge, reorder, drop or hide the kernel's event chain.
 * A hostile backend (fixtures/plugins/persistence-hostile) tries each, and each is refused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openBackend } from '../index.ts';
import { verifyEventLog } from '../../../kernel/events/verify.ts';
import type { PersonaBackend } from '../backend.ts';
import { assertRejectsKernel, personaDir, sha256File } from './helpers.ts';

const FIXTURE_PLUGINS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'plugins');

async function hostile(dir: string, attack = ''): Promise<PersonaBackend> {
  fs.writeFileSync(path.join(dir, 'attack.txt'), attack);
  return openBackend(dir, 'hostile', { pluginsDir: FIXTURE_PLUGINS });
}

function setAttack(dir: string, attack: string): void {
  fs.writeFileSync(path.join(dir, 'attack.txt'), attack);
}

async function tryOp(b: PersonaBackend, call: Record<string, unknown>): Promise<{ ok?: unknown; error?: string }> {
  return (await b.callPlugin('tryOp', call)) as { ok?: unknown; error?: string };
}

function refusedWith(answer: { ok?: unknown; error?: string }, pattern: RegExp | string): void {
  assert.ok(answer.error !== undefined, `expected a refusal, got ${JSON.stringify(answer.ok)}`);
  if (typeof pattern === 'string') assert.ok(answer.error.includes(pattern), answer.error);
  else assert.match(answer.error, pattern);
}

/** Appends `n` events the honest way, then closes; returns the log's bytes' digest. */
async function seed(dir: string, n = 3): Promise<string> {
  const b = await hostile(dir);
  for (let i = 0; i < n; i++) await b.events.append('test.tick', { i });
  await b.close();
  return sha256File(path.join(dir, 'logs', 'events.jsonl'));
}

test('a backend runs in an isolate with no Deno permission and reaches only the storage bindings it declares', async () => {
  const dir = personaDir();
  const b = await hostile(dir);
  try {
    refusedWith(await tryOp(b, { deno: 'read' }), /NotCapable: Requires read access/);
    refusedWith(await tryOp(b, { deno: 'write' }), /NotCapable: Requires write access/);
    assert.equal(fs.existsSync('/tmp/rtc-hostile'), false);
    // A binding it does not declare: the kernel serves only what the manifest names.
    refusedWith(await tryOp(b, { op: 'storage.postgres.query', args: { sql: 'SELECT 1' } }), /NotCapable|no broker operation|storage\.postgres/);
    // A token the kernel never gave out names no persona.
    refusedWith(await tryOp(b, { op: 'storage.files.stat', args: { path: 'x' }, token: 'f'.repeat(32) }), /NotCapable: Requires a storage session/);
    // An op that is not a storage op is not reachable through the storage door.
    refusedWith(await tryOp(b, { op: 'fs.readTextFile', args: { path: '/etc/hostname' } }), /is not a storage binding/);
  } finally {
    await b.close();
  }
});

test('every storage path stays inside the persona folder, symbolic links included, and nothing is created outside', async () => {
  const dir = personaDir();
  const outside = path.join(path.dirname(dir), 'bob');
  fs.mkdirSync(outside);
  fs.symlinkSync(outside, path.join(dir, 'link'));
  const b = await hostile(dir);
  try {
    for (const bad of ['../bob/x.json', '/etc/passwd', 'link/x.json', '.']) {
      for (const [op, args] of [
        ['storage.files.append', { path: bad, data: 'x' }],
        ['storage.files.replace', { path: bad, data: 'x' }],
        ['storage.files.read', { path: bad }],
        ['storage.files.create', { path: bad, data: 'x' }],
        ['storage.sqlite.run', { db: bad, sql: 'CREATE TABLE t (a)' }],
        ['storage.sqlite.query', { db: bad, sql: 'SELECT 1' }],
      ] as const) {
        refusedWith(await tryOp(b, { op, args }), /RTC_ERR_PERSISTENCE_PATH_ESCAPE: persistence path .* (climbs out|is absolute|resolves through a symbolic link|climbs out)/);
      }
    }
    assert.deepEqual(fs.readdirSync(outside), [], 'nothing was created outside');
  } finally {
    await b.close();
  }
});

test('the kernel files (event log, trace, persistence.yaml, writer lock) are never written through the generic bindings', async () => {
  const dir = personaDir();
  const digest = await seed(dir);
  const b = await hostile(dir);
  try {
    for (const target of ['logs/events.jsonl', 'logs/other.jsonl', './logs//events.jsonl', 'trace/cycles.jsonl', 'persistence.yaml', 'writer.lock']) {
      for (const [op, args] of [
        ['storage.files.append', { path: target, data: '{"forged":true}\n' }],
        ['storage.files.replace', { path: target, data: '' }],
        ['storage.files.create', { path: target, data: '' }],
        ['storage.files.truncate', { path: target, size: 0 }],
        ['storage.files.remove', { path: target }],
      ] as const) {
        refusedWith(await tryOp(b, { op, args }), 'RTC_ERR_PERSISTENCE_BACKEND');
      }
    }
    // Appending to the log goes only through the events binding, with a batch the kernel handed over.
    refusedWith(await tryOp(b, { op: 'storage.files.events.append', args: { path: 'logs/events.jsonl', batch: 1 }, mode: 'async' }), /RTC_ERR_PERSISTENCE_BACKEND: (batch 1 was never handed over|the events of persona alice were not opened)/);
    refusedWith(await tryOp(b, { op: 'storage.files.events.open', args: { path: 'brain/mine.jsonl' } }), 'is not an event placement');
  } finally {
    await b.close();
  }
  assert.equal(sha256File(path.join(dir, 'logs', 'events.jsonl')), digest, 'the log is byte for byte as the kernel left it');
});

test('a backend that forges, reorders, duplicates, misplaces or drops a batch is refused, and the chain stays the kernel\'s', async () => {
  for (const attack of ['ack-without-storing', 'store-next-batch', 'store-twice', 'store-elsewhere', 'forge-line']) {
    const dir = personaDir();
    await seed(dir);
    const b = await hostile(dir);
    await b.events.open();
    setAttack(dir, attack);
    const expected =
      attack === 'ack-without-storing'
        ? /RTC_ERR_PERSISTENCE_BACKEND: .*plugin persistence\.hostile answered for events 5\.\.5 of persona alice without storing them/
        : attack === 'store-next-batch'
          ? /RTC_ERR_PERSISTENCE_BACKEND: .*batch \d+ was never handed over/
          : attack === 'store-twice'
            ? /RTC_ERR_PERSISTENCE_BACKEND: .*batch \d+ of persona alice is already stored/
            : attack === 'store-elsewhere'
              ? /RTC_ERR_PERSISTENCE_BACKEND: .*"brain\/events\.jsonl" is not an event placement/
              : /RTC_ERR_PERSISTENCE_BACKEND: .*logs\/events\.jsonl: cannot append: the kernel writes this file itself/;
    const appended = b.events.append('test.after', { attack });
    if (attack === 'store-twice') {
      // The first store went through: the event is durable and acknowledged; the second was refused.
      await appended;
    } else {
      await assert.rejects(appended, (e: Error & { code?: string }) => {
        assert.match(`${e.code}: ${e.message}`, expected, `${attack}: ${e.message}`);
        return true;
      });
    }
    await b.close().catch(() => undefined);
    const report = verifyEventLog(path.join(dir, 'logs', 'events.jsonl'));
    assert.equal(report.ok, true, `${attack}: ${JSON.stringify(report.problems)}`);
    const types = [...fs.readFileSync(path.join(dir, 'logs', 'events.jsonl'), 'utf8').trim().split('\n')].map((l) => JSON.parse(l).type as string);
    assert.ok(!types.includes('forged'), attack);
    assert.deepEqual(types.slice(0, 4), ['test.tick', 'test.tick', 'test.tick', 'reboot'], attack);
  }
});

test('a backend cannot point the kernel at events it wrote itself, or hide where they are', async () => {
  const dir = personaDir();
  await seed(dir);
  const b = await hostile(dir, 'read-forged-file');
  try {
    assert.throws(() => [...b.events.read()], (e: Error & { code?: string }) => e.code === 'RTC_ERR_PERSISTENCE_BACKEND' && e.message.includes('"brain/fake.jsonl" is not an event placement'));
    setAttack(dir, 'read-nothing');
    assert.throws(() => b.events.verify(), (e: Error & { code?: string }) => e.code === 'RTC_ERR_PERSISTENCE_BACKEND' && e.message.includes('did not name where the events of persona alice are'));
    setAttack(dir, '');
    assert.deepEqual([...b.events.read()].map((e) => e.seq), [1, 2, 3]);
  } finally {
    await b.close();
  }
});

// sqlite: what a backend's statements can reach (only its own file) is sqlite-reach.test.ts.

test('how plugins are held to the backend contract: kind, declared bindings, exports, in-process sandbox', async () => {
  const dir = personaDir();
  const root = path.join(path.dirname(personaDir()), 'plugins');
  const write = (manifest: Record<string, string>) => {
    const folder = path.join(root, 'persistence-probe');
    fs.mkdirSync(folder, { recursive: true });
    const base = fs.readFileSync(path.join(FIXTURE_PLUGINS, 'persistence-hostile', 'plugin.yaml'), 'utf8').replace('id: persistence.hostile', 'id: persistence.probe');
    let text = base;
    for (const [k, v] of Object.entries(manifest)) text = text.replace(new RegExp(`^${k}: .*$`, 'm'), `${k}: ${v}`);
    fs.writeFileSync(path.join(folder, 'plugin.yaml'), text);
    fs.copyFileSync(path.join(FIXTURE_PLUGINS, 'persistence-hostile', 'mod.ts'), path.join(folder, 'mod.ts'));
    return root;
  };
  await assertRejectsKernel(() => openBackend(dir, 'probe', { pluginsDir: write({ bindings: '[storage.files, ledger]' }) }), 'RTC_ERR_PERSISTENCE_BINDING', 'bindings: a persistence backend may declare only storage.files, storage.sqlite, storage.postgres, not ledger');
  await assertRejectsKernel(() => openBackend(dir, 'probe', { pluginsDir: write({ bindings: '[storage.files]', kind: 'tool' }) }), 'RTC_ERR_PERSISTENCE_PLUGIN', 'is a tool plugin, not a persistence backend');
  await assertRejectsKernel(() => openBackend(dir, 'probe', { pluginsDir: write({ kind: 'persistence', exports: '[describe, open]' }) }), 'RTC_ERR_PERSISTENCE_PLUGIN', 'exports: a persistence backend must export close, openEvents');
  await assertRejectsKernel(
    () => openBackend(dir, 'probe', { pluginsDir: write({ exports: fs.readFileSync(path.join(FIXTURE_PLUGINS, 'persistence-hostile', 'plugin.yaml'), 'utf8').match(/^exports: (.*)$/m)![1]!, sandbox: 'default' }) }),
    'RTC_ERR_PERSISTENCE_PLUGIN',
    'sandbox: a persistence backend runs in-process',
  );
  // The shipped sqlite backend holds itself to the same rule: without storage.sqlite it cannot reach its database.
  const copy = path.join(root, 'persistence-sqlite');
  fs.cpSync(path.join(FIXTURE_PLUGINS, '..', '..', '..', '..', '..', 'plugins', 'persistence-sqlite'), copy, { recursive: true });
  // its shared code stays the checkout's (a link to it): a copy outside would be another tree, which its imports may not reach
  fs.symlinkSync(path.resolve(FIXTURE_PLUGINS, '..', '..', '..', '..', '..', 'plugins', 'persistence-shared'), path.join(root, 'persistence-shared'));
  const manifest = path.join(copy, 'plugin.yaml');
  fs.writeFileSync(manifest, fs.readFileSync(manifest, 'utf8').replace('bindings: [storage.sqlite]', 'bindings: [storage.files]'));
  await assertRejectsKernel(() => openBackend(dir, 'sqlite', { pluginsDir: root }), 'RTC_ERR_PERSISTENCE_PLUGIN', /NotCapable: Requires the "storage\.sqlite" binding: plugin persistence\.sqlite does not declare it/);
});
