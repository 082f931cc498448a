/**
 * The event log: append, group commit, reopen with a `reboot` event, a torn tail saved and
 * cut off with a `log_repaired` event, and refusal (file left byte-for-byte as it was) of a
 * corrupt middle line, a broken chain, a seq gap and a newer schema version.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isKernelError } from '../../kernel/errors.ts';
import {
  computeEventHash,
  EventEnvelopeSchema,
  eventLogPath,
  GENESIS_HASH,
  openEventLog,
  readEvents,
  verifyEventLog,
  type EventEnvelope,
} from '../../kernel/events/index.ts';

function tempLog(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rtc-'));
  return eventLogPath(dir, 'persona-a');
}

function lines(file: string): EventEnvelope[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as EventEnvelope);
}

/** Writes `count` events through a real log and closes it. */
async function writeEvents(file: string, count: number): Promise<void> {
  const log = await openEventLog(file);
  for (let i = 0; i < count; i++) await log.append('test.tick', { i });
  await log.close();
}

async function assertRefused(file: string, code: string, pattern: RegExp): Promise<void> {
  const before = fs.readFileSync(file);
  const dirBefore = fs.readdirSync(path.dirname(file)).sort();
  await assert.rejects(openEventLog(file), (error: unknown) => {
    assert.ok(isKernelError(error), String(error));
    assert.equal(error.code, code);
    assert.match(error.message, pattern);
    assert.ok(!error.message.includes('\n'), 'one line');
    assert.ok(error.message.startsWith(file), 'names the file first');
    return true;
  });
  assert.ok(fs.readFileSync(file).equals(before), 'the file is byte-for-byte unchanged');
  assert.deepEqual(fs.readdirSync(path.dirname(file)).sort(), dirBefore, 'no file was added beside it');
}

test('a new log gets contiguous seqs, a genesis prev, a hash chain and redacted payloads', async () => {
  const file = tempLog();
  const log = await openEventLog(file);
  const a = await log.append('loop.cycle', { phase: 'plan', api_key: 'sk-live-123456789012345678', usage: { input_tokens: 10 } });
  const b = await log.append('loop.cycle', { phase: 'execute', headers: [{ authorization: 'Bearer abcdefgh12345' }] });
  await log.close();
  assert.deepEqual([a.seq, b.seq], [1, 2]);

  const events = lines(file);
  assert.equal(events.length, 2, 'no reboot event on a first open');
  assert.equal(events[0]!.prev, GENESIS_HASH);
  assert.equal(events[1]!.prev, events[0]!.hash);
  assert.equal(events[0]!.hash, a.hash);
  assert.equal(events[1]!.hash, b.hash);
  for (const event of events) {
    assert.ok(EventEnvelopeSchema.safeParse(event).success);
    assert.equal(computeEventHash(event), event.hash);
  }
  assert.deepEqual(events[0]!.payload, { phase: 'plan', api_key: '[REDACTED]', usage: { input_tokens: 10 } });
  assert.deepEqual(events[1]!.payload, { phase: 'execute', headers: [{ authorization: '[REDACTED]' }] });
  assert.ok(!fs.readFileSync(file, 'utf8').includes('sk-live'), 'the secret never reaches the file');
  assert.deepEqual(Object.keys(events[0]!), ['v', 'seq', 'type', 'payload', 'prev', 'hash', 'at']);
});

test('the hash covers {v, seq, type, payload, prev} only: the same events at other times hash the same', async () => {
  const hashesAt = async (iso: string) => {
    const file = tempLog();
    const log = await openEventLog(file, { now: () => new Date(iso) });
    const results = [await log.append('a.b', { x: 1, nested: { z: [1, 2], y: 'q' } }), await log.append('a.c', {})];
    await log.close();
    assert.ok(lines(file).every((e) => e.at === iso));
    return results.map((r) => r.hash);
  };
  assert.deepEqual(await hashesAt('2020-01-01T00:00:00.000Z'), await hashesAt('2031-06-15T12:34:56.789Z'));
});

test('appends in the same tick share one write and one fsync, and resolve in seq order', async () => {
  const file = tempLog();
  const log = await openEventLog(file);
  const order: number[] = [];
  const all = Array.from({ length: 200 }, (_, i) => log.append('test.burst', { i }).then((r) => order.push(r.seq)));
  await Promise.all(all);
  assert.equal(log.stats.batches, 1);
  assert.equal(log.stats.events, 200);
  assert.deepEqual(order, Array.from({ length: 200 }, (_, i) => i + 1));
  await log.close();
  assert.equal(verifyEventLog(file).events, 200);
});

