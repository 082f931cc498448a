/**
 * Every file the kernel reads for a persona (issue 12 item 4): a FIFO, /dev/zero, a multi-GB
 * file, a folder or a link out of the persona folder where a regular file is meant is refused
 * without a read that blocks or fills memory. The bad file is a problem of that persona's
 * cycle; the cycle still ends, the other persona of the same kernel is served, and a kernel
 * serving a persona with such a file still stops on SIGTERM.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, openSync, closeSync, ftruncateSync, readFileSync, symlinkSync, writeFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../../kernel/version.ts';
import { readFileCapped } from '../../../kernel/storage/safe-read.ts';
import { runCli } from '../../../test/support/cli.ts';
import { cycleEvents, fakeEnv, packet, profile, run, tempDir } from './helpers.ts';

type Probe = { probe: string; action: string; reason: string; skipped?: string[] };

function mkfifo(file: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  execFileSync('mkfifo', [file]);
}

/** A sparse file of `bytes` (no disk used): "a multi-GB file" without writing gigabytes. */
function sparse(file: string, bytes: number): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const fd = openSync(file, 'w');
  try {
    ftruncateSync(fd, bytes);
  } finally {
    closeSync(fd);
  }
}

function link(target: string, file: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  symlinkSync(target, file);
}

const HOSTILE: Record<string, (file: string) => void> = {
  fifo: mkfifo,
  'link to /dev/zero': (file) => link('/dev/zero', file),
  'link to /dev/stdin': (file) => link('/dev/stdin', file),
  '5 GB sparse file': (file) => sparse(file, 5 * 1024 ** 3),
  folder: (file) => mkdirSync(file, { recursive: true }),
  'link out of the persona folder': (file) => link('/etc/passwd', file),
};

function probeOf(payload: Record<string, any>, name: string): Probe {
  return (payload.probes as Probe[]).find((p) => p.probe === name)!;
}

for (const [kind, plant] of Object.entries(HOSTILE)) {
  test(`dm/queue.jsonl is a ${kind}: the probe fails with a reason, the cycle ends, the other persona is served`, async () => {
    const dir = tempDir('rtc-hostile-dm-');
    const state = path.join(dir, 'state');
    const bad = profile(dir, 'bad', 'runtime: agent-bad');
    const good = profile(dir, 'good', 'runtime: agent-good');
    plant(path.join(state, 'bad', 'dm', 'queue.jsonl'));
    mkdirSync(path.join(state, 'good', 'dm'), { recursive: true });
    writeFileSync(path.join(state, 'good', 'dm', 'queue.jsonl'), '{"from":"ana","text":"hello"}\n');
    const [badRun, goodRun] = await run([bad, good], { stateDir: state, cycles: 2 });
    assert.equal(badRun!.stopped, undefined, 'a bad file never stops the persona');
    assert.equal(badRun!.reports.length, 2);
    for (const payload of cycleEvents(state, 'bad')) {
      const dm = probeOf(payload, 'dm_queue');
      assert.equal(dm.action, kind === 'folder' ? 'failed' : 'failed', JSON.stringify(dm));
      assert.match(dm.reason, /dm\/queue\.jsonl: .*(not a regular file|cap|outside).*\(retried next cycle\)/);
      assert.ok((payload.problems as string[]).some((p) => p.startsWith('dm_queue: ')), 'the problem is the cycle\'s');
    }
    assert.equal(goodRun!.stopped, undefined);
    assert.equal(probeOf(cycleEvents(state, 'good')[0]!, 'dm_queue').action, 'ran');
  });

  test(`an inbox packet that is a ${kind} is skipped by name; the regular packets beside it load`, async () => {
    const dir = tempDir('rtc-hostile-inbox-');
    const state = path.join(dir, 'state');
    const p = profile(dir, 'inboxer', 'runtime: agent-inboxer');
    packet(state, 'inboxer', 'a-real.md', '# A real question\n');
    plant(path.join(state, 'inboxer', 'inbox', 'b-hostile.md'));
    const [r] = await run([p], { stateDir: state });
    assert.equal(r!.stopped, undefined);
    const probe = probeOf(cycleEvents(state, 'inboxer')[0]!, 'work_packets');
    assert.equal(probe.action, 'ran');
    assert.match(probe.reason, /loaded 1 new packet\(s\): A real question; skipped 1/);
    assert.equal(probe.skipped?.length, 1);
    assert.match(probe.skipped![0]!, /^b-hostile\.md: /);
  });
}

