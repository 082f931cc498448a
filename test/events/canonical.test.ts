/**
 * Canonical JSON is what an event's hash covers: sorted keys, no whitespace, JSON.stringify's
 * rules otherwise, and stable under a round trip through the file (parse, canonicalize again).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { canonicalJson } from '../../kernel/events/canonical.ts';
import { computeEventHash, hashInput, sha256 } from '../../kernel/events/envelope.ts';
import { isKernelError } from '../../kernel/errors.ts';

test('keys are sorted at every depth, with no whitespace', () => {
  assert.equal(canonicalJson({ b: 1, a: [{ d: 2, c: null }], ä: 'x', A: true }), '{"A":true,"a":[{"c":null,"d":2}],"b":1,"ä":"x"}');
  assert.equal(canonicalJson({ u: undefined, f: () => 1, n: Number.NaN, i: -Infinity, l: [undefined] }), '{"i":null,"l":[null],"n":null}');
});

test('same value, same text, whatever the key order; a round trip through JSON changes nothing', () => {
  fc.assert(
    fc.property(fc.jsonValue(), (value) => {
      const text = canonicalJson(value);
      assert.equal(canonicalJson(JSON.parse(text)), text);
      assert.equal(canonicalJson(JSON.parse(JSON.stringify(value))), text);
      assert.deepEqual(JSON.parse(text), JSON.parse(JSON.stringify(value)));
    }),
    { numRuns: 300 },
  );
  fc.assert(
    fc.property(fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 8 }), (value) => {
      const reversed = Object.fromEntries(Object.entries(value).reverse());
      assert.equal(canonicalJson(reversed), canonicalJson(value));
    }),
  );
});

test('the hashed text is the canonical JSON of {v, seq, type, payload, prev}', () => {
  const event = { v: 1, seq: 7, type: 'loop.cycle', payload: { z: 1, a: 'x' }, prev: 'ab'.repeat(32) };
  const text = hashInput(event.seq, event.type, canonicalJson(event.payload), event.prev);
  assert.equal(text, canonicalJson(event));
  assert.equal(computeEventHash(event), sha256(canonicalJson(event)));
});

test('bigints and cycles have no canonical form and are refused with RTC_ERR_EVENTS_INVALID', () => {
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  for (const value of [{ n: 1n }, cyclic]) {
    assert.throws(() => canonicalJson(value), (e: unknown) => isKernelError(e) && e.code === 'RTC_ERR_EVENTS_INVALID');
  }
});