test('reopening appends a reboot event naming the previous last seq and hash', async () => {
  const file = tempLog();
  await writeEvents(file, 3);
  const before = lines(file);
  const log = await openEventLog(file);
  assert.equal(log.lastSeq, 4);
  assert.deepEqual(log.startup, { rebooted: true });
  await log.append('test.after', {});
  await log.close();
  const after = lines(file);
  assert.equal(after.length, 5);
  const reboot = after[3]!;
  assert.equal(reboot.type, 'reboot');
  assert.deepEqual(reboot.payload, { previous_seq: 3, previous_hash: before[2]!.hash });
  assert.equal(reboot.prev, before[2]!.hash);
  // No process-bound entropy in the deterministic part.
  assert.doesNotMatch(JSON.stringify(reboot.payload), /pid|host|\//);
  assert.equal(after[4]!.seq, 5);
  assert.ok(verifyEventLog(file).ok);
});

test('a torn last line is saved aside, cut off, and the repair logged', async () => {
  const file = tempLog();
  await writeEvents(file, 2);
  const intact = fs.readFileSync(file);
  const fragment = '{"v":1,"seq":3,"type":"test.tick","payl';
  fs.appendFileSync(file, fragment);

  const report = verifyEventLog(file);
  assert.ok(report.ok, 'a torn tail is a warning, not an error');
  assert.equal(report.problems.length, 1);
  assert.equal(report.problems[0]!.severity, 'warning');
  assert.equal(report.problems[0]!.line, 3);
  assert.ok(fs.readFileSync(file).subarray(intact.length).toString() === fragment, 'verify does not repair');

  const log = await openEventLog(file);
  await log.close();
  assert.deepEqual(log.startup, { rebooted: true, repaired: { savedAs: 'events.jsonl.torn-3', removedBytes: Buffer.byteLength(fragment), offset: intact.length, line: 3 } });
  const saved = path.join(path.dirname(file), 'events.jsonl.torn-3');
  assert.equal(fs.readFileSync(saved, 'utf8'), fragment, 'the torn bytes are kept as evidence');
  const events = lines(file);
  assert.ok(fs.readFileSync(file).subarray(0, intact.length).equals(intact), 'the intact events are untouched');
  assert.deepEqual(
    events.map((e) => e.type),
    ['test.tick', 'test.tick', 'reboot', 'log_repaired'],
  );
  const repaired = events[3]!.payload;
  assert.equal(repaired.removed_bytes, Buffer.byteLength(fragment));
  assert.equal(repaired.offset, intact.length);
  assert.equal(repaired.line, 3);
  assert.equal(repaired.saved_as, 'events.jsonl.torn-3');
  const report2 = verifyEventLog(file);
  assert.ok(report2.ok);
  assert.deepEqual(report2.problems, []);
});

test('a log holding only a torn first write is repaired without a reboot event', async () => {
  const file = tempLog();
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, '{"v":1,"se');
  const log = await openEventLog(file);
  await log.close();
  assert.deepEqual(
    lines(file).map((e) => [e.seq, e.type]),
    [[1, 'log_repaired']],
  );
  assert.equal(fs.readFileSync(path.join(path.dirname(file), 'events.jsonl.torn-1'), 'utf8'), '{"v":1,"se');
});

test('a second torn tail at the same seq is saved under a new name, never over the first', async () => {
  const file = tempLog();
  await writeEvents(file, 1);
  const dir = path.dirname(file);
  fs.writeFileSync(path.join(dir, 'events.jsonl.torn-2'), 'older evidence');
  fs.appendFileSync(file, 'garbage');
  const log = await openEventLog(file);
  await log.close();
  assert.equal(fs.readFileSync(path.join(dir, 'events.jsonl.torn-2'), 'utf8'), 'older evidence');
  assert.equal(fs.readFileSync(path.join(dir, 'events.jsonl.torn-2.2'), 'utf8'), 'garbage');
  assert.equal(lines(file).at(-1)!.payload.saved_as, 'events.jsonl.torn-2.2');
});

test('a non-JSON line in the middle is refused with file and line; the file is untouched', async () => {
  const file = tempLog();
  await writeEvents(file, 4);
  const all = fs.readFileSync(file, 'utf8').split('\n');
  all[1] = 'this is not json';
  fs.writeFileSync(file, all.join('\n'));
  await assertRefused(file, 'RTC_ERR_EVENTS_CORRUPT', /:2: not valid JSON/);
});

test('a torn tail after a corrupt middle line is refused, not repaired', async () => {
  const file = tempLog();
  await writeEvents(file, 3);
  const all = fs.readFileSync(file, 'utf8').split('\n');
  all[0] = '{"half":';
  fs.writeFileSync(file, `${all.join('\n')}{"v":1,"seq"`);
  await assertRefused(file, 'RTC_ERR_EVENTS_CORRUPT', /:1: not valid JSON/);
});

