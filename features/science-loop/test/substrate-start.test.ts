import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { copyPlugins } from '../../../test/support/plugins.ts';
import path from 'node:path';
import { test } from 'node:test';
import { PersonaRuntime } from '../../persona/persona-runtime.ts';
import { openLoopKernel } from '../preset.ts';
import { PLUGINS_DIR } from '../../plugin-search/scan.ts';
import { budgeted, CACHE_DIR, events, fakeEnv, fakeTime, tempDir } from './helpers.ts';

/** Starts the kernel on `stateDir` with `pluginsDir`, opens one persona, and returns what its start event says of the substrate. */
async function start(stateDir: string, pluginsDir: string, dir: string): Promise<{ status: string; changes: string[] }> {
  const kernel = await openLoopKernel({ stateDir, env: fakeEnv(), pluginsDir, cacheDir: CACHE_DIR, clock: fakeTime().clock });
  const runtime = await PersonaRuntime.open(kernel, budgeted(dir, 'sia', 'executor.none'));
  await runtime.close();
  return events(stateDir, 'sia').filter((e) => e.type === 'persona_start').at(-1)!.payload.substrate as { status: string; changes: string[] };
}

test('the first start records the substrate, the next verifies it, and a changed plugin is named in the start event', async () => {
  const dir = tempDir('rtc-substrate-');
  const plugins = path.join(dir, 'plugins');
  copyPlugins(plugins);
  const stateDir = path.join(dir, 'state');

  assert.deepEqual(await start(stateDir, plugins, dir), { status: 'recorded', changes: [] });
  assert.ok(existsSync(path.join(stateDir, 'substrate.json')));
  assert.deepEqual(await start(stateDir, plugins, dir), { status: 'verified', changes: [] });

  const entry = path.join(plugins, 'executor-none', 'mod.ts');
  writeFileSync(entry, `${readFileSync(entry, 'utf8')}\nexport const upgraded = 2;\n`);
  const changed = await start(stateDir, plugins, dir);
  assert.equal(changed.status, 'changed');
  assert.equal(changed.changes.length, 1);
  assert.match(changed.changes[0]!, /^executor-none\/mod\.ts: executor\.none: isolate bundle digest changed since recorded \([0-9a-f]{12}… → [0-9a-f]{12}…\): input mod\.ts changed/);
  // the new baseline: the next start verifies again
  assert.deepEqual(await start(stateDir, plugins, dir), { status: 'verified', changes: [] });
});

test('a substrate record that is not one stops the start with the file named, and is left as it is', async () => {
  const dir = tempDir('rtc-substrate-');
  const stateDir = path.join(dir, 'state');
  await start(stateDir, PLUGINS_DIR, dir);
  writeFileSync(path.join(stateDir, 'substrate.json'), '{"format": "nope"');
  await assert.rejects(openLoopKernel({ stateDir, env: fakeEnv(), cacheDir: CACHE_DIR }), /RTC_ERR_SUBSTRATE_RECORD|substrate\.json: not valid JSON/);
  assert.equal(readFileSync(path.join(stateDir, 'substrate.json'), 'utf8'), '{"format": "nope"');
});
