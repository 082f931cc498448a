/**
 * The suite every persistence backend passes (jsonl-fs and sqlite in parity.test.ts, postgres
 * in postgres.test.ts against a real server): the same appends give the same event lines and
 * hashes as the JSONL log (across a reboot, with redaction), memory and proposal records read
 * back byte for byte, bad input is refused, a read-only backend writes nothing, the ledger
 * lives in the backend's own format, and an export into jsonl-fs and back is byte-identical.
 */
import { test } from 'node:test';
import path from 'node:path';
import assert from 'node:assert/strict';
import { copyPersistence, eventLine, openBackend, type OpenBackendOptions, type PersistenceBackend } from '../index.ts';
import { pinnedClock, personaDir, SAMPLE_EVENTS } from './helpers.ts';
import { ledgerOf } from '../../ledger/access.ts';
import { COPY_PARTS } from './copy-parts.ts';

export interface BackendUnderTest {
  name: string;
  /** options every open of this backend needs (a DSN) */
  options?: () => OpenBackendOptions;
  /** a fingerprint of everything the backend stores for the persona (to see a reader writes nothing) */
  fingerprint(dir: string): unknown;
  /** a shared store (postgres) keeps every persona in one place: each test gets a persona of its own */
  shared?: boolean;
}

let personas = 0;

