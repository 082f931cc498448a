/**
 * `runtimectl run --workers N` against `--workers 1` (the in-process run): the same lines,
 * the same --json stream, the same errors and exit status; signals reach every worker.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { main } from '../../../../cli/main.ts';
import type { CliIo } from '../../../command/command.ts';
import { verifyEventLog } from '../../../../kernel/events/verify.ts';
import { personaPaths, workspaceDir } from '../../../persona-layout/layout.ts';
import { cycleEvents, fakeEnv, packet, tempDir } from '../../test/helpers.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..', '..', '..');

async function cli(argv: string[], cwd: string): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { stdout: (t) => out.push(t), stderr: (t) => err.push(t), cwd, env: fakeEnv() };
  const code = await main(argv, io);
  return { code, out: out.join(''), err: err.join('') };
}

function writeProfiles(dir: string): string[] {
  const ada = path.join(dir, 'ada.yaml');
  writeFileSync(ada, 'id: ada\nruntime: agent-ada\nbudget: { daily_tokens: 1000 }\nallow: { read: ["${state}"], write: ["${state}"], env: [ORCHESTRA_DB, ORCHESTRA_DB_PATH] }\nbindings: [ledger]\n');
  const files = [ada];
  for (const id of ['bo', 'cy', 'di']) {
    const file = path.join(dir, `${id}.yaml`);
    writeFileSync(file, `id: ${id}\nruntime: operon\n`);
    files.push(file);
  }
  return files;
}

/**
 * `run --json`'s stream: one {"type":"cycle"} object per cycle as it ends (threads interleave
 * them: sorted by persona and cycle here), then {"type":"run_end"} last (its state_dir dropped).
 */
function stream(out: string): { cycles: Record<string, any>[]; waits: Record<string, any>[]; end: Record<string, any> } {
  const objects = out.trim().split('\n').map((line) => JSON.parse(line) as Record<string, any>);
  const end = objects.pop()!;
  assert.equal(end.type, 'run_end', 'the stream ends with run_end');
  delete end.state_dir;
  assert.ok(objects.every((o) => o.type === 'cycle' || o.type === 'wait'), 'every other object is a cycle or a wait between two');
  const key = (o: Record<string, any>) => `${o.persona_id}#${String(o.cycle ?? o.next_cycle).padStart(6, '0')}`;
  // when a wait ends depends on the clock: the rest of it is compared
  const waits = objects.filter((o) => o.type === 'wait').map(({ next_at, ...rest }) => (assert.match(next_at, /^\d{4}-\d\d-\d\dT/), rest));
  return { cycles: objects.filter((o) => o.type === 'cycle').sort((a, b) => key(a).localeCompare(key(b))), waits: waits.sort((a, b) => key(a).localeCompare(key(b))), end };
}

test('run --workers 2 prints the same lines and the same --json stream as the in-process run, with the same exit status', async () => {
  const dir = tempDir();
  const files = writeProfiles(dir);
  const results: Record<string, { code: number; out: string; err: string }> = {};
  for (const [name, workers, json] of [['lines-1', '1', false], ['lines-2', '2', false], ['json-1', '1', true], ['json-2', '2', true]] as const) {
    const stateDir = path.join(dir, name);
    packet(stateDir, 'ada', 'q.md', '# First question\n');
    results[name] = await cli(['run', '--persona', ...files, '--cycles', '2', '--every', '0.05', '--state-dir', stateDir, '--workers', workers, ...(json ? ['--json'] : [])], dir);
  }
  for (const r of Object.values(results)) {
    assert.equal(r.err, '');
    assert.equal(r.code, 0);
  }
  // Lines interleave differently across threads; each persona's own lines come in order.
  // The wait between a persona's two cycles is a line of its own, with the clock time it ends.
  const sorted = (out: string) => out.trim().split('\n').map((l) => l.replace(/ at \d\d:\d\d:\d\d UTC/, ' at <time> UTC')).sort();
  assert.equal(sorted(results['lines-1']!.out).length, 12);
  assert.ok(sorted(results['lines-1']!.out).includes('ada: next cycle (#2) in 50 ms, at <time> UTC (--every 0.05)'), results['lines-1']!.out);
  assert.deepEqual(sorted(results['lines-2']!.out), sorted(results['lines-1']!.out));
  const one = stream(results['json-1']!.out);
  const two = stream(results['json-2']!.out);
  assert.deepEqual(two, one);
  assert.equal(two.cycles.length, 8);
  assert.deepEqual(two.waits.map((w) => [w.persona_id, w.next_cycle, w.seconds, w.source]), [['ada', 2, 0.05, 'every'], ['bo', 2, 0.05, 'every'], ['cy', 2, 0.05, 'every'], ['di', 2, 0.05, 'every']]);
  assert.deepEqual(two.end.personas.map((p: { persona_id: string; cycles: number }) => [p.persona_id, p.cycles]), [['ada', 2], ['bo', 2], ['cy', 2], ['di', 2]]);
  assert.match(two.cycles[0]!.outcome, /^executed$/);
  for (const id of ['ada', 'bo', 'cy', 'di']) assert.equal(verifyEventLog(path.join(dir, 'json-2', id, 'logs', 'events.jsonl')).ok, true);
});

