/**
 * One writer per persona (issue 12): two kernels on one persona used to fork its event log
 * and lock the persona out for good. Now the second is refused at start, naming the holder,
 * on every backend; the lock dies with its process (kill -9 included); and what else writes
 * a persona wholesale (persistence export, events repair) takes the same lock.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { isKernelError } from '../../../kernel/errors.ts';
import { verifyEventLog } from '../../../kernel/events/verify.ts';
import { PersonaRuntime } from '../../persona/persona-runtime.ts';
import { openLoopKernel } from '../../science-loop/preset.ts';
import { acquireFileWriterLock, holderIsRunning, selfHolder, WRITER_HOLDER_FILE, WRITER_LOCK_FILE } from '../state/writer-lock.ts';
import { writePersistenceConfig } from '../state/persistence-config.ts';
import { PROJECT_ROOT } from '../../../kernel/version.ts';
import { runCli } from '../../../test/support/cli.ts';
import { CACHE_DIR, fakeEnv, profile, run, tempDir } from '../../science-loop/test/helpers.ts';

const BIN = path.join(PROJECT_ROOT, 'bin', 'runtimectl.js');

function quietProfile(dir: string, id: string) {
  return profile(dir, id, 'runtime: agent-lock\ncadence:\n  cycle_seconds: 1\n  periodic_seconds: 3600');
}

// Every kernel a test starts is killed when the file's tests end, so a failed assertion cannot
// leave a running kernel behind that keeps the test file (and the whole suite) from exiting.
const started = new Set<ChildProcess>();
after(() => {
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

function kernel(args: string[]): { child: ChildProcess; out: () => { stdout: string; stderr: string }; exit: Promise<number | null> } {
  const child = spawn(process.execPath, ['--no-node-snapshot', BIN, ...args], { cwd: PROJECT_ROOT, env: { ...fakeEnv(), NODE_OPTIONS: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
  started.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => void (stdout += d));
  child.stderr!.on('data', (d) => void (stderr += d));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, out: () => ({ stdout, stderr }), exit };
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 1200; i++) {
    if (condition()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

function cycleCount(file: string): number {
  if (!existsSync(file)) return 0;
  return readFileSync(file, 'utf8').split('\n').filter((l) => l.includes('"continuous_loop_cycle"')).length;
}

test('two real kernels started together on one persona: exactly one runs, the other is refused naming its pid and start time; the log stays one chain', async () => {
  const dir = tempDir('rtc-lock-race-');
  const state = path.join(dir, 'state');
  const file = quietProfile(dir, 'racer').file;
  const args = ['run', '--persona', file, '--state-dir', state, '--every', '0.1'];
  const a = kernel(args);
  const b = kernel(args);
  // Whichever takes the lock holds it until it is stopped: the other must give up on its own.
  const first = await Promise.race([a.exit.then((code) => ({ loser: a, winner: b, code })), b.exit.then((code) => ({ loser: b, winner: a, code }))]);
  assert.equal(first.code, 1, `the loser exits 1: ${first.loser.out().stderr}`);
  const refusal = first.loser.out().stderr.trim();
  assert.equal(refusal.split('\n').length, 1, refusal);
  // A persona that cannot start is one line (RTC_ERR_PERSONA_START) carrying the lock's own error.
  assert.match(refusal, new RegExp(`^runtimectl: RTC_ERR_PERSONA_START: persona racer: RTC_ERR_PERSONA_LOCKED: persona racer already has a writer: pid ${first.winner.child.pid} \\(started \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z, run since `));
  const log = path.join(state, 'racer', 'logs', 'events.jsonl');
  await until(() => cycleCount(log) >= 3, 'the winner to run three cycles');
  first.winner.child.kill('SIGTERM');
  assert.equal(await first.winner.exit, 0, first.winner.out().stderr);
  const report = verifyEventLog(log);
  assert.equal(report.ok, true, JSON.stringify(report.problems));
  const text = readFileSync(log, 'utf8');
  assert.equal(text.split('\n').filter((l) => l.includes('"persona_start"')).length, 1, 'only the winner started the persona');
});

test('kill -9 of the holder releases the lock: the next kernel runs, and the log is whole', async () => {
  const dir = tempDir('rtc-lock-kill-');
  const state = path.join(dir, 'state');
  const persona = quietProfile(dir, 'killed');
  const log = path.join(state, 'killed', 'logs', 'events.jsonl');
  const holder = kernel(['run', '--persona', persona.file, '--state-dir', state, '--every', '0.05']);
  await until(() => cycleCount(log) >= 2, 'the first kernel to run');
  // While it lives, an in-process open is refused and names it.
  const k = await openLoopKernel({ stateDir: state, env: fakeEnv(), cacheDir: CACHE_DIR });
  await assert.rejects(PersonaRuntime.open(k, persona), (e: unknown) => isKernelError(e) && e.code === 'RTC_ERR_PERSONA_LOCKED' && e.message.includes(`pid ${holder.child.pid} `));
  holder.child.kill('SIGKILL');
  await holder.exit;
  const [next] = await run([persona], { stateDir: state, cycles: 2 });
  assert.equal(next!.stopped, undefined);
  assert.equal(next!.reports.length, 2);
  assert.equal(verifyEventLog(log).ok, true);
  const record = JSON.parse(readFileSync(path.join(state, 'killed', WRITER_HOLDER_FILE), 'utf8'));
  assert.equal(record.pid, process.pid, 'the holder record names the new holder');
});

for (const backend of ['jsonl-fs', 'sqlite'] as const) {
  test(`${backend}: a second runtime of one persona in the same process is refused until the first closes`, async () => {
    const dir = tempDir(`rtc-lock-${backend}-`);
    const state = path.join(dir, 'state');
    const persona = quietProfile(dir, 'twice');
    mkdirSync(path.join(state, 'twice'), { recursive: true });
    if (backend === 'sqlite') writePersistenceConfig(path.join(state, 'twice'), 'sqlite');
    const k = await openLoopKernel({ stateDir: state, env: fakeEnv(), cacheDir: CACHE_DIR });
    const first = await PersonaRuntime.open(k, persona);
    assert.equal(first.persistence, backend);
    await first.cycle();
    const refused = await PersonaRuntime.open(k, persona).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(isKernelError(refused) && refused.code === 'RTC_ERR_PERSONA_LOCKED', String(refused));
    assert.match(refused.message, new RegExp(`pid ${process.pid} \\(started `));
    // the refused open wrote nothing
    await first.cycle();
    await first.close();
    const again = await PersonaRuntime.open(k, persona);
    const report = await again.cycle();
    assert.equal(report.cycle, 3);
    await again.close();
  });
}

test('a persona held elsewhere does not start, naming the holder; the free one runs and releases its lock at the end', async () => {
  const dir = tempDir('rtc-lock-two-');
  const state = path.join(dir, 'state');
  const free = quietProfile(dir, 'free');
  const held = quietProfile(dir, 'held');
  mkdirSync(path.join(state, 'held'), { recursive: true });
  const lock = acquireFileWriterLock(path.join(state, 'held'), 'held', 'test');
  try {
    const runs = await run([free, held], { stateDir: state });
    const refused = runs.find((r) => r.persona_id === 'held')!;
    assert.equal(refused.reports.length, 0);
    assert.match(refused.refused?.[0] ?? '', /^persona held: RTC_ERR_PERSONA_LOCKED: persona held already has a writer: pid \d+ /);
    assert.equal(runs.find((r) => r.persona_id === 'free')!.reports.length, 1, 'the free persona ran');
    // the free persona's lock was released when its run ended
    const [ok] = await run([free], { stateDir: state });
    assert.equal(ok!.stopped, undefined);
  } finally {
    lock.release();
  }
});

test('persistence export and events repair take the lock: refused while a kernel holds the persona', async () => {
  const dir = tempDir('rtc-lock-cli-');
  const state = path.join(dir, 'state');
  const persona = quietProfile(dir, 'busy');
  await run([persona], { stateDir: state });
  const lock = acquireFileWriterLock(path.join(state, 'busy'), 'busy', 'run');
  try {
    const exported = await runCli(['persistence', 'export', '--persona', 'busy', '--to', 'sqlite', '--state-dir', state]);
    assert.equal(exported.status, 1);
    assert.match(exported.stderr, /^runtimectl: RTC_ERR_PERSONA_LOCKED: persona busy already has a writer: pid \d+ .*persistence export refused/);
    assert.equal(existsSync(path.join(state, 'busy', 'persistence.db')), false, 'no target was created');
    const repaired = await runCli(['events', 'repair', '--persona', 'busy', '--state-dir', state]);
    assert.equal(repaired.status, 1);
    assert.match(repaired.stderr, /RTC_ERR_PERSONA_LOCKED.*events repair refused/);
  } finally {
    lock.release();
  }
  const exported = await runCli(['persistence', 'export', '--persona', 'busy', '--to', 'sqlite', '--state-dir', state]);
  assert.equal(exported.status, 0, exported.stderr);
});

test('a planted file at writer.lock is one line, and the persona is not started', async () => {
  const dir = tempDir('rtc-lock-planted-');
  const state = path.join(dir, 'state');
  const persona = quietProfile(dir, 'planted');
  mkdirSync(path.join(state, 'planted'), { recursive: true });
  writeFileSync(path.join(state, 'planted', WRITER_LOCK_FILE), 'not a lock, just text that is long enough to look like a header '.repeat(4));
  const [r] = await run([persona], { stateDir: state });
  assert.equal(r!.reports.length, 0);
  assert.equal(r!.refused?.length, 1);
  assert.match(r!.refused![0]!, /^persona planted: RTC_ERR_STATE_DIR: .*writer\.lock: is not a writer lock/);
  assert.equal(existsSync(path.join(state, 'planted', 'logs', 'events.jsonl')), false);
});

test('a holder record is checked against the process it names: pid reuse is not mistaken for the holder', () => {
  const me = selfHolder('test');
  assert.equal(holderIsRunning(me), true);
  assert.equal(holderIsRunning({ ...me, start_ticks: (me.start_ticks ?? 0) + 1 }), me.start_ticks === null, 'same pid, other start time: another process');
  assert.equal(holderIsRunning({ ...me, pid: 2 ** 22 + 7 }), false);
  assert.equal(holderIsRunning({ ...me, host: `${me.host}-elsewhere` }), false);
});