export async function exercise(backend: PersistenceBackend): Promise<{ seq: number; hash: string }[]> {
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

/** The event lines and acks `exercise` and a reboot give on a backend (the reference: jsonl-fs). */
export async function chainOf(name: string, extra: OpenBackendOptions = {}, persona = 'alice'): Promise<{ lines: string; acks: unknown; dir: string }> {
  const dir = personaDir(persona);
  const now = pinnedClock();
  const first = await openBackend(dir, name, { ...extra, now });
  assert.equal((await first.events.open()).rebooted, false);
  const acks = await exercise(first);
  await first.close();
  const second = await openBackend(dir, name, { ...extra, now });
  assert.equal((await second.events.open()).rebooted, true, `${name} writes reboot when events were there`);
  await second.events.append('test.after', { ok: true });
  await second.close();
  const reader = await openBackend(dir, name, { ...extra, readonly: true });
  try {
    const events = [...reader.events.read()];
    const report = reader.events.verify();
    assert.ok(report.ok, JSON.stringify(report.problems));
    assert.equal(report.events, SAMPLE_EVENTS.length + 20 + 2);
    assert.equal(events.at(-2)?.type, 'reboot');
    assert.deepEqual(events.at(-2)?.payload, { previous_seq: SAMPLE_EVENTS.length + 20, previous_hash: events.at(-3)?.hash });
    return { lines: events.map(eventLine).join(''), acks, dir };
  } finally {
    await reader.close();
  }
}

export function backendSuite(b: BackendUnderTest): void {
  const opts = (extra: OpenBackendOptions = {}): OpenBackendOptions => ({ ...(b.options?.() ?? {}), ...extra });
  const open = (dir: string, extra: OpenBackendOptions = {}) => openBackend(dir, b.name, opts(extra));
  /** A persona folder; on a shared store, under a persona id no other test uses. */
  const persona = () => (b.shared ? personaDir(`suite-${process.pid}-${++personas}`) : personaDir());

  test(`${b.name}: the same appends give the JSONL log's lines and hashes, across a reboot, secrets redacted`, async () => {
    const reference = await chainOf('jsonl-fs');
    const mine = await chainOf(b.name, b.options?.() ?? {}, b.shared ? `suite-${process.pid}-${++personas}` : 'alice');
    assert.equal(mine.lines, reference.lines);
    assert.deepEqual(mine.acks, reference.acks);
    assert.ok(!mine.lines.includes('sk-live-abcdef') && !mine.lines.includes('sk-secret-value'), 'secrets are redacted before hashing');
    assert.ok(mine.lines.includes('"total_tokens":1500'), 'usage numbers are kept');
  });

  test(`${b.name}: memory and proposal records round-trip byte for byte`, async () => {
    const dir = persona();
    const backend = await open(dir, { now: pinnedClock() });
    assert.ok(backend.memory.isEmpty() && backend.proposals.isEmpty() && backend.events.isEmpty());
    assert.equal(backend.memory.readBrain(), undefined);
    assert.equal(backend.memory.readLongTerm(), '');
    await exercise(backend);
    await backend.close();
    const reader = await open(dir, { readonly: true });
    try {
      assert.equal(reader.memory.readBrain(), '{\n  "format": "runtimectl.brain/1",\n  "cycles": 3\n}\n');
      assert.equal(reader.memory.readLongTerm(), '# Long-term memory\n\n## promoted\nA fact.\n');
      assert.deepEqual(reader.proposals.lines(), ['{"v":1,"seq":1,"type":"proposal_submitted","payload":{"id":"P-alice-1"}}', '{"v":1,"seq":2,"type":"proposal_state","payload":{"to":"accepted"}}', '{"b":2, "a":1}']);
      assert.deepEqual(reader.proposals.read()[2], { b: 2, a: 1 });
      assert.ok(!reader.memory.isEmpty() && !reader.proposals.isEmpty() && !reader.events.isEmpty());
    } finally {
      await reader.close();
    }
  });

  test(`${b.name}: bad memory and proposal input is refused, and a read-only backend writes nothing`, async () => {
    const dir = persona();
    const backend = await open(dir);
    assert.throws(() => backend.memory.writeBrain('[1, 2]'), /RTC_ERR_PERSISTENCE_INPUT|one JSON object/);
    assert.throws(() => backend.memory.writeBrain('{'), /not valid JSON/);
    assert.throws(() => backend.proposals.append('{"a":1}\n{"b":2}'), /must be one line/);
    assert.throws(() => backend.proposals.append('nope'), /proposal record 1: not valid JSON/);
    await assert.rejects(backend.events.append('Bad Type', {}), /lower-case name/);
    await backend.events.append('test.one', { n: 1 });
    await backend.close();
    const before = b.fingerprint(dir);
    const reader = await open(dir, { readonly: true });
    const readonly = { code: 'RTC_ERR_PERSISTENCE_READONLY', message: /read-only/ };
    await assert.rejects(reader.events.append('test.x', {}), readonly);
    assert.throws(() => reader.memory.writeBrain('{}'), readonly);
    assert.throws(() => reader.proposals.append('{}'), readonly);
    assert.throws(() => ledgerOf(reader).open(), readonly);
    assert.deepEqual([...reader.events.read()].map((e) => e.type), ['test.one']);
    await reader.close();
    assert.deepEqual(b.fingerprint(dir), before, `${b.name}: a read-only backend creates and changes nothing`);
  });

  test(`${b.name}: the ledger lives in the backend, in its own format, through the ledger plugin`, async () => {
    const dir = persona();
    const backend = await open(dir);
    assert.equal(ledgerOf(backend).format, b.name);
    assert.equal(ledgerOf(backend).exportDoc(), undefined, 'no ledger yet');
    const opened = ledgerOf(backend).open();
    assert.equal(opened.bootstrap?.status, 'created');
    const task = opened.store.addTask({ title: 'first', by: 'tester', now: 1 });
    opened.store.moveTask(task.id, 'ready', { by: 'tester', now: 2 });
    assert.throws(() => opened.store.moveTask(task.id, 'accepted', { by: 'tester', now: 3 }), (e: Error & { code?: string }) => e.code === 'RTC_ERR_LEDGER_TRANSITION' && /cannot move to "accepted"/.test(e.message));
    opened.store.acquireLease('gpu', 'worker', 60_000, 4);
    opened.store.close();
    const again = ledgerOf(backend).open();
    assert.equal(again.bootstrap?.status, 'existing');
    assert.deepEqual(again.store.listTasks().map((t) => [t.id, t.state]), [[task.id, 'ready']]);
    again.store.close();
    assert.equal(ledgerOf(backend).exportDoc()?.tasks.length, 1);
    assert.deepEqual(ledgerOf(backend).check(), []);
    await backend.close();
  });

  test(`${b.name}: an export into jsonl-fs and back is byte-identical, with memory, proposals and the ledger`, async () => {
    const dir = persona();
    const backend = await open(dir, { now: pinnedClock() });
    await exercise(backend);
    const { store } = ledgerOf(backend).open();
    store.addTask({ title: 'carried over', by: 'tester', now: 1 });
    store.close();
    const lines = [...backend.events.read()].map(eventLine).join('');
    const doc = ledgerOf(backend).exportDoc();
    await backend.close();

    // Into a fresh persona folder on jsonl-fs (another state dir, the same persona), then back into a fresh one on this backend.
    const viaDir = personaDir(path.basename(dir));
    const source = await open(dir, { readonly: true });
    const files = await openBackend(viaDir, 'jsonl-fs');
    await copyPersistence(source, files, COPY_PARTS);
    await source.close();
    await files.close();
    const backDir = personaDir(path.basename(dir));
    const from = await openBackend(viaDir, 'jsonl-fs', { readonly: true });
    // A shared store still holds this persona (it is one place): there the way back is postgres.test.ts's round trip.
    const target = b.shared ? undefined : await open(backDir);
    if (target) {
      await copyPersistence(from, target, COPY_PARTS);
      assert.equal([...target.events.read()].map(eventLine).join(''), lines);
      assert.deepEqual(ledgerOf(target).exportDoc(), doc);
      assert.deepEqual(target.proposals.lines(), from.proposals.lines());
      await target.close();
    }
    assert.equal([...from.events.read()].map(eventLine).join(''), lines);
    assert.deepEqual(ledgerOf(from).exportDoc(), doc);
    await from.close();
  });
}
