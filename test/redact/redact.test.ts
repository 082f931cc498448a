/**
 * redact(): secret keys at any depth and in arrays, secret-looking strings, usage counters
 * never touched (by design of the key rules, not only by the allow-list), and non-plain or
 * cyclic values copied without throwing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  classifyKey,
  keyWords,
  redact,
  REDACTED,
  scrubString,
  secretKeyRule,
  USAGE_FIELDS,
} from '../../kernel/redact/index.ts';

/** The spellings one field name can arrive in. */
function spellings(snake: string): string[] {
  const words = snake.split('_');
  const camel = words.map((w, i) => (i === 0 ? w : w[0]!.toUpperCase() + w.slice(1))).join('');
  return [snake, snake.toUpperCase(), words.join('-'), camel, camel[0]!.toUpperCase() + camel.slice(1), words.join(' ')];
}

const SECRET_KEYS = [
  'api_key', 'apikey', 'apiKey', 'X-Api-Key', 'OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'openaiApiKey', 'secret_key', 'private_key',
  'aws_secret_access_key', 'access_key', 'signing_key', 'access_token', 'accessToken', 'refresh_token', 'id_token', 'token',
  'Token', 'csrf_token', 'authorization', 'Authorization', 'proxy-authorization', 'Proxy-Authorization', 'cookie', 'Cookie',
  'set-cookie', 'Set-Cookie', 'password', 'PASSWORD', 'passwd', 'secret', 'client_secret', 'clientSecret', 'session_cookie',
  'auth', 'Auth', 'basic_auth', 'credentials', 'credential', 'auth_payload', 'raw_auth', 'oauth', 'oauth_response', 'jwt',
  'passphrase', 'session_token', 'session_key', 'x-auth-token',
];

const HARMLESS_KEYS = [
  'key', 'sort_key', 'cache_key', 'primary_key', 'idempotency_key', 'keys', 'tokens', 'max_tokens', 'token_count',
  'token_budget', 'daily_token_budget', 'monthly_token_budget', 'max_tokens_per_session', 'min_tokens_remaining_for_executor',
  'prompt_tokens', 'completion_tokens', 'author', 'authored_by', 'session_id', 'sessions', 'phase', 'persona', 'model',
  'token_type', 'description', 'monkey', 'turkey', 'hockey',
];

test('every spelling of every usage field is left alone, and the secret rules alone cannot catch one', () => {
  for (const field of USAGE_FIELDS) {
    for (const name of spellings(field)) {
      assert.equal(classifyKey(name), 'none', name);
      // Not only the allow-list: the rules themselves do not match a usage field.
      assert.equal(secretKeyRule(name), 'none', `rule matched ${name}`);
      const value = 123456789;
      assert.deepEqual(redact({ [name]: value }), { [name]: value });
    }
  }
});

test('secret keys are recognised in every spelling', () => {
  for (const key of SECRET_KEYS) assert.notEqual(classifyKey(key), 'none', key);
  for (const key of HARMLESS_KEYS) assert.equal(classifyKey(key), 'none', key);
  assert.deepEqual(keyWords('OPENAI_API_KEY'), ['openai', 'api', 'key']);
  assert.deepEqual(keyWords('APIKey'), ['api', 'key']);
  assert.deepEqual(keyWords('tokensUsed24h'), ['tokens', 'used24h']);
});

test('secrets are replaced at any depth and inside arrays; everything else is kept', () => {
  const input = {
    persona: 'p1',
    provider: { name: 'openai', api_key: 'k-1', nested: [{ deeper: [{ access_token: 'k-2', ok: true }] }] },
    request: { headers: { Authorization: 'Bearer k-3-abcdefgh', 'Content-Type': 'json', Cookie: 'sid=k-4' } },
    usage: { input_tokens: 10, output_tokens: 20, cached_input_tokens: 3, reasoning_tokens: 4, total_tokens: 37 },
    budget: { tokens_used_24h: 1000, tokens_remaining_24h: 9000, daily_token_budget: 10000 },
    list: [{ password: 'k-5' }, 'plain', 7],
  };
  const out = redact(input) as typeof input;
  assert.deepEqual(out, {
    persona: 'p1',
    provider: { name: 'openai', api_key: REDACTED, nested: [{ deeper: [{ access_token: REDACTED, ok: true }] }] },
    request: { headers: { Authorization: REDACTED, 'Content-Type': 'json', Cookie: REDACTED } },
    usage: { input_tokens: 10, output_tokens: 20, cached_input_tokens: 3, reasoning_tokens: 4, total_tokens: 37 },
    budget: { tokens_used_24h: 1000, tokens_remaining_24h: 9000, daily_token_budget: 10000 },
    list: [{ password: REDACTED }, 'plain', 7],
  });
  assert.notEqual(out, input, 'a copy');
  assert.equal(input.provider.api_key, 'k-1', 'the input is not modified');
});

