/**
 * Issue 24 item 7: an error names a file the way the user can open it from where they ran the
 * command (relative to that folder, or absolute), never relative to some internal folder (the
 * checkout, the persona's folder, a plugin root); and a profile with several mistakes names
 * every one at once. One real CLI process, started from a folder of its own.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const BIN = path.resolve(import.meta.dirname, '..', '..', 'bin', 'runtimectl.js');

test('from a folder of its own: every path in the errors opens from there; every problem of a profile is in its line', () => {
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'rtc-paths-'));
  // A profile with three mistakes.
  writeFileSync(path.join(cwd, 'bad.yaml'), 'id: bad\nruntime: agent-bad\ncadence: { cycle_seconds: -1 }\nphases: [lunch]\nexecutor: { plugin: not-a-plugin-id }\n');
  // A persona whose state folder holds a hand-edited persistence.yaml that does not parse.
  writeFileSync(path.join(cwd, 'ok.yaml'), 'id: ok\nruntime: operon\n');
  mkdirSync(path.join(cwd, 'st', 'ok'), { recursive: true });
  writeFileSync(path.join(cwd, 'st', 'ok', 'persistence.yaml'), 'backend: {sqlite\n');
  // A plugin folder with a bad manifest.
  mkdirSync(path.join(cwd, 'plg', 'tool-x'), { recursive: true });
  writeFileSync(path.join(cwd, 'plg', 'tool-x', 'plugin.yaml'), 'id: tool.x\nversion: 1\nkind: tool\n');
  const r = spawnSync(process.execPath, ['--no-node-snapshot', BIN, 'run', '--persona', 'bad.yaml', 'ok.yaml', '--plugins-dir', 'plg', '--state-dir', 'st', '--cycles', '1'], { cwd, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: cwd } });
  assert.equal(r.status, 1, r.stderr);
  const lines = r.stderr.trimEnd().split('\n');
  const profile = lines.find((l) => l.includes('RTC_ERR_MANIFEST_INVALID: bad.yaml: '));
  assert.ok(profile, r.stderr);
  for (const field of ['executor.plugin', 'phases[0]', 'cadence.cycle_seconds']) assert.ok(profile.includes(`${field}: `), `${field} is named: ${profile}`);
  const plugin = lines.find((l) => l.startsWith('runtimectl: refused plugin '));
  assert.match(plugin ?? '', /plg\/tool-x\/plugin\.yaml: version: .*; description: /, r.stderr);
  const persistence = lines.find((l) => l.includes('RTC_ERR_PERSISTENCE_CONFIG'));
  assert.match(persistence ?? '', /persona ok: RTC_ERR_PERSISTENCE_CONFIG: st\/ok\/persistence\.yaml:\d+:\d+: /, r.stderr);
  // Every path named in the errors opens from the folder the command ran in.
  for (const shown of [...r.stderr.matchAll(/(?:^|\s)((?:[\w.-]+\/)*[\w.-]+\.yaml)(?::\d+:\d+)?:/gm)].map((m) => m[1]!)) {
    assert.ok(existsSync(path.resolve(cwd, shown)), `${shown} opens from ${cwd}`);
  }
});
