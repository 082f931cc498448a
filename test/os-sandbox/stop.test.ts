/**
 * Sessions end with the kernel and on time: SIGTERM (or a second SIGINT) ends running
 * sessions (TERM, then KILL after half the grace), records them `interrupted` with the usage
 * they printed so far and leaves their work pending; `run` exits 0. A kernel killed with
 * `kill -9` takes its sandboxed sessions with it, and the next start records what it left.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { verifyEventLog } from '../../kernel/events/verify.ts';
import { personaPaths, workspaceDir } from '../../features/persona-layout/layout.ts';
import { cycleEvents, events, fakeEnv, packet, readJson, tempDir } from '../../features/science-loop/test/helpers.ts';
import { NO_OS_SANDBOX, processesNamed } from '../support/os-sandbox.ts';
import { processMarkerDir } from '../../features/science-loop/executors/children.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');

function writeProfile(dir: string, id: string, codexArgs: string[], extra = ''): string {
  const file = path.join(dir, `${id}.yaml`);
  writeFileSync(
    file,
    `id: ${id}
runtime: agent-${id}
executor: { plugin: executor.codex, config: { args: ${JSON.stringify(codexArgs)} } }
budget: { daily_tokens: 100000, wall_seconds_per_cycle: 600 }
allow: { read: ["\${state}"], write: ["\${state}"], run: [codex], net: [api.openai.com] }
${extra}`,
  );
  return file;
}

function startKernel(files: string[], stateDir: string, extra: string[] = [], env: Record<string, string> = {}): { child: ChildProcess; exited: Promise<number | null>; err: () => string; out: () => string } {
  const child = spawn(process.execPath, ['--no-node-snapshot', path.join(ROOT, 'bin', 'runtimectl.js'), 'run', ...files.flatMap((f) => ['--persona', f]), '--state-dir', stateDir, ...extra], {
    env: fakeEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d));
  child.stderr!.on('data', (d: Buffer) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, err: () => err, out: () => out };
}

async function sessionStarted(stateDir: string, id: string): Promise<void> {
  const started = path.join(workspaceDir(personaPaths(stateDir, id)), 'fake-codex-prompt.txt');
  while (!existsSync(started)) await new Promise((r) => setTimeout(r, 20));
}


const uniqueSeconds = (n: number) => String(50_000 + ((process.pid * 7 + n) % 40_000));

test('SIGTERM with two sessions running: both end, are recorded interrupted with their usage so far, their work stays pending, exit 0', { skip: NO_OS_SANDBOX }, async () => {
  const dir = tempDir('rtc-stop-');
  const stateDir = path.join(dir, 'state');
  const sleep = uniqueSeconds(1);
  const files = ['ada', 'bo'].map((id) => writeProfile(dir, id, ['--fake-early', `--fake-sleep=${sleep}`]));
  for (const id of ['ada', 'bo']) packet(stateDir, id, 'q.md', '# Q\n');
  const k = startKernel(files, stateDir);
  await Promise.all(['ada', 'bo'].map((id) => sessionStarted(stateDir, id)));
  k.child.kill('SIGTERM');
  assert.equal(await k.exited, 0, k.err());
  assert.match(k.err(), /SIGTERM: stopping now: 2 running subprocess\(es\) get TERM, KILL after 10 s/);
  for (const id of ['ada', 'bo']) {
    const [event] = cycleEvents(stateDir, id);
    assert.equal(event!.outcome, 'interrupted');
    assert.equal(event!.executor.status, 'interrupted');
    assert.match(event!.defer_reason, /^interrupted: the kernel was stopped while the session ran; it ended on TERM; its work stays pending$/);
    assert.equal(event!.provider_usage.total_tokens, 1270, 'the usage printed before the stop');
    const manifest = readJson(path.join(stateDir, event!.executor_session.manifest_path));
    assert.equal(manifest.status, 'interrupted');
    assert.equal(manifest.interrupted_by, 'kernel stop');
    const brain = readJson(path.join(stateDir, id, 'brain', 'memory', 'brain.json'));
    assert.deepEqual(brain.probes.pending.map((w: { title: string }) => w.title), ['Q'], 'the work stays pending');
    assert.equal(verifyEventLog(path.join(stateDir, id, 'logs', 'events.jsonl')).ok, true);
  }
  assert.deepEqual(processesNamed(sleep), []);
});

test('a session that ignores TERM is killed at half the grace; the kill is recorded', { skip: NO_OS_SANDBOX }, async () => {
  const dir = tempDir('rtc-stop-');
  const stateDir = path.join(dir, 'state');
  const sleep = uniqueSeconds(2);
  const file = writeProfile(dir, 'ada', ['--fake-ignore-term', '--fake-early', `--fake-sleep=${sleep}`]);
  packet(stateDir, 'ada', 'q.md', '# Q\n');
  const k = startKernel([file], stateDir, ['--stop-grace', '4']);
  await sessionStarted(stateDir, 'ada');
  k.child.kill('SIGINT');
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(processesNamed(sleep).length, 1, 'a first SIGINT lets the session run on');
  k.child.kill('SIGINT');
  assert.equal(await k.exited, 0, k.err());
  assert.match(k.err(), /second SIGINT: stopping now: 1 running subprocess\(es\) get TERM, KILL after 2 s/);
  const [event] = cycleEvents(stateDir, 'ada');
  assert.equal(event!.executor.status, 'interrupted');
  assert.match(event!.defer_reason, /it ignored TERM and was killed \(KILL\) after the delay/);
  assert.equal(readJson(path.join(stateDir, event!.executor_session.manifest_path)).interrupted_by, 'kernel stop (forced kill)');
  assert.deepEqual(processesNamed(sleep), []);
});

test('kill -9 of the kernel: its sandboxed session dies with it, and the next start records it interrupted before anything new', { skip: NO_OS_SANDBOX }, async () => {
  const dir = tempDir('rtc-crash-');
  const stateDir = path.join(dir, 'state');
  const sleep = uniqueSeconds(3);
  const file = writeProfile(dir, 'ada', ['--fake-early', `--fake-sleep=${sleep}`]);
  packet(stateDir, 'ada', 'q.md', '# Q\n');
  const k = startKernel([file], stateDir);
  await sessionStarted(stateDir, 'ada');
  const marker = path.join(processMarkerDir(stateDir, 'ada'), 'c000001-codex.json');
  assert.ok(existsSync(marker), 'the running session is marked in the kernel folder of the state directory');
  assert.equal(existsSync(path.join(personaPaths(stateDir, 'ada').sessionsDir, 'c000001-codex', 'process.json')), false, 'never in the session folder its command may write');
  k.child.kill('SIGKILL');
  await k.exited;
  // die-with-parent: the sandbox goes with the kernel (allow the kernel's own teardown a moment)
  for (let i = 0; i < 100 && processesNamed(sleep).length > 0; i++) await new Promise((r) => setTimeout(r, 50));
  assert.deepEqual(processesNamed(sleep), [], 'no session outlives the kernel');

  const again = startKernel([writeProfile(dir, 'ada', [])], stateDir, ['--cycles', '1']);
  assert.equal(await again.exited, 0, again.err());
  const log = events(stateDir, 'ada');
  const types = log.map((e) => e.type);
  const interrupted = log.find((e) => e.type === 'executor_session_interrupted')!;
  assert.ok(types.indexOf('executor_session_interrupted') < types.lastIndexOf('persona_start'), 'recorded before anything new');
  assert.equal(interrupted.payload.run_id, 'c000001-codex');
  assert.equal(interrupted.payload.found, 'gone');
  assert.equal(interrupted.payload.sandboxed, true);
  assert.ok((interrupted.payload.provider_usage as { total_tokens: number }).total_tokens > 0, 'charged the estimate');
  assert.equal(readJson(path.join(personaPaths(stateDir, 'ada').sessionsDir, 'c000001-codex', 'manifest.json')).status, 'interrupted');
  assert.equal(existsSync(marker), false);
  // the work was never finished: the new cycle ran it
  const [cycle] = cycleEvents(stateDir, 'ada');
  assert.equal(cycle!.executor_session.run_id, 'c000001-codex-2');
  assert.equal(cycle!.budget.sessions_24h, 1, 'the interrupted session counts against the day');
});

test('kill -9 with the OS sandbox off: what the session left running is found at the next start and ended', async () => {
  const dir = tempDir('rtc-crash-');
  const stateDir = path.join(dir, 'state');
  const sleep = uniqueSeconds(4);
  // A harness that leaves a child in its process group (it outlives the harness, which dies with the kernel).
  const unsandboxed = (script: string) => {
    const file = path.join(dir, `ada-${script.length}.yaml`);
    writeFileSync(
      file,
      `id: ada
runtime: agent-ada
os_sandbox: off
executor: { plugin: executor.command, config: { command: sh, args: ["-c", ${JSON.stringify(script)}], spends_tokens: false } }
allow: { read: ["\${state}"], write: ["\${state}"], run: [sh] }
`,
    );
    return file;
  };
  const file = unsandboxed(`sleep ${sleep} & cat > started.txt; wait`);
  packet(stateDir, 'ada', 'q.md', '# Q\n');
  const k = startKernel([file], stateDir);
  const started = path.join(workspaceDir(personaPaths(stateDir, 'ada')), 'started.txt');
  // The kernel writes the session's process marker just after the spawn returns; the child can
  // get to started.txt first (a loaded machine): kill only once both are there.
  const marker = path.join(processMarkerDir(stateDir, 'ada'), 'c000001-command.json');
  while (!existsSync(started) || !existsSync(marker)) await new Promise((r) => setTimeout(r, 20));
  k.child.kill('SIGKILL');
  await k.exited;
  for (let i = 0; i < 40 && processesNamed(sleep).length === 0; i++) await new Promise((r) => setTimeout(r, 50));
  assert.equal(processesNamed(sleep).length, 1, 'unsandboxed, the leftover child survives the kernel');

  const again = startKernel([unsandboxed('cat > again.txt')], stateDir, ['--cycles', '1']);
  assert.equal(await again.exited, 0, again.err());
  const interrupted = events(stateDir, 'ada').find((e) => e.type === 'executor_session_interrupted')!;
  assert.equal(interrupted.payload.found, 'running');
  assert.equal(interrupted.payload.ended, 'terminated');
  assert.deepEqual(processesNamed(sleep), [], 'ended by the next start');
  // the opt-out is said in every cycle: the event and the line
  assert.ok(cycleEvents(stateDir, 'ada').every((e) => e.problems.some((p: string) => p.startsWith('os_sandbox: off'))));
  assert.match(again.out(), /^ada #\d+ \w+ \w+ \[os_sandbox: off\]: /m);
});
