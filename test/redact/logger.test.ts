/**
 * The kernel's pino logger factory: every logged object, child binding, message string and
 * Error is redacted before pino writes it, at any depth (pino's own `redact` paths match
 * one level only). Output goes to a real file.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createKernelLogger } from '../../kernel/log.ts';

function logFile(): string {
  return path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'rtc-')), 'logs', 'kernel.log');
}

function readLines(file: string): Record<string, any>[] {
  return fs
    .readFileSync(file, 'utf8')
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, any>);
}

test('objects, bindings, children, messages and errors are redacted before pino writes them', () => {
  const file = logFile();
  const log = createKernelLogger({ name: 'kernel', file, bindings: { persona: 'p1', api_key: 'K-BASE' } });
  log.info({ provider: { calls: [{ headers: { Authorization: 'K-DEEP' } }] }, usage: { input_tokens: 12, cache_read_input_tokens: 3 } }, 'call made');
  log.info('login with password=K-MSG and Bearer K-BEARER-12345');
  log.child({ session_cookie: 'K-CHILD', phase: 'plan' }).child({ refresh_token: 'K-GRANDCHILD' }).warn({ total_tokens: 99 }, 'nested');
  const error = Object.assign(new Error('upstream said Authorization: Bearer K-ERR-123456'), { response: { data: { access_token: 'K-ERRDATA' } } });
  log.error(error);
  log.error({ err: error });
  log.error({ err: error }, 'with a message');
  log.flush();

  const text = fs.readFileSync(file, 'utf8');
  assert.doesNotMatch(text, /K-[A-Z]/, text);
  const [first, second, third, fourth, fifth, sixth] = readLines(file);
  assert.equal(first!.persona, 'p1');
  assert.equal(first!.api_key, '[REDACTED]');
  assert.equal(first!.name, 'kernel');
  assert.equal(first!.pid, undefined, 'no host identity in kernel logs');
  assert.equal(first!.hostname, undefined);
  assert.deepEqual(first!.provider, { calls: [{ headers: { Authorization: '[REDACTED]' } }] });
  assert.deepEqual(first!.usage, { input_tokens: 12, cache_read_input_tokens: 3 });
  assert.equal(first!.msg, 'call made');
  assert.equal(second!.msg, 'login with password=[REDACTED] and Bearer [REDACTED]');
  assert.equal(third!.session_cookie, '[REDACTED]');
  assert.equal(third!.refresh_token, '[REDACTED]');
  assert.equal(third!.phase, 'plan');
  assert.equal(third!.total_tokens, 99);
  for (const line of [fourth!, fifth!, sixth!]) {
    assert.equal(line.err.type, 'Error');
    assert.equal(line.err.message, 'upstream said Authorization: [REDACTED]');
    assert.deepEqual(line.err.response, { data: { access_token: '[REDACTED]' } });
  }
  assert.equal(fourth!.msg, 'upstream said Authorization: [REDACTED]');
  assert.equal(fifth!.msg, 'upstream said Authorization: [REDACTED]');
  assert.equal(sixth!.msg, 'with a message');
});

test('levels filter, and a cyclic object is logged instead of throwing', () => {
  const file = logFile();
  const log = createKernelLogger({ file, level: 'warn' });
  const cyclic: Record<string, unknown> = { token: 'K-CYCLE' };
  cyclic.self = cyclic;
  log.info({ dropped: true });
  log.warn({ cyclic }, 'kept');
  log.flush();
  const lines = readLines(file);
  assert.equal(lines.length, 1);
  assert.deepEqual(lines[0]!.cyclic, { token: '[REDACTED]', self: '[Circular]' });
});
