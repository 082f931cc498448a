/**
 * The broker's own refusals of a malformed call (before any grant is looked at): an op it does
 * not have, and an op called in the wrong mode. A sandboxed script cannot make either through
 * the shim's Deno API; they are the broker's guard against a shim out of step with it.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { CapabilityBroker } from '../../kernel/broker/broker.ts';
import { loadSandboxProfile } from '../../features/plugin-search/sandbox-profiles.ts';
import { brokerContext, profileLayer } from '../../kernel/broker/context.ts';
import { DENO_OPS } from '../../sandboxes/deno/index.ts';

function broker(): CapabilityBroker {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'rtc-broker-'));
  const profile = loadSandboxProfile('default');
  return new CapabilityBroker(brokerContext({ subject: 'test', layers: [profileLayer(profile, dir)], cwd: dir, env: {}, profile, limits: profile.limits }), DENO_OPS);
}

test('an op the broker does not have is RTC_ERR_BROKER_UNKNOWN_OP, naming it', () => {
  const b = broker();
  assert.equal(typeof (JSON.parse(b.sync('random.bytes', JSON.stringify({ length: 4 }))) as { ok: unknown }).ok, 'string', 'a known op answers');
  assert.throws(() => b.sync('fs.formatDisk', '{}'), { code: 'RTC_ERR_BROKER_UNKNOWN_OP', message: 'no broker operation "fs.formatDisk"' });
});

test('an op called in the other mode is RTC_ERR_BROKER_BAD_ARGS', async () => {
  const b = broker();
  await assert.rejects(async () => b.async('random.bytes', JSON.stringify({ length: 4 })), { code: 'RTC_ERR_BROKER_BAD_ARGS', message: 'broker operation "random.bytes" is sync, called as async' });
});
