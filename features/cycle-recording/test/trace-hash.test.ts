/**
 * Replay checks trace lines with checkedTraceHash, a fast writer for the strict trace shapes;
 * the recorder writes the hash with traceHash (canonicalJson). They must give the same hash
 * for every record the schema accepts, whatever order its keys were written in.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { checkedTraceHash, traceHash, traceRecordSchema, type TraceRecord } from '../trace-record.ts';

const digest = fc.stringMatching(/^[0-9a-f]{64}$/).map((hex) => `sha256:${hex}`);
const text = fc.oneof(
  fc.string({ unit: 'binary' }),
  fc.jsonValue().map((value) => JSON.stringify({ ok: value })),
  // a blob reference, with its keys in either order (a line may be written either way)
  fc.tuple(digest, fc.nat(), fc.boolean()).map(([blob, bytes, flip]) => (flip ? { bytes, blob } : { blob, bytes })),
);
const effect = fc.record({ op: fc.string({ minLength: 1 }), args: text, answer: text });
const call = fc.record({
  plugin: fc.string({ minLength: 1 }),
  bundle: digest,
  fresh: fc.boolean(),
  method: fc.string({ minLength: 1 }),
  args: text,
  result: text,
  effects: fc.array(effect, { maxLength: 6 }),
});
const record = fc.record({
  v: fc.constant(1 as const),
  persona: fc.string({ minLength: 1 }),
  cycle: fc.integer({ min: 1 }),
  now: fc.double({ noNaN: true, noDefaultInfinity: true }),
  profile: digest,
  limits: fc.record({ cpu_seconds: fc.double({ min: 0.001, max: 1e6, noNaN: true }), wall_seconds: fc.integer({ min: 1, max: 1e6 }) }),
  calls: fc.array(call, { maxLength: 4 }),
  hash: fc.constant('0'.repeat(64)),
});

test('checkedTraceHash equals traceHash for every record the schema accepts, read back from its line', () => {
  fc.assert(
    fc.property(record, (generated) => {
      // as replay sees it: written as a line, parsed, validated
      const parsed = traceRecordSchema.parse(JSON.parse(JSON.stringify(generated))) as TraceRecord;
      assert.equal(checkedTraceHash(parsed), traceHash(parsed));
    }),
    { numRuns: 500 },
  );
});

test('checkedTraceHash leaves out hash and fresh, as traceHash does', () => {
  const body: TraceRecord = {
    v: 1,
    persona: 'rex',
    cycle: 2,
    now: 1.5,
    profile: `sha256:${'a'.repeat(64)}`,
    limits: { cpu_seconds: 30, wall_seconds: 900 },
    calls: [{ plugin: 'p', bundle: `sha256:${'b'.repeat(64)}`, fresh: true, method: 'm', args: '[]', result: '{"ok":null}', effects: [{ op: 'time.now', args: '[]', answer: '{"ok":1}' }] }],
    hash: 'x',
  };
  const other = { ...body, hash: 'y', calls: body.calls.map((c) => ({ ...c, fresh: false })) };
  assert.equal(checkedTraceHash(body), checkedTraceHash(other));
  assert.equal(checkedTraceHash(body), traceHash(body));
});

test('checkedTraceHash equals traceHash for calls of many effects (hashed in pieces), and for a call with none', () => {
  for (const count of [0, 1, 255, 256, 257, 513, 2008]) {
    const effects = Array.from({ length: count }, (_, i) => (i % 3 === 0 ? { op: 'fs.readTextFile', args: { bytes: i, blob: `sha256:${'c'.repeat(64)}` }, answer: `{"ok":"é${i}"}` } : { op: 'time.now', args: '[]', answer: `{"ok":${i}}` }));
    const line = JSON.stringify({
      v: 1,
      persona: 'rex',
      cycle: 3,
      now: 7,
      profile: `sha256:${'a'.repeat(64)}`,
      limits: { cpu_seconds: 30, wall_seconds: 900 },
      calls: [
        { plugin: 'p', bundle: `sha256:${'b'.repeat(64)}`, fresh: false, method: 'm', args: '[1]', result: '{"ok":1}', effects },
        { plugin: 'q', bundle: `sha256:${'b'.repeat(64)}`, fresh: true, method: 'n', args: '[]', result: '{"ok":2}', effects: effects.slice(0, 3) },
      ],
      hash: '0'.repeat(64),
    });
    const parsed = traceRecordSchema.parse(JSON.parse(line)) as TraceRecord;
    assert.equal(checkedTraceHash(parsed), traceHash(parsed), `${count} effects`);
  }
});
