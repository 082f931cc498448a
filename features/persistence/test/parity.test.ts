/**
 * Backend parity: the same operations on jsonl-fs and sqlite give byte-identical event JSON
 * and the same hashes (including reboot events and redaction), and memory and proposal
 * records read back exactly as written. Both keep their state where the README says.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { openBackend, eventLine, type PersistenceBackend } from '../index.ts';
import { pinnedClock, personaDir, SAMPLE_EVENTS, sha256File } from './helpers.ts';

const BACKENDS = ['jsonl-fs', 'sqlite'] as const;

async function exercise(backend: PersistenceBackend): Promise<{ seq: number; hash: string }[]> {
  const acks: { seq: number; hash: string }[] = [];
  // Appended together: one group commit; acknowledged in call order.
  acks.push(...(await Promise.all(SAMPLE_EVENTS.map(([type, payload]) => backend.events.append(type, payload)))));
  for (let i = 0; i < 20; i++) acks.push(await backend.events.append('test.tick', { i, output_tokens: i * 10 }));
  backend.memory.writeBrain('{\n  "format": "runtimectl.brain/1",\n  "cycles": 2\n}\n');
  backend.memory.writeBrain('{\n  "format": "runtimectl.brain/1",\n  "cycles": 3\n}\n');
  backend.memory.appendLongTerm('# Long-term memory\n');
  backend.memory.appendLongTerm('\n## promoted\nA fact.\n');
  backend.proposals.append('{"v":1,"seq":1,"type":"proposal_submitted","payload":{"id":"P-alice-1"}}');
  backend.proposals.append(['{"v":1,"seq":2,"type":"proposal_state","payload":{"to":"accepted"}}', '{"b":2, "a":1}']);
  return acks;
}

test('both backends write byte-identical event lines and hashes for the same appends, across a reboot', async () => {
  const lines: Record<string, string> = {};
  const acks: Record<string, unknown> = {};
  for (const name of BACKENDS) {
    const dir = personaDir();
    const now = pinnedClock();
    const first = await openBackend(dir, name, { now });
    const startup = await first.events.open();
    assert.equal(startup.rebooted, false);
    acks[name] = await exercise(first);
    await first.close();
    const second = await openBackend(dir, name, { now });
    assert.equal((await second.events.open()).rebooted, true, `${name} writes reboot when events were there`);
    await second.events.append('test.after', { ok: true });
    await second.close();

    const reader = await openBackend(dir, name, { readonly: true });
    const events = [...reader.events.read()];
    lines[name] = events.map(eventLine).join('');
    const report = reader.events.verify();
    assert.ok(report.ok, JSON.stringify(report.problems));
    assert.equal(report.events, SAMPLE_EVENTS.length + 20 + 2);
    assert.equal(events.at(-2)?.type, 'reboot');
    assert.deepEqual(events.at(-2)?.payload, { previous_seq: SAMPLE_EVENTS.length + 20, previous_hash: events.at(-3)?.hash });
    if (name === 'jsonl-fs') {
      assert.equal(fs.readFileSync(path.join(dir, 'logs/events.jsonl'), 'utf8'), lines[name], 'the JSONL file is exactly these lines');
    } else {
      assert.ok(fs.existsSync(path.join(dir, 'persistence.db')));
      assert.ok(!fs.existsSync(path.join(dir, 'logs/events.jsonl')), 'the sqlite backend writes no JSONL log');
    }
    await reader.close();
  }
  assert.equal(lines['sqlite'], lines['jsonl-fs']);
  assert.deepEqual(acks['sqlite'], acks['jsonl-fs']);
  assert.ok(!lines['sqlite']!.includes('sk-live-abcdef') && !lines['sqlite']!.includes('sk-secret-value'), 'secrets are redacted before hashing');
  assert.ok(lines['sqlite']!.includes('"total_tokens":1500'), 'usage numbers are kept');
});

test('memory and proposal records round-trip byte for byte on both backends', async () => {
  const seen: Record<string, unknown> = {};
  for (const name of BACKENDS) {
    const dir = personaDir();
    const backend = await openBackend(dir, name, { now: pinnedClock() });
    assert.ok(backend.memory.isEmpty() && backend.proposals.isEmpty() && backend.events.isEmpty());
    assert.equal(backend.memory.readBrain(), undefined);
    assert.equal(backend.memory.readLongTerm(), '');
    await exercise(backend);
    await backend.close();
    const reader = await openBackend(dir, name, { readonly: true });
    seen[name] = { brain: reader.memory.readBrain(), longTerm: reader.memory.readLongTerm(), lines: reader.proposals.lines(), records: reader.proposals.read() };
    assert.equal(reader.memory.readBrain(), '{\n  "format": "runtimectl.brain/1",\n  "cycles": 3\n}\n');
    assert.equal(reader.memory.readLongTerm(), '# Long-term memory\n\n## promoted\nA fact.\n');
    assert.deepEqual(reader.proposals.lines()[2], '{"b":2, "a":1}', 'raw lines are kept as written');
    assert.ok(!reader.memory.isEmpty() && !reader.proposals.isEmpty() && !reader.events.isEmpty());
    if (name === 'jsonl-fs') {
      assert.equal(fs.readFileSync(path.join(dir, 'brain/memory/brain.json'), 'utf8'), reader.memory.readBrain());
      assert.equal(fs.readFileSync(path.join(dir, 'review/proposals.jsonl'), 'utf8'), `${reader.proposals.lines().join('\n')}\n`);
    }
    await reader.close();
  }
  assert.deepEqual(seen['sqlite'], seen['jsonl-fs']);
});

test('bad memory and proposal input is refused on both backends, and a read-only backend writes nothing', async () => {
  for (const name of BACKENDS) {
    const dir = personaDir();
    const backend = await openBackend(dir, name);
    assert.throws(() => backend.memory.writeBrain('[1, 2]'), /RTC_ERR_PERSISTENCE_INPUT|one JSON object/);
    assert.throws(() => backend.memory.writeBrain('{'), /not valid JSON/);
    assert.throws(() => backend.proposals.append('{"a":1}\n{"b":2}'), /must be one line/);
    assert.throws(() => backend.proposals.append('nope'), /proposal record 1: not valid JSON/);
    await assert.rejects(backend.events.append('Bad Type', {}), /lower-case name/);
    await backend.close();
    // sqlite's read-only handles may add the WAL sidecars (-wal, -shm) of a WAL database; nothing else.
    const listing = () => (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) => !/-(wal|shm)$/.test(f)).sort();
    const before = listing();
    const db = path.join(dir, 'persistence.db');
    const dbBefore = fs.existsSync(db) ? sha256File(db) : undefined;
    const reader = await openBackend(dir, name, { readonly: true });
    await assert.rejects(reader.events.append('test.x', {}), /read-only/);
    assert.throws(() => reader.memory.writeBrain('{}'), /read-only/);
    assert.throws(() => reader.proposals.append('{}'), /read-only/);
    assert.deepEqual([...reader.events.read()], []);
    await reader.close();
    assert.deepEqual(listing(), before, `${name}: a read-only backend creates nothing`);
    assert.equal(fs.existsSync(db) ? sha256File(db) : undefined, dbBefore);
  }
});

test('the ledger goes through features/ledger in the backend\'s own format', async () => {
  for (const name of BACKENDS) {
    const dir = personaDir();
    const backend = await openBackend(dir, name);
    assert.equal(backend.ledger.format, name);
    assert.equal(backend.ledger.exportDoc(), undefined, 'no ledger yet');
    const { store } = backend.ledger.open();
    store.addTask({ title: 'first', by: 'tester', now: 1 });
    store.close();
    assert.equal(backend.ledger.exportDoc()?.tasks.length, 1);
    assert.deepEqual(backend.ledger.check(), []);
    assert.equal(backend.ledger.file(), fs.realpathSync(path.join(dir, 'orchestra/orchestra.db')));
    await backend.close();
    const other = await openBackend(dir, name === 'sqlite' ? 'jsonl-fs' : 'sqlite');
    assert.throws(() => other.ledger.open(), /RTC_ERR_LEDGER_BACKEND_MISMATCH|is a .* ledger but/);
    await other.close();
  }
});
