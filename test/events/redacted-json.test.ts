/**
 * The event log's fast append path writes exactly the bytes of the two-step one:
 * redactedCanonicalJson(x) is canonicalJson(redactRecord(x)) whenever it answers, the
 * append-only hash input and line builders match hashInput() and envelopeLine(), sha256()
 * matches createHash, and a log written through the fast path holds, line for line, what the
 * original formula gives.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { redactedCanonicalJson, redactRecord, USAGE_FIELDS } from '../../kernel/redact/index.ts';
import { canonicalJson, eventLogPath, GENESIS_HASH, openEventLog } from '../../kernel/events/index.ts';
import { appendEnvelopeLine, appendHashInput, envelopeLine, hashInput, sha256 } from '../../kernel/events/envelope.ts';

const KEYS = [
  'phase', 'note', 'items', 'meta', 'tokens', 'key', 'id', 'session', 'usage', 'toJSON', '__proto__', '', 'b', 'B', 'a b', 'ä', '10', '2',
  'api_key', 'Authorization', 'client_secret', 'credentials', 'password', 'cookie', 'auth_payload', 'sk-abcdefghijklmnop1234', 'Bearer abcdefgh12345',
  ...USAGE_FIELDS,
];

const leaf = fc.oneof(
  fc.string(),
  fc.constantFrom('cycle finished', 'Bearer abcdefgh12345', 'sk-proj-abc123def456ghi789', 'password=hunter22', 'x \u2028 \ud800 ü'),
  fc.integer(),
  fc.double(),
  fc.constantFrom(Number.NaN, Infinity, -Infinity, -0, 1e21, 5e-324),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.constant(() => 1),
  fc.constant(Symbol('s')),
  fc.constant(10n),
  fc.constant(new Date('2024-05-01T00:00:00Z')),
  fc.constant(new Map([['k', 1]])),
  fc.constant(new Set(['v'])),
  fc.constant(Object.create(null) as object),
  fc.constant(new Error('boom')),
  fc.constant(new Uint8Array(3)),
);

const { value } = fc.letrec<{ value: unknown; object: Record<string, unknown>; array: unknown[] }>((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, leaf, tie('object'), tie('array')),
  object: fc
    .array(fc.tuple(fc.oneof(fc.constantFrom(...KEYS), fc.string({ maxLength: 6 })), tie('value')), { maxLength: 6 })
    .map((entries) => {
      const out: Record<string, unknown> = {};
      // defineProperty, so `__proto__` is an own key as JSON.parse would make it.
      for (const [k, v] of entries) Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
      return out;
    }),
  array: fc.array(tie('value'), { maxLength: 4 }),
}));

/** Plain JSON data only: the fast path must answer for all of it. */
const { json } = fc.letrec<{ json: unknown; object: Record<string, unknown>; array: unknown[] }>((tie) => ({
  json: fc.oneof({ depthSize: 'small' }, fc.oneof(fc.string(), fc.integer(), fc.double(), fc.boolean(), fc.constant(null)), tie('object'), tie('array')),
  object: fc.dictionary(fc.constantFrom(...KEYS.filter((k) => !k.startsWith('sk-') && !k.startsWith('Bearer') && k !== '__proto__')), tie('json'), { maxKeys: 6 }),
  array: fc.array(tie('json'), { maxLength: 4 }),
}));

function twoStep(record: Record<string, unknown>): string | Error {
  try {
    return canonicalJson(redactRecord(record));
  } catch (error) {
    return error as Error;
  }
}