test('brain.json that is a FIFO or a runaway file: moved aside unread, a fresh brain, the persona runs on', async () => {
  for (const plant of [mkfifo, (f: string) => sparse(f, 3 * 1024 ** 3)]) {
    const dir = tempDir('rtc-hostile-brain-');
    const state = path.join(dir, 'state');
    const p = profile(dir, 'brainy', 'runtime: agent-brainy');
    await run([p], { stateDir: state });
    const brain = path.join(state, 'brainy', 'brain', 'memory', 'brain.json');
    execFileSync('rm', [brain]);
    plant(brain);
    const [r] = await run([p], { stateDir: state, cycles: 2 });
    assert.equal(r!.stopped, undefined);
    const [first, second] = cycleEvents(state, 'brainy').slice(-2);
    assert.equal(first!.brain.status, 'reset');
    assert.ok((first!.problems as string[]).some((x) => /brain\.json cannot be read \(brain\/memory\/brain\.json: .*\); moved aside as brain\.json\.unreadable and started a fresh brain/.test(x)), JSON.stringify(first!.problems));
    assert.equal(second!.brain.status, 'loaded');
    assert.ok(existsSync(`${brain}.unreadable`), 'the bad file is kept');
    assert.doesNotThrow(() => JSON.parse(readFileSync(brain, 'utf8')));
  }
});

test('a profile or an event log that is a FIFO or a device: one line, no hang', async () => {
  const dir = tempDir('rtc-hostile-profile-');
  mkfifo(path.join(dir, 'fifo.yaml'));
  const fifo = await runCli(['run', '--persona', path.join(dir, 'fifo.yaml'), '--state-dir', path.join(dir, 's')], { cwd: dir });
  assert.equal(fifo.status, 1);
  assert.match(fifo.stderr, /^runtimectl: RTC_ERR_MANIFEST_NOT_FOUND: .*fifo\.yaml: is a FIFO \(named pipe\), not a regular file; it was not read\n$/);
  link('/dev/zero', path.join(dir, 'zero.yaml'));
  const zero = await runCli(['run', '--persona', path.join(dir, 'zero.yaml'), '--state-dir', path.join(dir, 's')], { cwd: dir });
  assert.equal(zero.status, 1);
  assert.match(zero.stderr, /zero\.yaml: is a character device, not a regular file/);

  const state = path.join(dir, 'state');
  const p = profile(dir, 'logged', 'runtime: agent-logged');
  mkfifo(path.join(state, 'logged', 'logs', 'events.jsonl'));
  // The persona does not start (one line, no hang); a run's other personas would.
  const [r] = await run([p], { stateDir: state });
  assert.equal(r!.reports.length, 0);
  assert.equal(r!.refused?.length, 1);
  assert.match(r!.refused![0]!, /^persona logged: .*events\.jsonl: is a FIFO \(named pipe\), not a regular file/);
  for (const command of ['status', 'verify', 'activity']) {
    const out = await runCli([command, '--state-dir', state]);
    assert.equal(out.status, 1, `${command}: ${out.stdout}${out.stderr}`);
    assert.match(out.stdout + out.stderr, /events\.jsonl: is a FIFO/);
  }
});

test('the safe read refuses what grows past its cap while it is read', () => {
  // /proc files report size 0 and then produce bytes: the read counts what it gets.
  assert.throws(() => readFileCapped('/proc/self/maps', { maxBytes: 16 }), /grew past the 16-byte cap while it was read/);
  assert.equal(readFileCapped(path.join(tempDir(), 'absent'), { maxBytes: 1 }), undefined);
});

test('a real kernel serving two personas, one with a FIFO message queue, keeps cycling and stops on SIGTERM', async () => {
  const dir = tempDir('rtc-hostile-sigterm-');
  const state = path.join(dir, 'state');
  const fifoPersona = profile(dir, 'piped', 'runtime: agent-piped');
  const other = profile(dir, 'calm', 'runtime: agent-calm');
  mkfifo(path.join(state, 'piped', 'dm', 'queue.jsonl'));
  const child = spawn(process.execPath, ['--no-node-snapshot', path.join(PROJECT_ROOT, 'bin', 'runtimectl.js'), 'run', '--persona', fifoPersona.file, other.file, '--state-dir', state, '--every', '0.05'], {
    cwd: PROJECT_ROOT,
    env: { ...fakeEnv(), NODE_OPTIONS: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => void (stdout += d));
  child.stderr.on('data', (d) => void (stderr += d));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  for (let i = 0; i < 1200 && !(/piped #3 /.test(stdout) && /calm #3 /.test(stdout)); i++) await new Promise((r) => setTimeout(r, 50));
  assert.match(stdout, /piped #3 /, `both personas cycle: ${stdout}${stderr}`);
  assert.match(stdout, /calm #3 /);
  child.kill('SIGTERM');
  assert.equal(await exit, 0, stderr);
  assert.match(stderr, /SIGTERM: stopping now/);
  assert.deepEqual(readdirSync(path.join(state, 'piped', 'dm')), ['queue.jsonl'], 'the FIFO is left as it was');
});
