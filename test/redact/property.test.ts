/**
 * Property: for random nested objects and arrays with secret-bearing keys at random depths
 * (and secrets pasted into harmless strings), no secret reaches the output, and every usage
 * number comes through exactly, at the same place. Checked on redact() itself and on what the
 * event log writes to disk.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { redact, USAGE_FIELDS } from '../../kernel/redact/index.ts';
import { openEventLog } from '../../kernel/events/index.ts';

/** Every secret made here carries a marker that nothing harmless can contain (harmless text is a-p only). */
const MARKERS = ['S3CR3T', 'ZQX', 'QZX'] as const;

const SECRET_KEYS = [
  'api_key', 'apiKey', 'X-Api-Key', 'OPENAI_API_KEY', 'anthropic_api_key', 'secret_key', 'private_key', 'access_token',
  'accessToken', 'refresh_token', 'id_token', 'token', 'authorization', 'Authorization', 'proxy-authorization', 'cookie',
  'Set-Cookie', 'password', 'secret', 'client_secret', 'session_cookie', 'auth', 'credentials', 'auth_payload', 'oauth',
];

const HARMLESS_KEYS = ['persona', 'phase', 'data', 'items', 'meta', 'tokens', 'max_tokens', 'token_budget', 'key', 'sort_key', 'request', 'headers', 'usage', 'id'];

function spellings(snake: string): string[] {
  const words = snake.split('_');
  const camel = words.map((w, i) => (i === 0 ? w : w[0]!.toUpperCase() + w.slice(1))).join('');
  return [snake, snake.toUpperCase(), words.join('-'), camel];
}
const USAGE_KEYS = USAGE_FIELDS.flatMap(spellings);

const hex = fc.stringMatching(/^[0-9a-f]{8,24}$/);
const harmlessText = fc.stringMatching(/^[a-p ]{0,16}$/);
const secretToken = hex.map((h) => `S3CR3T-${h}`);
/** Secrets pasted into text: a bearer header and provider keys. */
const embeddedSecret = fc
  .tuple(harmlessText, fc.constantFrom('bearer', 'sk-ant', 'sk-proj', 'auth-header'), hex, harmlessText)
  .map(([before, kind, h, after]) => {
    const secret =
      kind === 'bearer' ? `Bearer ZQX${h}0a` : kind === 'auth-header' ? `Authorization: Basic ZQX${h}==` : `${kind}-api03-QZX${h}9f`;
    return `${before} ${secret} ${after}`;
  });
const usageNumber = fc.oneof(fc.integer({ min: 0, max: 2 ** 40 }), fc.double({ min: 0, max: 1e9, noNaN: true }));
/** What a secret key holds: a token, a list of them, or a record of them (with a usage counter inside, which must survive). */
const secretValue = fc.oneof(
  secretToken,
  fc.array(secretToken, { minLength: 1, maxLength: 3 }),
  fc.record({ inner: secretToken, more: fc.array(secretToken, { maxLength: 2 }), input_tokens: usageNumber }),
);

type Tree = unknown;
const { node } = fc.letrec<{ node: Tree; leaf: Tree; object: Tree; array: Tree }>((tie) => ({
  node: fc.oneof({ depthSize: 'small', withCrossShrink: true }, tie('leaf'), tie('object'), tie('array')),
  leaf: fc.oneof(harmlessText, fc.integer(), fc.boolean(), fc.constant(null), embeddedSecret),
  object: fc
    .array(
      fc.oneof(
        fc.tuple(fc.constantFrom(...HARMLESS_KEYS), tie('node')),
        fc.tuple(fc.constantFrom(...SECRET_KEYS), secretValue),
        fc.tuple(fc.constantFrom(...USAGE_KEYS), usageNumber),
      ),
      { maxLength: 6 },
    )
    .map((entries) => Object.fromEntries(entries)),
  array: fc.array(tie('node'), { maxLength: 4 }),
}));
/** The top level is always an object, as event payloads and log objects are. */
const payload = fc.dictionary(fc.constantFrom(...HARMLESS_KEYS, ...SECRET_KEYS, ...USAGE_KEYS), node, { maxKeys: 5 }).chain((base) =>
  fc.tuple(fc.constant(base), fc.constantFrom(...USAGE_KEYS), usageNumber).map(([b, k, n]) => ({ ...b, [k]: n })),
);

/** Every usage number in a value, with the path that reaches it. */
function usageNumbers(value: unknown, at: (string | number)[] = []): Array<{ path: (string | number)[]; value: number }> {
  if (Array.isArray(value)) return value.flatMap((item, i) => usageNumbers(item, [...at, i]));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, item]) =>
    typeof item === 'number' && USAGE_KEYS.includes(key) ? [{ path: [...at, key], value: item }] : usageNumbers(item, [...at, key]),
  );
}

function get(value: unknown, at: (string | number)[]): unknown {
  return at.reduce<unknown>((v, k) => (v === null || typeof v !== 'object' ? undefined : (v as Record<string | number, unknown>)[k]), value);
}

/** The two properties, on the serialized output and its parsed form. */
function assertRedacted(input: unknown, serialized: string, parsed: unknown): void {
  for (const marker of MARKERS) assert.ok(!serialized.includes(marker), `a secret (${marker}...) got through: ${serialized}`);
  for (const { path: at, value } of usageNumbers(input)) {
    // JSON has no -0; the number is otherwise exactly the same.
    assert.ok(Object.is(get(parsed, at), value) || (value === 0 && get(parsed, at) === 0), `usage ${at.join('.')} = ${value}, got ${String(get(parsed, at))}`);
  }
}

test('redact(): no secret at any depth gets through, every usage number does', () => {
  fc.assert(
    fc.property(payload, (input) => {
      const out = redact(input);
      const text = JSON.stringify(out);
      assertRedacted(input, text, JSON.parse(text));
      // Nothing is lost in the copy itself either (before JSON): same numbers, same places.
      for (const { path: at, value } of usageNumbers(input)) assert.ok(Object.is(get(out, at), value));
    }),
    { numRuns: 500 },
  );
});

test('the event log writes no secret and every usage number, at any depth', async () => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'rtc-')), 'p', 'logs', 'events.jsonl');
  const log = await openEventLog(file);
  const inputs = fc.sample(payload, 100) as Record<string, unknown>[];
  await Promise.all(inputs.map((input) => log.append('prop.event', input)));
  await log.close();
  const lines = fs.readFileSync(file, 'utf8').trimEnd().split('\n');
  assert.equal(lines.length, inputs.length);
  lines.forEach((line, i) => assertRedacted(inputs[i], line, (JSON.parse(line) as { payload: unknown }).payload));
});