test('redactedCanonicalJson gives the two-step text whenever it answers, and answers for plain JSON data', () => {
  fc.assert(
    fc.property(fc.dictionary(fc.constantFrom(...KEYS), value, { maxKeys: 6 }), (record) => {
      const fast = redactedCanonicalJson(record);
      if (fast !== undefined) assert.equal(fast, twoStep(record));
    }),
    { numRuns: 1000 },
  );
  fc.assert(
    fc.property(fc.dictionary(fc.constantFrom(...KEYS.filter((k) => !k.startsWith('sk-') && !k.startsWith('Bearer'))), json, { maxKeys: 6 }), (record) => {
      const fast = redactedCanonicalJson(record);
      assert.notEqual(fast, undefined, 'plain data takes the fast path');
      assert.equal(fast, twoStep(record));
    }),
    { numRuns: 1000 },
  );
});

test('values the fast path leaves to the two steps: cycles, deep nesting, bigints, class instances, rewritten keys', () => {
  const cyclic: Record<string, unknown> = { a: 1 };
  cyclic.self = cyclic;
  let deep: Record<string, unknown> = { leaf: 'x' };
  for (let i = 0; i < 100; i++) deep = { d: deep };
  for (const record of [{ cyclic }, deep, { big: 10n }, { when: new Date(0) }, { 'sk-abcdefghijklmnop1234': 1 }, { m: new Map() }]) {
    assert.equal(redactedCanonicalJson(record), undefined);
  }
  // Under a secret key a bigint is just redacted, as redact() does.
  assert.equal(redactedCanonicalJson({ api_key: 10n }), '{"api_key":"[REDACTED]"}');
});

test('the append-only hash input and line are hashInput() and envelopeLine() for valid types, and sha256 is createHash', () => {
  const prev = sha256('x');
  for (const type of ['a', 'loop.cycle', 'plugin.x:y-z_1', 'reboot']) {
    for (const payloadJson of ['{}', '{"a":"ü \\u2028","b":[1,null]}']) {
      assert.equal(appendHashInput(7, type, payloadJson, prev), hashInput(7, type, payloadJson, prev));
      assert.equal(appendEnvelopeLine(7, type, payloadJson, prev, prev, '2024-05-01T00:00:00.000Z'), envelopeLine(7, type, payloadJson, prev, prev, '2024-05-01T00:00:00.000Z'));
    }
  }
  for (const text of ['', 'abc', 'ünïcödé \u2028', 'lone \ud800 surrogate', 'x'.repeat(100_000)]) {
    assert.equal(sha256(text), createHash('sha256').update(text, 'utf8').digest('hex'));
  }
});

test('a log written through the fast path is, byte for byte, the original formula', async () => {
  const file = eventLogPath(fs.mkdtempSync(path.join(os.tmpdir(), 'rtc-')), 'persona-a');
  const at = '2024-05-01T12:00:00.000Z';
  const log = await openEventLog(file, { now: () => new Date(at) });
  const payloads = [
    ...(fc.sample(fc.dictionary(fc.constantFrom(...KEYS), value, { maxKeys: 6 }), { numRuns: 300, seed: 42 }) as Record<string, unknown>[]),
    { cycle: 1, phase: 'execute', input_tokens: 1200, api_key: 'sk-live-123456789012345678', note: 'Bearer abcdefgh12345' },
  ];
  const expected: string[] = [];
  let prev = GENESIS_HASH;
  const appends: Promise<unknown>[] = [];
  for (const payload of payloads) {
    const payloadJson = twoStep(payload);
    const appended = log.append('fast.path', payload);
    appends.push(appended.catch(() => undefined));
    if (payloadJson instanceof Error) {
      await assert.rejects(appended);
      continue;
    }
    const seq = expected.length + 1;
    const hash = createHash('sha256').update(hashInput(seq, 'fast.path', payloadJson, prev), 'utf8').digest('hex');
    expected.push(envelopeLine(seq, 'fast.path', payloadJson, prev, hash, at));
    prev = hash;
  }
  await Promise.all(appends);
  await log.close();
  assert.ok(expected.length > 100, `${expected.length} of ${payloads.length} payloads had a JSON form`);
  assert.equal(fs.readFileSync(file, 'utf8'), expected.join(''));
});
