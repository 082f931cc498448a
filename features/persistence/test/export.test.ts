/**
 * Export between backends: jsonl-fs → sqlite → jsonl-fs gives back byte-identical event
 * lines (and memory and proposal files), the ledger survives both moves, a non-empty target
 * or a damaged source is refused with nothing written, and `runtimectl persistence export`
 * does the same from the command line within one persona (the ledger converted in place).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { main } from '../../../cli/main.ts';
import type { CliIo } from '../../command/command.ts';
import { copyPersistence, openBackend, readPersistenceConfig } from '../index.ts';
import { detectLedgerFormat } from '../../ledger/format.ts';
import { populate } from '../../ledger/test/helpers.ts';
import { assertRejectsKernel, personaDir, pinnedClock, SAMPLE_EVENTS } from './helpers.ts';
import { ledgerOf } from '../../ledger/access.ts';
import { COPY_PARTS } from './copy-parts.ts';

async function populated(dir: string, name = 'jsonl-fs'): Promise<void> {
  const backend = await openBackend(dir, name, { now: pinnedClock() });
  await Promise.all(SAMPLE_EVENTS.map(([type, payload]) => backend.events.append(type, payload)));
  for (let i = 0; i < 30; i++) await backend.events.append('test.tick', { i, usage: { input_tokens: i } });
  backend.memory.writeBrain('{"format":"runtimectl.brain/1","cycles":7}\n');
  backend.memory.appendLongTerm('# Long-term memory\n\nA fact.\n');
  backend.proposals.append(['{"v":1,"seq":1,"type":"proposal_submitted","payload":{}}', '{"v":1,"seq":2,"type":"proposal_state","payload":{}}']);
  const { store } = ledgerOf(backend).open();
  populate(store);
  store.close();
  await backend.close();
}

const FILES = ['logs/events.jsonl', 'brain/memory/brain.json', 'brain/memory/long-term.md', 'review/proposals.jsonl'];

async function copy(fromDir: string, fromName: string, toDir: string, toName: string) {
  const from = await openBackend(fromDir, fromName, { readonly: true });
  const to = await openBackend(toDir, toName);
  try {
    return await copyPersistence(from, to, COPY_PARTS);
  } finally {
    await to.close();
    await from.close();
  }
}

async function ledgerDoc(dir: string, name: string) {
  const backend = await openBackend(dir, name, { readonly: true });
  try {
    return ledgerOf(backend).exportDoc();
  } finally {
    await backend.close();
  }
}

test('jsonl-fs → sqlite → jsonl-fs round-trips events byte for byte, memory, proposals and the ledger', async () => {
  const a = personaDir();
  const b = personaDir();
  const c = personaDir();
  await populated(a);
  const first = await copy(a, 'jsonl-fs', b, 'sqlite');
  assert.equal(first.events.copied, SAMPLE_EVENTS.length + 30);
  assert.deepEqual(first.ledger, { status: 'copied', tasks: 4 });
  assert.deepEqual(first.proposals, { copied: 2 });
  assert.ok(!fs.existsSync(path.join(b, 'logs/events.jsonl')));
  const back = await copy(b, 'sqlite', c, 'jsonl-fs');
  assert.equal(back.events.lastHash, first.events.lastHash);
  for (const file of FILES) assert.equal(fs.readFileSync(path.join(c, file), 'utf8'), fs.readFileSync(path.join(a, file), 'utf8'), file);
  assert.deepEqual(await ledgerDoc(c, 'jsonl-fs'), await ledgerDoc(a, 'jsonl-fs'));
  assert.deepEqual(await ledgerDoc(b, 'sqlite'), await ledgerDoc(a, 'jsonl-fs'));
  // The copy carries on from where the original left off: the next event chains to the copied ones.
  const cont = await openBackend(b, 'sqlite');
  await cont.events.append('test.after', {});
  assert.ok(cont.events.verify().ok);
  await cont.close();
});

test('a non-empty target, a damaged source or a copy into itself is refused, and nothing is written', async () => {
  const a = personaDir();
  await populated(a);
  const b = personaDir();
  const seed = await openBackend(b, 'sqlite');
  seed.memory.writeBrain('{}');
  await seed.close();
  const from = await openBackend(a, 'jsonl-fs', { readonly: true });
  const busy = await openBackend(b, 'sqlite');
  await assertRejectsKernel(() => copyPersistence(from, busy, COPY_PARTS), 'RTC_ERR_PERSISTENCE_EXPORT', 'not empty (memory)', 'nothing was written');
  assert.ok(busy.events.isEmpty());
  await busy.close();
  const self = await openBackend(a, 'jsonl-fs');
  await assertRejectsKernel(() => copyPersistence(from, self, COPY_PARTS), 'RTC_ERR_PERSISTENCE_EXPORT', 'into itself');
  await self.close();
  await from.close();

  // An edited event in the source: refused before the target is created.
  const log = path.join(a, 'logs/events.jsonl');
  fs.writeFileSync(log, fs.readFileSync(log, 'utf8').replace('"i":3,', '"i":4,'));
  const damaged = await openBackend(a, 'jsonl-fs', { readonly: true });
  const c = personaDir();
  const target = await openBackend(c, 'sqlite');
  await assertRejectsKernel(() => copyPersistence(damaged, target, COPY_PARTS), 'RTC_ERR_PERSISTENCE_EXPORT', 'source events are damaged at', 'events.jsonl:', 'nothing was exported');
  await target.close();
  await damaged.close();
  assert.deepEqual(fs.readdirSync(c), []);
});

async function cli(args: string[], cwd: string): Promise<{ status: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), cwd, env: {} };
  const status = await main(args, io);
  return { status, stdout, stderr };
}

test('runtimectl persistence export within one persona, there and back, with the ledger converted in place', async () => {
  const dir = personaDir();
  const state = path.dirname(dir);
  await populated(dir);
  const originals = new Map(FILES.map((f) => [f, fs.readFileSync(path.join(dir, f))]));
  const doc = await ledgerDoc(dir, 'jsonl-fs');

  const out = await cli(['persistence', 'export', '--persona', 'alice', '--to', 'sqlite', '--state-dir', state, '--json'], state);
  assert.equal(out.status, 0, out.stderr);
  const report = JSON.parse(out.stdout) as { ok: boolean; from: string; switched: boolean; ledger: { status: string; savedAs: string } };
  assert.deepEqual([report.ok, report.from, report.switched, report.ledger.status, report.ledger.savedAs], [true, 'jsonl-fs', false, 'converted', 'orchestra.db.jsonl-fs']);
  assert.equal(readPersistenceConfig(dir).backend, 'jsonl-fs', 'export alone does not switch');
  assert.equal(detectLedgerFormat(path.join(dir, 'orchestra/orchestra.db')), 'sqlite');
  assert.equal(detectLedgerFormat(path.join(dir, 'orchestra/orchestra.db.jsonl-fs')), 'jsonl-fs', 'the old ledger is kept beside it');
  assert.deepEqual(await ledgerDoc(dir, 'sqlite'), doc);

  const again = await cli(['persistence', 'export', '--persona', 'alice', '--to', 'sqlite', '--state-dir', state], state);
  assert.equal(again.status, 1);
  assert.match(again.stderr, /^runtimectl: RTC_ERR_PERSISTENCE_EXPORT: the sqlite backend of persona alice is not empty \(events \(logs\/events\.db\), memory, proposals\)/);
  assert.equal(again.stderr.trim().split('\n').length, 1);

  // Switching: the operator clears the old backend's files (kept aside here), and exports back with --switch.
  const aside = fs.mkdtempSync(path.join(state, '..', 'aside-'));
  for (const f of FILES) fs.renameSync(path.join(dir, f), path.join(aside, path.basename(f)));
  fs.writeFileSync(path.join(dir, 'persistence.yaml'), 'schema_version: 1\nbackend: sqlite\n');
  const status = await cli(['persistence', 'status', '--state-dir', state, '--json'], state);
  const holding = JSON.parse(status.stdout) as { personas: { configured: string; backends: { backend: string; events: number }[] }[] };
  assert.equal(holding.personas[0]?.configured, 'sqlite');
  assert.deepEqual(holding.personas[0]?.backends.map((b) => [b.backend, b.events]), [['jsonl-fs', 0], ['sqlite', SAMPLE_EVENTS.length + 30]]);

  const home = await cli(['persistence', 'export', '--persona', 'alice', '--to', 'jsonl-fs', '--state-dir', state, '--switch'], state);
  assert.equal(home.status, 0, home.stderr);
  assert.match(home.stdout, /exported persona alice from sqlite to jsonl-fs/);
  assert.match(home.stdout, /ledger converted in place \(4 task\(s\); old file kept as orchestra\.db\.sqlite\)/);
  assert.equal(readPersistenceConfig(dir).backend, 'jsonl-fs');
  for (const [f, bytes] of originals) assert.ok(fs.readFileSync(path.join(dir, f)).equals(bytes), `${f} is byte-identical after the round trip`);
  assert.deepEqual(await ledgerDoc(dir, 'jsonl-fs'), doc);

  const bad = await cli(['persistence', 'export', '--persona', 'alice', '--to', 'Oracle', '--state-dir', state], state);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /RTC_ERR_CLI_USAGE: --to Oracle: a backend name/);
});
