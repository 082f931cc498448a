/**
 * `runtimectl ledger ...` driven in-process through main() with a captured io (one real
 * spawn at the end checks the binary end to end): a scripted session on both backends,
 * JSON output, and one-line errors with a non-zero status.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { main } from '../../../cli/main.ts';
import { BACKENDS, tempDir } from './helpers.ts';

const ROOT = path.resolve(import.meta.dirname, '../../..');

interface Ran {
  status: number;
  stdout: string;
  stderr: string;
}

async function cli(stateDir: string, ...argv: string[]): Promise<Ran> {
  let stdout = '';
  let stderr = '';
  const status = await main(argv, {
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
    cwd: stateDir,
    env: { SCIDEX_AGENT_STATE_DIR: stateDir },
  });
  return { status, stdout, stderr };
}

async function json(stateDir: string, ...argv: string[]): Promise<Record<string, unknown>> {
  const ran = await cli(stateDir, ...argv, '--json');
  assert.equal(ran.status, 0, ran.stderr);
  return JSON.parse(ran.stdout) as Record<string, unknown>;
}

function oneLineError(ran: Ran, code: string, ...parts: string[]): void {
  assert.notEqual(ran.status, 0);
  assert.equal(ran.stderr.trimEnd().split('\n').length, 1, `one line: ${ran.stderr}`);
  assert.ok(ran.stderr.startsWith(`runtimectl: ${code}: `), ran.stderr);
  for (const part of parts) assert.ok(ran.stderr.includes(part), `${ran.stderr} lacks ${part}`);
}

for (const backend of BACKENDS) {
  describe(`runtimectl ledger on ${backend}`, () => {
    test('a scripted session: init, add, move, lease, checkpoint, surprise, list', async () => {
      const state = tempDir();
      const p = ['--persona', 'alice', '--backend', backend];
      assert.deepEqual(await json(state, 'ledger', 'init', ...p), {
        persona: 'alice',
        status: 'created',
        dbPath: 'orchestra/orchestra.db',
        backend,
        personaId: 'alice',
      });
      assert.equal((await json(state, 'ledger', 'init', '--persona', 'alice'))['status'], 'existing');
      assert.ok(fs.existsSync(path.join(state, 'alice/orchestra/orchestra.db')), 'state dir from SCIDEX_AGENT_STATE_DIR');

      const added = await cli(state, 'ledger', 'add', ...p, '--title', 'alloc slice', '--by', 'lead', '--now', '100');
      assert.equal(added.stdout, 'T-0001  proposed      alloc slice\n');
      assert.equal((await cli(state, 'ledger', 'move', 'T-0001', 'ready', ...p, '--now', '101')).stdout, 'T-0001: proposed → ready\n');
      oneLineError(await cli(state, 'ledger', 'move', 'T-0001', 'accepted', ...p), 'RTC_ERR_LEDGER_TRANSITION', '"ready"', 'implementing, blocked');
      oneLineError(await cli(state, 'ledger', 'move', 'T-0001', 'done', ...p), 'RTC_ERR_LEDGER_INPUT', 'proposed, ready');

      const lease = await json(state, 'ledger', 'lease', 'acquire', 'vm/guest-1', ...p, '--owner', 'worker-a', '--ttl', '15m', '--now', '1000');
      assert.deepEqual(lease['lease'], { resource: 'vm/guest-1', owner: 'worker-a', acquiredAt: 1000, renewedAt: 1000, ttlMs: 900_000, expiresAt: 901_000 });
      oneLineError(await cli(state, 'ledger', 'lease', 'acquire', 'vm/guest-1', ...p, '--owner', 'worker-b', '--ttl', '1s', '--now', '2000000'), 'RTC_ERR_LEDGER_LEASE_STALE', 'reconcile first');
      assert.match((await cli(state, 'ledger', 'lease', 'reconcile', 'vm/guest-1', ...p, '--owner-gone', '--now', '2000001')).stdout, /worker-a is gone/);
      assert.equal((await cli(state, 'ledger', 'lease', 'acquire', 'vm/guest-1', ...p, '--owner', 'worker-b', '--ttl', '1s', '--now', '2000002')).status, 0);
      assert.match((await cli(state, 'ledger', 'lease', 'list', ...p, '--now', '2000003')).stdout, /vm\/guest-1 {2}worker-b {2}\(held, 999 ms left\)/);

      const body = path.join(state, 'cp.yaml');
      fs.writeFileSync(body, 'changedPaths: [src/a.c]\ncommands:\n  - {command: make test, result: ok, exitCode: 0}\nnextAction: hand off\n');
      assert.equal((await cli(state, 'ledger', 'checkpoint', 'add', 'T-0001', ...p, '--file', body, '--now', '5')).status, 0);
      await cli(state, 'ledger', 'checkpoint', 'add', 'T-0001', ...p, '--next-action', 'verify', '--changed', 'a', '--changed', 'b', '--now', '6');
      const shown = await json(state, 'ledger', 'checkpoint', 'show', 'T-0001', ...p);
      assert.deepEqual((shown['checkpoint'] as { seq: number; body: { changedPaths: string[] } }).body.changedPaths, ['a', 'b']);
      assert.equal(((await json(state, 'ledger', 'checkpoint', 'list', 'T-0001', ...p))['checkpoints'] as unknown[]).length, 2);
      fs.writeFileSync(body, `nextAction: '${'x'.repeat(2001)}'\n`);
      oneLineError(await cli(state, 'ledger', 'checkpoint', 'add', 'T-0001', ...p, '--file', body), 'RTC_ERR_LEDGER_INPUT', 'checkpoint.nextAction');

      const recorded = await cli(state, 'ledger', 'surprise', 'record', ...p, '--observation', 'trace mismatch', '--evidence', 'ev/1', '--affects', 'T-0001');
      assert.equal(recorded.stdout, 'recorded S-0001; blocked: T-0001\n');
      assert.equal((await cli(state, 'ledger', 'list', ...p, '--state', 'blocked')).stdout, 'T-0001  blocked       alloc slice (from ready, by surprise)\n1 task(s)\n');
      oneLineError(await cli(state, 'ledger', 'move', 'T-0001', 'ready', ...p), 'RTC_ERR_LEDGER_BLOCKED', 'S-0001');
      assert.equal((await cli(state, 'ledger', 'surprise', 'resolve', 'S-0001', ...p, '--outcome', 'survives')).stdout, 'resolved S-0001; unblocked: T-0001\n');
      assert.match((await cli(state, 'ledger', 'surprise', 'list', ...p)).stdout, /S-0001 {2}resolved {2}trace mismatch {2}\(resolved: survives\)/);

      const listed = await json(state, 'ledger', 'list', ...p);
      const tasks = listed['tasks'] as { id: string; state: string; history: unknown[] }[];
      assert.deepEqual([listed['backend'], listed['dbPath'], tasks[0]?.state, tasks[0]?.history.length], [backend, 'orchestra/orchestra.db', 'ready', 4]);
    });
  });
}

describe('runtimectl ledger errors', () => {
  test('usage and lookup errors are one line with a non-zero status', async () => {
    const state = tempDir();
    oneLineError(await cli(state, 'ledger', 'list'), 'RTC_ERR_CLI_USAGE', '--persona');
    oneLineError(await cli(state, 'ledger', 'list', '--persona', '../etc'), 'RTC_ERR_LEDGER_CONFIG', '../etc');
    oneLineError(await cli(state, 'ledger', 'list', '--persona', 'nobody'), 'RTC_ERR_PERSONA_NOT_FOUND', 'persona nobody has no folder');
    oneLineError(await cli(state, 'ledger', 'add', '--persona', 'nobody', '--title', 'x'), 'RTC_ERR_PERSONA_NOT_FOUND', 'persona nobody has no folder');
    assert.equal(fs.existsSync(path.join(state, 'nobody')), false, 'a typo never creates a persona');
    fs.mkdirSync(path.join(state, 'bare'));
    oneLineError(await cli(state, 'ledger', 'list', '--persona', 'bare'), 'RTC_ERR_LEDGER_NOT_FOUND', 'ledger init');
    await cli(state, 'ledger', 'init', '--persona', 'bare');
    oneLineError(await cli(state, 'ledger', 'list', '--persona', 'bare', '--backend', 'postgres'), 'RTC_ERR_LEDGER_INPUT', 'postgres');
    oneLineError(await cli(state, 'ledger', 'list', '--persona', 'bare', '--backend', 'sqlite'), 'RTC_ERR_LEDGER_BACKEND_MISMATCH');
    oneLineError(await cli(state, 'ledger', 'move', 'T-0001', '--persona', 'bare'), 'RTC_ERR_CLI_USAGE', 'TASK-ID STATE');
    oneLineError(await cli(state, 'ledger', 'move', 'T-0001', 'ready', '--persona', 'bare'), 'RTC_ERR_LEDGER_NOT_FOUND', 'T-0001');
    oneLineError(await cli(state, 'ledger', 'lease', 'steal', 'x', '--persona', 'bare'), 'RTC_ERR_CLI_USAGE', 'acquire, renew');
    oneLineError(await cli(state, 'ledger', 'lease', 'acquire', 'x', '--persona', 'bare', '--owner', 'a', '--ttl', 'soon'), 'RTC_ERR_CLI_USAGE', '--ttl soon');
    oneLineError(await cli(state, 'ledger', 'lease', 'reconcile', 'x', '--persona', 'bare'), 'RTC_ERR_CLI_USAGE', '--owner-gone');
    oneLineError(await cli(state, 'ledger', 'add', '--persona', 'bare', '--title', 'x', '--now', 'yesterday'), 'RTC_ERR_CLI_USAGE', '--now');
    oneLineError(await cli(state, 'ledger', 'frobnicate', '--persona', 'bare'), 'RTC_ERR_CLI_USAGE', 'frobnicate');
    oneLineError(await cli(state, 'ledger', 'list', '--persona', 'bare', '--bogus'), 'RTC_ERR_CLI_USAGE', 'bogus');
    const help = await cli(state, 'ledger', 'move', '--help');
    assert.equal(help.status, 0);
    assert.match(help.stdout, /proposed → ready → implementing/);
  });

  test('the real binary: a newer-schema ledger fails with one line and exit 1', () => {
    const state = tempDir();
    const dir = path.join(state, 'zed/orchestra');
    fs.mkdirSync(path.join(dir, 'project/.orchestra'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'project/.orchestra/config.yaml'), 'project: z\npersona_id: zed\ndb_path: orchestra/orchestra.db\nschema_version: 1\n');
    fs.writeFileSync(path.join(dir, 'orchestra.db'), '{"format":"runtimectl-ledger-jsonl","schemaVersion":2}\n');
    const run = spawnSync(process.execPath, ['--no-node-snapshot', path.join(ROOT, 'bin/runtimectl.js'), 'ledger', 'list', '--persona', 'zed', '--state-dir', state], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    assert.equal(run.status, 1, run.stderr);
    assert.equal(run.stderr, 'runtimectl: RTC_ERR_LEDGER_SCHEMA_NEWER: orchestra/orchestra.db: ledger schema version 2 is newer than the 1 this runtimectl supports; upgrade runtimectl (the file was left untouched)\n');
    assert.equal(fs.readFileSync(path.join(dir, 'orchestra.db'), 'utf8'), '{"format":"runtimectl-ledger-jsonl","schemaVersion":2}\n');
  });
});