test('everything under a secret key is replaced, except usage counters; null and booleans stay', () => {
  const out = redact({
    credentials: { user: 'u', pass: 'p', pin: 1234, nested: [{ x: 'y' }], input_tokens: 5, enabled: true, expires: null },
    auth: ['a', 'b'],
    api_key: null,
  });
  assert.deepEqual(out, {
    credentials: { user: REDACTED, pass: REDACTED, pin: REDACTED, nested: [{ x: REDACTED }], input_tokens: 5, enabled: true, expires: null },
    auth: [REDACTED, REDACTED],
    api_key: null,
  });
});

test('`session` is a secret as a string, an ordinary record as an object', () => {
  assert.deepEqual(redact({ session: 'abc123' }), { session: REDACTED });
  assert.deepEqual(redact({ session: { id: 's-1', harness: 'codex', input_tokens: 9, session_token: 't' } }), {
    session: { id: 's-1', harness: 'codex', input_tokens: 9, session_token: REDACTED },
  });
});

test('secret-looking strings are scrubbed inside harmless text', () => {
  const cases: Array<[string, string]> = [
    ['curl -H "Authorization: Bearer abc.def.ghi123" https://x', 'curl -H "Authorization: [REDACTED]'],
    ['token is Bearer eyJhbGciOi.abc_DEF-123', 'token is Bearer [REDACTED]'],
    ['key sk-ant-api03-AbCdEf1234567890xyz used', 'key [REDACTED] used'],
    ['key sk-proj-AbCdEf1234567890xyzXYZ used', 'key [REDACTED] used'],
    ['key sk-AbCdEf1234567890xyzXYZ0 used', 'key [REDACTED] used'],
    ['gh ghp_abcdefghijklmnopqrstuvwxyz0123456789 ok', 'gh [REDACTED] ok'],
    ['aws AKIAIOSFODNN7EXAMPLE ok', 'aws [REDACTED] ok'],
    ['jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.sig_nature ok', 'jwt [REDACTED] ok'],
    ['https://user:hunter2@example.org/x', 'https://user:[REDACTED]@example.org/x'],
    ['GET /cb?code=1&access_token=abc123&x=1', 'GET /cb?code=1&access_token=[REDACTED]&x=1'],
    ['password=hunter2 user=bob', 'password=[REDACTED] user=bob'],
    ['{"client_secret": "s3cr3t value", "id": 1}', '{"client_secret": "[REDACTED]", "id": 1}'],
    ['{"authorization":"Basic dXNlcjpwYXNz"}', '{"authorization":"[REDACTED]"}'],
    ['Authorization: Basic dXNlcjpwYXNzd29yZA==', 'Authorization: [REDACTED]'],
    ['Set-Cookie: sid=abc; HttpOnly', 'Set-Cookie: [REDACTED]'],
  ];
  for (const [input, expected] of cases) assert.ok(scrubString(input).startsWith(expected), `${input} -> ${scrubString(input)}`);
  const harmless = [
    'input_tokens=123 output_tokens=45 total_tokens: 168',
    'tokens used: 1234',
    'a risk-assessment-for-long-term-planning',
    'the sk-learn-compatible-pipeline stays',
    'Basic understanding of the task',
    'bearer of news',
    'cached_input_tokens: 5, cache_read_input_tokens: 6',
  ];
  for (const text of harmless) assert.equal(scrubString(text), text);
  assert.deepEqual(redact({ message: 'failed: Bearer abcdefghijkl', input_tokens: 3 }), { message: `failed: Bearer ${REDACTED}`, input_tokens: 3 });
});

