/**
 * Issue 24 item 7: after `npm ci` the `runtimectl` bin is on nobody's PATH, so every hint the
 * CLI prints (`see "runtimectl run --help"`, usage lines, "Inspect: runtimectl status ...")
 * names runtimectl the way the user ran it, and can be run as printed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { invokedAs, setProgramVerbs, withProgram } from '../../features/command/program.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const BIN = path.join(ROOT, 'bin', 'runtimectl.js');

function temp(): string {
  return mkdtempSync(path.join(os.tmpdir(), 'rtc-program-'));
}

test('how runtimectl was started decides the name hints print: PATH, npm, else the bin as typed from the cwd', () => {
  const none = { PATH: '/usr/bin:/bin' };
  // In-process (a test, a bench): the plain name.
  assert.equal(invokedAs({ script: path.join(ROOT, 'test', 'run-tests.ts'), env: none, cwd: ROOT }), 'runtimectl');
  assert.equal(invokedAs({ script: undefined, env: none, cwd: ROOT }), 'runtimectl');
  // The bin run by path: as typed from where the user stands.
  assert.equal(invokedAs({ script: BIN, env: none, cwd: ROOT }), 'bin/runtimectl.js');
  assert.equal(invokedAs({ script: BIN, env: none, cwd: path.join(ROOT, 'bin') }), './runtimectl.js');
  const elsewhere = temp();
  assert.equal(invokedAs({ script: BIN, env: none, cwd: elsewhere }), BIN);
  // npm started it from this checkout (npx runtimectl, npm start): npx runtimectl works anywhere inside it.
  assert.equal(invokedAs({ script: BIN, env: { ...none, npm_command: 'exec', npm_config_local_prefix: ROOT }, cwd: path.join(ROOT, 'features') }), 'npx runtimectl');
  assert.equal(invokedAs({ script: BIN, env: { ...none, npm_command: 'start', npm_config_local_prefix: ROOT }, cwd: ROOT }), 'npx runtimectl');
  // npm of another project: npx would not find this runtimectl there.
  assert.equal(invokedAs({ script: BIN, env: { ...none, npm_command: 'exec', npm_config_local_prefix: elsewhere }, cwd: ROOT }), 'bin/runtimectl.js');
  // On PATH (npm link, the container's /usr/local/bin link): the plain name, but only when PATH's first runtimectl is this one.
  const linked = temp();
  symlinkSync(BIN, path.join(linked, 'runtimectl'));
  assert.equal(invokedAs({ script: BIN, env: { PATH: `${linked}:/usr/bin` }, cwd: elsewhere }), 'runtimectl');
  const other = temp();
  copyFileSync(BIN, path.join(other, 'runtimectl'));
  chmodSync(path.join(other, 'runtimectl'), 0o755);
  assert.equal(invokedAs({ script: BIN, env: { PATH: `${other}:${linked}` }, cwd: elsewhere }), BIN, 'another runtimectl first on PATH is not this one');
  // A copy of the checkout without the bin's executable bit: node is named.
  const copy = temp();
  mkdirSync(path.join(copy, 'bin'));
  copyFileSync(BIN, path.join(copy, 'bin', 'runtimectl.js'));
  chmodSync(path.join(copy, 'bin', 'runtimectl.js'), 0o644);
  assert.equal(invokedAs({ script: path.join(copy, 'bin', 'runtimectl.js'), env: none, cwd: copy }), 'node --no-node-snapshot bin/runtimectl.js');
});

test('only "runtimectl <verb>" hints are rewritten: prose, the "runtimectl:" prefix and other words stay', () => {
  setProgramVerbs(['run', 'status', 'archive']);
  const p = 'npx runtimectl';
  assert.equal(withProgram('see "runtimectl run --help"', p), 'see "npx runtimectl run --help"');
  assert.equal(withProgram('Usage: runtimectl status [--json]\n       runtimectl archive restore', p), 'Usage: npx runtimectl status [--json]\n       npx runtimectl archive restore');
  assert.equal(withProgram('(runtimectl --help)', p), '(npx runtimectl --help)');
  assert.equal(withProgram('runtimectl: RTC_ERR_X: newer than this runtimectl supports; upgrade runtimectl', p), 'runtimectl: RTC_ERR_X: newer than this runtimectl supports; upgrade runtimectl');
  assert.equal(withProgram('/opt/runtimectl run', p), '/opt/runtimectl run', 'a path that ends in runtimectl is not a hint');
  assert.equal(withProgram('see "runtimectl run --help"', 'runtimectl'), 'see "runtimectl run --help"');
  assert.equal(withProgram('see "runtimectl run --help"', undefined), 'see "runtimectl run --help"');
});

test('a hint the real CLI prints runs as printed: bin/runtimectl.js from the checkout, runtimectl once linked on PATH', () => {
  // Started by path from the checkout: the error's hint names bin/runtimectl.js, and that command works.
  const first = spawnSync(process.execPath, ['--no-node-snapshot', BIN, 'run'], { cwd: ROOT, encoding: 'utf8', env: { PATH: process.env.PATH } });
  assert.equal(first.status, 2);
  const printed = /see "([^"]+)"/.exec(first.stderr)?.[1];
  assert.equal(printed, 'bin/runtimectl.js run --help', first.stderr);
  const help = execFileSync('/bin/sh', ['-c', printed!], { cwd: ROOT, encoding: 'utf8', env: { PATH: process.env.PATH } });
  assert.match(help, /^Usage: bin\/runtimectl\.js run --persona ID_OR_FILE/);
  assert.doesNotMatch(help, /(^|\s)runtimectl run /m, 'the usage names the program as it was run');
  // Linked on PATH (npm link does this): the plain name, and the shell finds it.
  const linked = temp();
  symlinkSync(BIN, path.join(linked, 'runtimectl'));
  const env = { PATH: `${linked}:${process.env.PATH}` };
  const second = spawnSync('/bin/sh', ['-c', 'runtimectl proposals show'], { cwd: temp(), encoding: 'utf8', env });
  assert.equal(second.status, 2, second.stderr);
  assert.match(second.stderr, /see "runtimectl proposals show --help"/);
});
