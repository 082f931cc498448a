import { scienceReport } from '../report.ts';
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { PersonaRuntime } from '../../persona/persona-runtime.ts';
import { openLoopKernel } from '../preset.ts';
import { runCli } from '../../../test/support/cli.ts';
import { budgeted, CACHE_DIR, fakeEnv, fakeTime, packet, tempDir } from './helpers.ts';

test('the kernel keeps at most maxResidentIsolates plugin isolates alive; released plugins rebuild on use and still replay', async () => {
  const dir = tempDir('rtc-resident-');
  const stateDir = path.join(dir, 'state');
  const time = fakeTime();
  const kernel = await openLoopKernel({ stateDir, env: fakeEnv(), cacheDir: CACHE_DIR, clock: time.clock, maxResidentIsolates: 2, spendTokens: false });
  const ids = ['ana', 'bea', 'cy'];
  const runtimes = [];
  for (const id of ids) runtimes.push(await PersonaRuntime.open(kernel, budgeted(dir, id, 'executor.orchestra')));
  try {
    for (let round = 1; round <= 2; round++) {
      for (const id of ids) packet(stateDir, id, `q${round}.md`, `# Question ${round} for ${id}\n`);
      for (const rt of runtimes) {
        const report = scienceReport(await rt.cycle());
        assert.ok(report.act.decision !== null, `${rt.profile.id} cycle ${round} called its budget policy`);
        assert.ok(kernel.resident.resident <= 2, `at most 2 isolates alive (have ${kernel.resident.resident})`);
      }
      time.advance(3600_000);
    }
    assert.ok(kernel.resident.released >= 4, `isolates were released and rebuilt (released ${kernel.resident.released})`);
  } finally {
    for (const rt of runtimes) await rt.close();
  }
  const replay = await runCli(['replay', '--state-dir', stateDir, '--json']);
  assert.equal(replay.status, 0, replay.stdout);
  assert.deepEqual(JSON.parse(replay.stdout).personas.map((p: { persona: string; cycles: number }) => [p.persona, p.cycles]), ids.map((id) => [id, 2]));
});
