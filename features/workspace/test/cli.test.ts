/** `runtimectl workspace prepare`, in process through main(), and once as a real process. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { main } from '../../../cli/main.ts';
import type { CliIo } from '../../command/command.ts';

const REPO = path.resolve(import.meta.dirname, '../../..');

async function run(argv: string[], cwd: string, env: NodeJS.ProcessEnv = {}) {
  let stdout = '';
  let stderr = '';
  const io: CliIo = { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), cwd, env };
  const status = await main(argv, io);
  return { status, stdout, stderr };
}

test('the spec example: --json prints the manifest; the second run is unchanged', async () => {
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'rtc-'));
  fs.mkdirSync(path.join(cwd, 'scidex-agents'));
  const argv = [
    'workspace', 'prepare', '--agent-id', 'persona-kris-ganjam', '--workspace-id', 'demo-kris',
    '--resource', 'artifact:hypothesis:example', '--local-resource', 'repo:agents=scidex-agents', '--json',
  ];
  const first = await run(argv, cwd);
  assert.equal(first.status, 0, first.stderr);
  const doc = JSON.parse(first.stdout);
  assert.equal(doc.created, true);
  assert.equal(doc.dir, path.join(cwd, 'state', 'workspaces', 'demo-kris'), 'default state dir is ./state');
  assert.equal(doc.manifest.local_resources[0].target, path.join(cwd, 'scidex-agents'));
  assert.ok(doc.manifest.skill_catalog.skills >= 3, "the repo's skills are visible by default");

  const second = await run(argv.filter((a) => a !== '--json'), cwd);
  assert.equal(second.status, 0);
  assert.match(second.stdout, /^workspace demo-kris for persona-kris-ganjam: unchanged$/m);
});

test('SCIDEX_AGENT_STATE_DIR is the default state dir; --state-dir wins over it', async () => {
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'rtc-'));
  const env = { SCIDEX_AGENT_STATE_DIR: path.join(cwd, 'from-env') };
  assert.equal((await run(['workspace', 'prepare', '--agent-id', 'a', '--workspace-id', 'w'], cwd, env)).status, 0);
  assert.ok(fs.existsSync(path.join(cwd, 'from-env', 'workspaces', 'w', 'manifests', 'workspace.json')));
  assert.equal((await run(['workspace', 'prepare', '--agent-id', 'a', '--workspace-id', 'w', '--state-dir', 'flag'], cwd, env)).status, 0);
  assert.ok(fs.existsSync(path.join(cwd, 'flag', 'workspaces', 'w')));
});

test('bad input is one line and a non-zero exit', async () => {
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'rtc-'));
  const missing = await run(['workspace', 'prepare', '--workspace-id', 'w'], cwd);
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /^runtimectl: RTC_ERR_CLI_USAGE: --agent-id is required/);
  const unsafe = await run(['workspace', 'prepare', '--agent-id', 'a', '--workspace-id', '../escape'], cwd);
  assert.equal(unsafe.status, 1);
  assert.equal(unsafe.stderr, 'runtimectl: RTC_ERR_WORKSPACE_ID_INVALID: workspace id "../escape" contains a path separator\n');
  const kind = await run(['workspace', 'prepare', '--agent-id', 'a', '--workspace-id', 'w', '--local-resource', `space:s=${cwd}`], cwd);
  assert.equal(kind.status, 1);
  assert.match(kind.stderr, /kind "space" is not one of repo, artifact, tool\n$/);
  assert.equal(fs.existsSync(path.join(cwd, 'state')), false);
});

test('end to end through bin/runtimectl.js', () => {
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'rtc-'));
  const result = spawnSync(
    process.execPath,
    ['--no-node-snapshot', path.join(REPO, 'bin', 'runtimectl.js'), 'workspace', 'prepare', '--agent-id', 'a', '--workspace-id', 'w', '--local-resource', `tool:t=${REPO}`],
    { cwd, encoding: 'utf8', env: { ...process.env, SCIDEX_AGENT_STATE_DIR: '' } },
  );
  assert.equal(result.status, 0, result.stderr);
  assert.match(result.stdout, /workspace w for a: created/);
  assert.equal(fs.readlinkSync(path.join(cwd, 'state', 'workspaces', 'w', 'tools', 't')), REPO);
});