test('run --workers: a bad value is a usage error; a persona that cannot start is refused with the same line as in-process, the others run', async () => {
  const dir = tempDir();
  const files = writeProfiles(dir);
  assert.deepEqual(await cli(['run', '--persona', files[1]!, '--workers', '0'], dir), { code: 2, out: '', err: 'runtimectl: RTC_ERR_CLI_USAGE: --workers 0: must be a whole number above zero, or auto\n' });
  assert.equal((await cli(['run', '--persona', files[1]!, '--workers', 'many'], dir)).code, 2);
  const runs: { code: number; out: string; err: string }[] = [];
  for (const workers of ['1', '2']) {
    const stateDir = path.join(dir, `bad-${workers}`);
    mkdirSync(path.join(stateDir, 'cy'), { recursive: true });
    writeFileSync(path.join(stateDir, 'cy', 'persistence.yaml'), 'schema_version: 1\nbackend: mongo\n');
    runs.push(await cli(['run', '--persona', ...files, '--cycles', '1', '--state-dir', stateDir, '--workers', workers, '--json'], dir));
  }
  assert.equal(runs[0]!.code, 1);
  assert.match(runs[0]!.err, /^runtimectl: RTC_ERR_PERSONA_START: persona cy: .*persistence\.mongo is not installed.*\n$/);
  assert.equal(runs[1]!.code, runs[0]!.code);
  assert.equal(runs[1]!.err, runs[0]!.err.replace('bad-1', 'bad-2'));
  assert.deepEqual(stream(runs[1]!.out), stream(runs[0]!.out));
  assert.deepEqual(stream(runs[1]!.out).end.personas.map((p: { persona_id: string; refused: string[] | null }) => [p.persona_id, p.refused === null]), [['ada', true], ['bo', true], ['di', true], ['cy', false]]);
  for (const id of ['ada', 'bo', 'di']) assert.equal(cycleEvents(path.join(dir, 'bad-2'), id).length, 1, `${id} ran`);
});

/** Two personas whose fake codex sleeps, run by the real bin with --workers 2 until a signal. */
function startSleepers(dir: string, sleepSeconds: number): { stateDir: string; child: ReturnType<typeof spawn>; out: () => string; err: () => string; exited: Promise<number | null>; bothStarted: () => Promise<void> } {
  const files: string[] = [];
  const stateDir = path.join(dir, 'state');
  for (const id of ['ada', 'bo']) {
    const file = path.join(dir, `${id}.yaml`);
    writeFileSync(file, `id: ${id}\nruntime: agent-${id}\nexecutor: { plugin: executor.codex, config: { args: ["--fake-sleep=${sleepSeconds}"] } }\nbudget: { daily_tokens: 100000 }\nallow: { read: ["\${state}"], write: ["\${state}"], run: [codex], net: [api.openai.com] }\n`);
    files.push(file);
    packet(stateDir, id, 'q.md', '# Q\n');
  }
  const child = spawn(process.execPath, ['--no-node-snapshot', path.join(ROOT, 'bin', 'runtimectl.js'), 'run', '--persona', ...files, '--state-dir', stateDir, '--workers', '2', '--stop-grace', '10'], { env: fakeEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d));
  child.stderr!.on('data', (d: Buffer) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const bothStarted = async () => {
    // The fake codex writes its prompt before it sleeps: both cycles are in progress, one in each worker.
    for (const id of ['ada', 'bo']) {
      const started = path.join(workspaceDir(personaPaths(stateDir, id)), 'fake-codex-prompt.txt');
      while (!existsSync(started)) await new Promise((r) => setTimeout(r, 20));
    }
  };
  return { stateDir, child, out: () => out, err: () => err, exited, bothStarted };
}

test('SIGTERM reaches every worker: both personas\' sessions get TERM and are recorded interrupted; the exit status is 0', async () => {
  const run = startSleepers(tempDir(), 30);
  await run.bothStarted();
  run.child.kill('SIGTERM');
  assert.equal(await run.exited, 0, run.err());
  assert.match(run.err(), /SIGTERM: stopping now: 2 running subprocess\(es\) get TERM, KILL after 5 s/);
  for (const id of ['ada', 'bo']) {
    assert.equal(verifyEventLog(path.join(run.stateDir, id, 'logs', 'events.jsonl')).ok, true);
    const [cycle] = cycleEvents(run.stateDir, id);
    assert.equal(cycle?.executor.status, 'interrupted', `${id}: ${JSON.stringify(cycle?.executor)}`);
  }
  assert.equal(existsSync(path.join(run.stateDir, 'run-workers.json')), false);
});

test('a first SIGINT reaches every worker: each finishes the cycle in progress, then the run stops with status 0', async () => {
  const run = startSleepers(tempDir(), 2);
  await run.bothStarted();
  run.child.kill('SIGINT');
  assert.equal(await run.exited, 0, run.err());
  assert.match(run.err(), /SIGINT: finishing the current cycle, then stopping/);
  assert.doesNotMatch(run.err(), /stopping now/);
  for (const id of ['ada', 'bo']) {
    assert.match(run.out(), new RegExp(`^${id} #1 science_patrol executed: executor\\.codex ran c000001-codex, 1500 tokens`, 'm'));
    const cycles = cycleEvents(run.stateDir, id);
    assert.equal(cycles.length, 1, `${id}: the cycle in progress was recorded, no new one began`);
    assert.equal(cycles[0]!.executor.status, 'ok', JSON.stringify(cycles[0]!.executor));
    assert.equal(JSON.parse(readFileSync(path.join(run.stateDir, id, 'brain', 'memory', 'brain.json'), 'utf8')).cycles, 1);
  }
});
