import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { KernelError } from '../../../kernel/errors.ts';
import { RecordingTape, ReplayTape } from '../tape.ts';
import { allPermissionSet } from '../../../kernel/permissions/descriptors.ts';
import { PluginInstance } from '../../plugin-host/plugin-instance.ts';
import { loadPlugin } from '../../plugin-search/scan.ts';
import { defaultSandboxKit } from '../../../sandboxes/index.ts';

const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'rtc-cache-'));
const kit = defaultSandboxKit({ cacheDir });

function makePlugin(code: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'rtc-tape-'));
  writeFileSync(path.join(dir, 'plugin.yaml'), `id: tool.tape\nversion: 1.0.0\nkind: tool\nentry: mod.ts\ndescription: tape test\nsandbox: trusted\npermissions: { read: ["\${plugin}"], env: [WHO] }\nexports: [observe]\n`);
  writeFileSync(path.join(dir, 'mod.ts'), code);
  writeFileSync(path.join(dir, 'data.txt'), 'first');
  return dir;
}

const OBSERVE = `export async function observe() {
  const text = await Deno.readTextFile(new URL('./data.txt', import.meta.url).pathname);
  return { t: Date.now(), p: performance.now(), r: Math.random(), u: crypto.randomUUID(), who: Deno.env.get('WHO') ?? null, text };
}`;

async function run(dir: string, tape: RecordingTape | ReplayTape, env: Record<string, string>) {
  const instance = new PluginInstance(loadPlugin(dir), { kit, allow: allPermissionSet(), cwd: dir, env, tape });
  try {
    return await instance.call('observe');
  } finally {
    instance.dispose();
  }
}

test('clock, randomness, env and file reads are recorded; replay gives the same output without touching the world', async () => {
  const dir = makePlugin(OBSERVE);
  const recording = new RecordingTape();
  const first = await run(dir, recording, { WHO: 'alice' });
  assert.ok(recording.effects.map((e) => e.op).includes('fs.readTextFile'));
  assert.ok(recording.effects.map((e) => e.op).includes('clock.now'));
  assert.ok(recording.effects.map((e) => e.op).includes('random.seed'));
  // The world changes; the replay must not see it.
  writeFileSync(path.join(dir, 'data.txt'), 'second');
  const replay = new ReplayTape(recording.effects, 'test cycle 1');
  const again = await run(dir, replay, { WHO: 'bob' });
  assert.deepEqual(again, first);
  assert.equal(replay.remaining, 0);
});

test('a changed plugin is caught at its first divergent effect, naming index, recorded and asked', async () => {
  const dir = makePlugin(OBSERVE);
  const recording = new RecordingTape();
  await run(dir, recording, { WHO: 'alice' });
  writeFileSync(path.join(dir, 'mod.ts'), OBSERVE.replace("Deno.env.get('WHO')", "Deno.env.get('WHO_ELSE')"));
  writeFileSync(path.join(dir, 'plugin.yaml'), `id: tool.tape\nversion: 1.0.0\nkind: tool\nentry: mod.ts\ndescription: tape test\nsandbox: trusted\npermissions: { read: ["\${plugin}"], env: [WHO, WHO_ELSE] }\nexports: [observe]\n`);
  const replay = new ReplayTape(recording.effects, 'persona-x cycle 3');
  await assert.rejects(run(dir, replay, {}), (e: unknown) => {
    assert.ok(e instanceof KernelError);
    assert.match(e.message, /persona-x cycle 3: effect \d+: recorded env\.get \{"name":"WHO"\}, but the code asked for env\.get \{"name":"WHO_ELSE"\}/);
    return true;
  });
  // the tape keeps the divergence with its code, whatever the plugin made of the error thrown into it
  assert.equal(replay.divergence?.code, 'RTC_ERR_REPLAY_DIVERGED');
});
