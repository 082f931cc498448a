/**
 * The bytes an effect carries as base64 are scrubbed as bytes for every op that carries them:
 * whole-file reads and writes, a command's stdin/stdout/stderr, and the streamed ones (open
 * files, fetch bodies and child pipes read and written chunk by chunk).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { scrubEffectText } from '../effect-scrub.ts';
import { scrubber } from '../../secret-values/secret-values.ts';

const KEY = 'sk-proj-AbCdEfGh0123456789IjKlMnOp';
const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');

test('every op that carries bytes as base64 has them scrubbed, in its args or its answer', () => {
  const scrub = scrubber();
  const cases: [op: string, part: 'args' | 'answer', json: string][] = [
    ['fs.file.write', 'args', JSON.stringify({ rid: 3, base64: b64(`Authorization: Bearer ${KEY}\n`) })],
    ['run.write', 'args', JSON.stringify({ rid: 4, base64: b64(`token ${KEY}\n`) })],
    ['run.output', 'args', JSON.stringify({ command: 'cat', args: [], input: b64(`key ${KEY}`) })],
    ['fs.file.read', 'answer', JSON.stringify({ ok: b64(`key ${KEY}`) })],
    ['net.read', 'answer', JSON.stringify({ ok: b64(`key ${KEY}`) })],
    ['run.read', 'answer', JSON.stringify({ ok: b64(`key ${KEY}`) })],
  ];
  for (const [op, part, json] of cases) {
    const out = scrubEffectText(op, part, json, scrub);
    const decoded = [...out.matchAll(/[A-Za-z0-9+/]{16,}={0,2}/g)].map((m) => Buffer.from(m[0], 'base64').toString('utf8')).join('\n');
    assert.equal(decoded.includes(KEY) || out.includes(KEY), false, `${op} ${part}: ${out}`);
    assert.match(decoded, /\[REDACTED\]/, `${op} ${part}: the bytes are kept, scrubbed`);
  }
  // A chunk-less answer (end of stream) is left as it is.
  assert.equal(scrubEffectText('run.read', 'answer', JSON.stringify({ ok: null }), scrub), JSON.stringify({ ok: null }));
});
