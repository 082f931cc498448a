/**
 * The precompiled CLI (bin/build-cli.mjs → .build/runtimectl.mjs): the bin runs it only while
 * every source it was built from is unchanged and the checkout is where it was built (else
 * the sources through tsx, never a stale build), and it answers as the sources do, a persona
 * on a persistence backend plugin included.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
// @ts-expect-error plain JS module without types
import { freshBuild } from '../../bin/build-state.mjs';
// @ts-expect-error plain JS module without types
import { buildCli } from '../../bin/build-cli.mjs';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const BIN = path.join(ROOT, 'bin', 'runtimectl.js');

function fakeCheckout(): { root: string; source: string } {
  const root = mkdtempSync(path.join(os.tmpdir(), 'rtc-build-'));
  mkdirSync(path.join(root, '.build'));
  mkdirSync(path.join(root, 'kernel'));
  const source = path.join(root, 'kernel', 'a.ts');
  writeFileSync(source, 'export const a = 1;\n');
  const st = statSync(source);
  writeFileSync(path.join(root, '.build', 'runtimectl.json'), JSON.stringify({ format: 'runtimectl.build/1', root, inputs: { 'kernel/a.ts': [st.size, st.mtimeMs] } }));
  return { root, source };
}

test('a build runs only while its sources are unchanged, in the checkout it was built in', () => {
  const { root, source } = fakeCheckout();
  assert.equal(freshBuild(root, {}).bundle, path.join(root, '.build', 'runtimectl.mjs'));
  assert.match(freshBuild(root, { RUNTIMECTL_NO_BUILD: '1' }).reason, /RUNTIMECTL_NO_BUILD/);
  assert.match(freshBuild(path.join(root, 'kernel'), {}).reason, /no build/);
  // a touched file (same bytes) is a changed file
  const later = new Date(Date.now() + 5000);
  utimesSync(source, later, later);
  assert.match(freshBuild(root, {}).reason, /kernel\/a\.ts changed since the build/);
  const moved = fakeCheckout();
  const manifest = path.join(moved.root, '.build', 'runtimectl.json');
  writeFileSync(manifest, JSON.stringify({ format: 'runtimectl.build/1', root: '/elsewhere', inputs: {} }));
  assert.match(freshBuild(moved.root, {}).reason, /built in \/elsewhere/);
});

test('the precompiled CLI answers as the sources do, persistence backends included', async () => {
  if (!freshBuild(ROOT, {}).bundle) await buildCli({ quiet: true });
  assert.ok(freshBuild(ROOT, {}).bundle, 'the build is fresh after building');
  const cli = (args: string[], env: Record<string, string> = {}) =>
    execFileSync(process.execPath, ['--no-node-snapshot', BIN, ...args], { cwd: ROOT, env: { ...process.env, ...env }, encoding: 'utf8' });
  assert.equal(cli(['--version']), cli(['--version'], { RUNTIMECTL_NO_BUILD: '1' }));
  assert.equal(cli(['plugins', 'list', '--json']), cli(['plugins', 'list', '--json'], { RUNTIMECTL_NO_BUILD: '1' }));
  // a persona on the sqlite backend: the backend plugin is bundled for its isolate at run time, as the sources do
  const dir = mkdtempSync(path.join(os.tmpdir(), 'rtc-build-run-'));
  const profile = path.join(dir, 'ada.yaml');
  writeFileSync(profile, 'id: ada\nruntime: agent-ada\npersistence: persistence.sqlite\nexecutor: { plugin: executor.none }\n');
  const out = cli(['run', '--persona', profile, '--cycles', '1', '--no-spend', '--state-dir', path.join(dir, 'state'), '--json']);
  // run --json streams one object a line: each cycle as it ends, then run_end
  const lines = out.trim().split('\n').map((l) => JSON.parse(l) as Record<string, any>);
  assert.deepEqual(lines.map((l) => [l.type, l.cycle]), [['cycle', 1], ['run_end', undefined]], out);
  assert.ok(statSync(path.join(dir, 'state', 'ada', 'persistence.db')).isFile(), 'the sqlite backend wrote its database');
});
