/**
 * `run --json` streams one JSON object per cycle as each cycle ends (an endless run is
 * watchable), then one run_end object; `run` prints a line when a cycle's boundary applies
 * an accepted proposal.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import type { CliIo } from '../../command/command.ts';
import { main } from '../../../cli/main.ts';
import { ReviewQueue } from '../../review-queue/index.ts';
import { makeOperators } from '../../../test/support/operator.ts';
import { runCli } from '../../../test/support/cli.ts';
import { fakeEnv, tempDir } from './helpers.ts';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { persistenceProvider } from '../../persistence/provider.ts';

const { alice } = makeOperators(['alice']);

function profileFile(dir: string): string {
  const file = path.join(dir, 'ada.yaml');
  writeFileSync(file, 'id: ada\nruntime: agent-ada\nexecutor: { plugin: executor.none }\n');
  return file;
}

test('run --json prints each cycle as it ends, one object a line, then run_end', async () => {
  const dir = tempDir();
  const stateDir = path.join(dir, 'state');
  // With each line: how many cycles the log holds at the moment it is printed.
  const lines: { logged: number; text: string }[] = [];
  const logged = () => (existsSync(path.join(stateDir, 'ada', 'logs', 'events.jsonl')) ? readFileSync(path.join(stateDir, 'ada', 'logs', 'events.jsonl'), 'utf8').split('\n').filter((l) => l.includes('"type":"continuous_loop_cycle"')).length : 0);
  const io: CliIo = {
    stdout: (t) => {
      for (const l of t.split('\n').filter((x) => x !== '')) lines.push({ logged: logged(), text: l });
    },
    stderr: () => undefined,
    cwd: dir,
    env: fakeEnv(),
  };
  const status = await main(['run', '--persona', profileFile(dir), '--cycles', '3', '--every', '0', '--json', '--state-dir', stateDir], io);
  assert.equal(status, 0);
  const objects = lines.map((l) => JSON.parse(l.text) as { type: string; cycle?: number; persona_id?: string; review?: unknown; personas?: unknown });
  assert.deepEqual(objects.map((o) => o.type), ['cycle', 'cycle', 'cycle', 'run_end']);
  assert.deepEqual(objects.slice(0, 3).map((o) => o.cycle), [1, 2, 3]);
  assert.ok(objects.slice(0, 3).every((o) => o.persona_id === 'ada' && typeof o.review === 'object'));
  assert.deepEqual(objects[3]!.personas, [{ persona_id: 'ada', stopped: null, refused: null, cycles: 3 }]);
  assert.deepEqual(lines.slice(0, 3).map((l) => l.logged), [1, 2, 3], 'each cycle is printed as it ends, before the next one runs');
});

test('run prints when an accepted proposal is applied at a cycle boundary', async () => {
  const dir = tempDir();
  const stateDir = path.join(dir, 'state');
  const run = async () => {
    let out = '';
    const io: CliIo = { stdout: (t) => void (out += t), stderr: () => undefined, cwd: dir, env: { ...fakeEnv(), ...alice!.env } };
    assert.equal(await main(['run', '--persona', profileFile(dir), '--cycles', '1', '--every', '0', '--state-dir', stateDir], io), 0);
    return out;
  };
  await run();
  const queue = await ReviewQueue.open(path.join(stateDir, 'ada'), persistenceProvider, {});
  let id: string;
  try {
    const first = JSON.parse(readFileSync(path.join(stateDir, 'ada', 'logs', 'events.jsonl'), 'utf8').split('\n')[0]!) as { hash: string };
    const submitted = queue.submit({ kind: 'memory-promotion', proposer: 'loop', evidence: [{ ref: 'logs/events.jsonl#1', digest: `sha256:${first.hash}` }], text: 'Remember this.' }, { now: Date.now() });
    assert.equal(submitted.status, 'queued');
    id = submitted.proposal.id;
  } finally {
    await queue.close();
  }
  // accepted with alice's credential, as an operator does; the kernel trusts her key
  const accepted = await runCli(['proposals', 'accept', id, '--state-dir', stateDir], { env: alice!.env });
  assert.equal(accepted.status, 0, accepted.stderr);
  const out = await run();
  assert.match(out, new RegExp(`^ada #2: applied accepted proposal ${id} at this cycle's boundary \\(runtimectl proposals show ${id}\\)$`, 'm'));
  assert.match(out, /^ada #2 /m);
});