test('a broken chain, a seq gap and a schema mismatch are refused, naming line and seq', async () => {
  // An edited payload: the event's own hash no longer matches.
  let file = tempLog();
  await writeEvents(file, 3);
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('{"i":1}', '{"i":7}'));
  await assertRefused(file, 'RTC_ERR_EVENTS_CHAIN', /:2 \(seq 2\): hash .* does not match the event's content/);

  // A deleted event: seq gap.
  file = tempLog();
  await writeEvents(file, 4);
  let all = fs.readFileSync(file, 'utf8').split('\n');
  all.splice(1, 1);
  fs.writeFileSync(file, all.join('\n'));
  await assertRefused(file, 'RTC_ERR_EVENTS_CHAIN', /:2 \(seq 3\): seq 3 where seq 2 was expected/);

  // A rewritten event with a recomputed hash: the next event's prev gives it away.
  file = tempLog();
  await writeEvents(file, 3);
  all = fs.readFileSync(file, 'utf8').split('\n');
  const forged = JSON.parse(all[0]!) as EventEnvelope;
  forged.payload = { i: 99 };
  forged.hash = computeEventHash(forged);
  all[0] = JSON.stringify(forged);
  fs.writeFileSync(file, all.join('\n'));
  await assertRefused(file, 'RTC_ERR_EVENTS_CHAIN', /:2 \(seq 2\): prev .* does not match the hash of the event before it/);

  // An extra key the hash does not cover.
  file = tempLog();
  await writeEvents(file, 2);
  all = fs.readFileSync(file, 'utf8').split('\n');
  all[0] = all[0]!.replace('{"v":1,', '{"v":1,"note":"added",');
  fs.writeFileSync(file, all.join('\n'));
  await assertRefused(file, 'RTC_ERR_EVENTS_CORRUPT', /:1 \(seq 1\): not a valid event: .*note/);

  // An empty line in the middle.
  file = tempLog();
  await writeEvents(file, 2);
  all = fs.readFileSync(file, 'utf8').split('\n');
  all.splice(1, 0, '');
  fs.writeFileSync(file, all.join('\n'));
  await assertRefused(file, 'RTC_ERR_EVENTS_CORRUPT', /:2: empty line/);
});

test('an event from a newer schema version is refused with RTC_ERR_EVENTS_VERSION', async () => {
  const file = tempLog();
  await writeEvents(file, 2);
  const all = fs.readFileSync(file, 'utf8').split('\n');
  all[1] = all[1]!.replace('{"v":1,', '{"v":2,');
  fs.writeFileSync(file, all.join('\n'));
  await assertRefused(file, 'RTC_ERR_EVENTS_VERSION', /:2 \(seq 2\): written with event schema version 2; this kernel reads version 1/);
});

test('readEvents yields the events in order and throws the first problem as a KernelError', async () => {
  const file = tempLog();
  await writeEvents(file, 3);
  assert.deepEqual([...readEvents(file)].map((e) => e.payload.i), [0, 1, 2]);
  assert.deepEqual([...readEvents(`${file}.missing`)], []);
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('{"i":2}', '{"i":3}'));
  assert.throws(() => [...readEvents(file)], (error: unknown) => isKernelError(error) && error.code === 'RTC_ERR_EVENTS_CHAIN');
});

test('bad appends are refused without using up a seq; a log is opened once per process', async () => {
  const file = tempLog();
  const log = await openEventLog(file);
  await assert.rejects(log.append('Not A Type', {}), /RTC_ERR_EVENTS_INVALID|lower-case/);
  await assert.rejects(log.append('ok.type', [] as unknown as Record<string, unknown>), /must be an object/);
  await assert.rejects(log.append('ok.type', { big: 10n }), (e: unknown) => isKernelError(e) && e.code === 'RTC_ERR_EVENTS_INVALID');
  await assert.rejects(openEventLog(file), (e: unknown) => isKernelError(e) && e.code === 'RTC_ERR_EVENTS_BUSY');
  assert.equal((await log.append('ok.type', { cyclic: 'no' })).seq, 1);
  await log.close();
  await assert.rejects(log.append('ok.type', {}), (e: unknown) => isKernelError(e) && e.code === 'RTC_ERR_EVENTS_CLOSED');
  const again = await openEventLog(file);
  await again.close();
});

test('payloads that JSON cannot hold as-is are stored in a form that verifies after a round trip', async () => {
  const file = tempLog();
  const log = await openEventLog(file);
  const cyclic: Record<string, unknown> = { name: 'loop' };
  cyclic.self = cyclic;
  await log.append('odd.values', {
    cyclic,
    when: new Date('2024-05-01T00:00:00Z'),
    nan: Number.NaN,
    missing: undefined,
    list: [undefined, () => 1, 1.5e300, -0],
    map: new Map([['k', 1]]),
    ['__proto__']: 'own key',
    unicode: 'ünï \u2028 \ud800',
  });
  await log.close();
  const report = verifyEventLog(file);
  assert.ok(report.ok, JSON.stringify(report.problems));
  const payload = lines(file)[0]!.payload;
  assert.deepEqual(payload.cyclic, { name: 'loop', self: '[Circular]' });
  assert.equal(payload.when, '2024-05-01T00:00:00.000Z');
  assert.equal(payload.nan, null);
  assert.ok(!('missing' in payload));
  assert.deepEqual(payload.list, [null, null, 1.5e300, 0]);
  assert.deepEqual(payload.map, { k: 1 });
});
