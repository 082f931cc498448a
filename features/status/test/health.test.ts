/**
 * `status --persona ID --stale-after S` as the containers' health check: 0 while the persona's
 * last cycle is recent, 1 when it is older than S or there is none yet, and usage errors for
 * a malformed id or limit.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { runCli } from '../../../test/support/cli.ts';
import { resolvePersonas } from '../../profiles/load.ts';
import { fakeTime, run, tempDir, T0 } from '../../science-loop/test/helpers.ts';

test('a persona whose last cycle is recent is healthy; an old one, an absent one and one never run are not', async () => {
  const dir = tempDir();
  const stateDir = path.join(dir, 'state');
  const [jerome, hypatia] = resolvePersonas(['jerome', 'hypatia']);
  // jerome cycles now; hypatia's only cycle carries a clock pinned months in the past.
  await run([jerome!], { stateDir });
  await run([hypatia!], { stateDir, clock: fakeTime(T0).clock });

  const fresh = await runCli(['status', '--state-dir', stateDir, '--persona', 'jerome', '--stale-after', '600', '--json']);
  assert.equal(fresh.status, 0, fresh.stderr);
  const json = JSON.parse(fresh.stdout);
  assert.deepEqual(json.personas.map((p: { persona_id: string }) => p.persona_id), ['jerome'], '--persona lists that persona only');
  assert.deepEqual(json.stale, []);

  const old = await runCli(['status', '--state-dir', stateDir, '--persona', 'hypatia', '--stale-after', '600']);
  assert.equal(old.status, 1);
  assert.match(old.stderr, /^runtimectl status: persona hypatia: last cycle #1 was \d+ s ago \(limit 600 s\)\n$/);

  const never = await runCli(['status', '--state-dir', stateDir, '--persona', 'mendel', '--stale-after', '600']);
  assert.equal(never.status, 1);
  assert.equal(never.stderr, 'runtimectl status: persona mendel: no cycle yet\n');
  assert.match(never.stdout, /^persona mendel has not run under /);

  const all = await runCli(['status', '--state-dir', stateDir, '--stale-after', '600']);
  assert.equal(all.status, 1, 'without --persona every listed persona is checked');
  assert.match(all.stderr, /persona hypatia: last cycle/);
  assert.doesNotMatch(all.stderr, /jerome/);
  assert.equal((await runCli(['status', '--state-dir', stateDir, '--persona', 'jerome'])).status, 0, 'no limit: no staleness check');
});

test('status health-check flags are checked: a persona id and a whole number of seconds', async () => {
  for (const [argv, message] of [
    [['status', '--persona', '../etc'], /--persona "\.\.\/etc": not a persona id/],
    [['status', '--stale-after', '0'], /--stale-after 0: must be a whole number of seconds above zero/],
    [['status', '--stale-after', '5m'], /--stale-after 5m/],
  ] as const) {
    const r = await runCli([...argv], { cwd: tempDir() });
    assert.equal(r.status, 2, argv.join(' '));
    assert.match(r.stderr, message);
  }
});