test('cycles, class instances, Maps, Sets, Errors, binary and throwing getters are copied without throwing', () => {
  const cyclic: Record<string, unknown> = { name: 'a' };
  cyclic.self = cyclic;
  cyclic.list = [cyclic, { token: 't' }];
  const shared = { api_key: 'k' };
  class Thing {
    password = 'p';
    visible = 1;
  }
  const error = Object.assign(new Error('boom with sk-ant-api03-AbCdEf1234567890xyz'), { code: 'E1', config: { headers: { authorization: 'x' } } });
  const throwing = Object.defineProperty({}, 'bad', {
    enumerable: true,
    get() {
      throw new Error('no');
    },
  });
  const revoked = Proxy.revocable({}, {});
  revoked.revoke();

  const out = redact({
    cyclic,
    twice: [shared, shared],
    thing: new Thing(),
    map: new Map<unknown, unknown>([['refresh_token', 'r'], [1, { ok: 1 }]]),
    set: new Set(['a', { secret: 's' }]),
    error,
    bytes: Buffer.from('raw secret bytes'),
    when: new Date(0),
    url: new URL('https://u:pw@example.org/?api_key=zzz'),
    throwing,
    revoked: revoked.proxy,
    fn: () => 1,
    big: 12n,
    sym: Symbol('s'),
  }) as Record<string, any>;

  assert.deepEqual(out.cyclic, { name: 'a', self: '[Circular]', list: ['[Circular]', { token: REDACTED }] });
  assert.deepEqual(out.twice, [{ api_key: REDACTED }, { api_key: REDACTED }], 'a shared object is not a cycle');
  assert.deepEqual(out.thing, { password: REDACTED, visible: 1 });
  assert.deepEqual(out.map, { refresh_token: REDACTED, 1: { ok: 1 } });
  assert.deepEqual(out.set, ['a', { secret: REDACTED }]);
  assert.equal(out.error.type, 'Error');
  assert.equal(out.error.message, `boom with ${REDACTED}`);
  assert.equal(out.error.code, 'E1');
  assert.deepEqual(out.error.config, { headers: { authorization: REDACTED } });
  assert.ok(!String(out.error.stack).includes('AbCdEf'));
  assert.equal(out.bytes, '[Buffer 16 bytes]');
  assert.ok(out.when instanceof Date && out.when.getTime() === 0);
  assert.equal(out.url, `https://u:${REDACTED}@example.org/?api_key=${REDACTED}`);
  assert.deepEqual(out.throwing, { bad: '[Unreadable]' });
  assert.equal(out.revoked, '[Unreadable]');
  assert.equal(out.fn, undefined);
  assert.equal(out.big, 12n);
  assert.equal(out.sym, undefined);
  assert.equal(redact(null), null);
  assert.equal(redact('Bearer abcdefghijkl'), `Bearer ${REDACTED}`);
});

test('very deep values are cut off instead of overflowing the stack', () => {
  let deep: Record<string, unknown> = { token: 'deepest' };
  for (let i = 0; i < 10_000; i++) deep = { next: deep };
  const text = JSON.stringify(redact(deep));
  assert.ok(text.includes('[Truncated]'));
  assert.ok(!text.includes('deepest'));
});

test('a `__proto__` key is copied as an own key, not as the prototype', () => {
  const input = JSON.parse('{"__proto__": {"password": "p"}, "a": 1}') as Record<string, unknown>;
  const out = redact(input) as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(out), Object.prototype);
  assert.equal(JSON.stringify(out), '{"__proto__":{"password":"[REDACTED]"},"a":1}');
});

test('a header line inside a JSON string ends at its escaped newline: the rest of the string is kept, and scrubbing before or after encoding agrees', () => {
  const script = 'echo "Authorization: Bearer abcdefgh12345678" >&2\necho next line\n';
  const encoded = JSON.stringify({ args: ['-c', script] });
  const scrubbedEncoded = scrubString(encoded);
  assert.match(scrubbedEncoded, /Authorization: \[REDACTED\]\\necho next line\\n/);
  assert.equal(scrubbedEncoded.includes('abcdefgh12345678'), false);
  // The same text scrubbed first and encoded after (what a replay asks) is what was recorded.
  assert.equal(scrubString(JSON.stringify({ args: ['-c', scrubString(script)] })), scrubbedEncoded);
});
