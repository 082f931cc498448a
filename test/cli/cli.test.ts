import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { main } from '../../cli/main.ts';
import { COMMANDS } from '../../cli/commands.ts';

const root = path.resolve(import.meta.dirname, '../..');

function capture(argv: string[]) {
  let stdout = '';
  let stderr = '';
  return main(argv, { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), cwd: root, env: {} }).then((code) => ({ code, stdout, stderr }));
}

test('--help lists every command; --version prints the version', async () => {
  const help = await capture(['--help']);
  assert.equal(help.code, 0);
  for (const c of COMMANDS) assert.ok(help.stdout.includes(c.path.join(' ')), c.path.join(' '));
  assert.match((await capture(['--version'])).stdout, /^runtimectl \d+\.\d+\.\d+\n$/);
});

test('every subcommand answers --help with its usage', async () => {
  for (const c of COMMANDS) {
    const r = await capture([...c.path, '--help']);
    assert.equal(r.code, 0, c.path.join(' '));
    assert.match(r.stdout, /Usage: runtimectl /, c.path.join(' '));
  }
});

test('an unknown command or flag is one line on stderr and exit 2', async () => {
  const unknown = await capture(['frobnicate']);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /^runtimectl: RTC_ERR_CLI_USAGE: unknown command "frobnicate"; see "runtimectl --help"\n$/);
  const flag = await capture(['plugins', 'list', '--frob']);
  assert.equal(flag.code, 2);
  assert.equal(flag.stderr.split('\n').filter(Boolean).length, 1);
});

test('the bin passes --no-node-snapshot itself; without it the kernel stops with one line', () => {
  const env = { ...process.env, NODE_OPTIONS: '' };
  const ok = spawnSync(path.join(root, 'bin/runtimectl.js'), ['--version'], { env, encoding: 'utf8' });
  assert.equal(ok.status, 0);
  const bare = spawnSync(process.execPath, [path.join(root, 'bin/runtimectl.js'), 'plugins', 'list'], { env, encoding: 'utf8' });
  assert.equal(bare.status, 1);
  assert.equal(bare.stderr, 'runtimectl: RTC_ERR_NODE_FLAGS: isolated-vm needs Node started with --no-node-snapshot; run `node --no-node-snapshot ...` or set NODE_OPTIONS=--no-node-snapshot\n');
});

test('plugins check builds every shipped plugin (all isolate bundles, persistence backends and the ledger included) and exits 0', async () => {
  const r = await capture(['plugins', 'check', '--json']);
  const report = JSON.parse(r.stdout) as { ok: boolean; plugins: { id: string; ok: boolean; bundle?: { kind: string } }[] };
  assert.equal(r.code, 0, r.stderr);
  assert.ok(report.ok);
  assert.ok(report.plugins.length >= 8);
  assert.deepEqual(report.plugins.filter((p) => !p.ok), []);
  assert.equal(report.plugins.find((p) => p.id === 'persistence.sqlite')?.bundle?.kind, 'isolate');
  assert.equal(report.plugins.find((p) => p.id === 'ledger.orchestra')?.bundle?.kind, 'isolate');
  assert.equal(report.plugins.find((p) => p.id === 'executor.none')?.bundle?.kind, 'isolate');
});
