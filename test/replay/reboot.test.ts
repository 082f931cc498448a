/**
 * The spec's determinism and reboot requirements, with real kernel processes:
 * - the same state and the same input stream give byte-identical events, traces and brain;
 * - (boot, N cycles, SIGKILL, boot, M cycles) leaves the same engine and substrate state as
 *   (boot, N+M cycles), apart from the start, reboot and repair events themselves.
 * The world is pinned (clock and entropy derived from the cycle number) by the fixture
 * test/fixtures/loop/pinned-loop.ts, which is what both the child kernels and the in-process
 * reference run.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { openBackend } from '../../features/persistence/open.ts';
import { ledgerOf } from '../../features/ledger/access.ts';
import { prepareLedgerPlugin } from '../../features/ledger/plugin-host.ts';
import { PROJECT_ROOT } from '../../kernel/version.ts';
import { runPinned } from '../fixtures/loop/pinned-loop.ts';
import { CACHE_DIR, events, tempDir } from '../../features/science-loop/test/helpers.ts';
import { runCli } from '../support/cli.ts';
import { patrolPersona, pinnedEnv, traceFile } from './helpers.ts';

const FIXTURE = path.join(PROJECT_ROOT, 'test', 'fixtures', 'loop', 'pinned-loop.ts');
const LIFECYCLE = new Set(['persona_start', 'reboot', 'repair']);

/** Starts a kernel process running `cycles` cycles; with `kill`, SIGKILLs it right after the last one is durable. */
function kernelProcess(stateDir: string, profileFile: string, home: string, cycles: number, kill: boolean): Promise<{ seen: number[]; signal: NodeJS.Signals | null; code: number | null }> {
  return new Promise((resolve, reject) => {
    const args = ['--no-node-snapshot', '--import', 'tsx', FIXTURE, stateDir, profileFile, CACHE_DIR, String(cycles), ...(kill ? ['hang'] : [])];
    const child = spawn(process.execPath, args, { cwd: PROJECT_ROOT, env: { ...pinnedEnv(home), NODE_OPTIONS: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
    const seen: number[] = [];
    let stderr = '';
    let buffered = '';
    child.stderr.on('data', (d: Buffer) => void (stderr += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      buffered += d.toString();
      for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        const m = /^cycle (\d+)$/.exec(line);
        if (m) seen.push(Number(m[1]));
        if (kill && seen.length === cycles) child.kill('SIGKILL');
      }
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (!kill && code !== 0) reject(new Error(`kernel process exited ${code}: ${stderr}`));
      else resolve({ seen, signal, code });
    });
  });
}

/** Engine and substrate state, without the lifecycle events a start writes. */
async function engineState(stateDir: string, personaId: string) {
  await prepareLedgerPlugin();
  const backend = await openBackend(path.join(stateDir, personaId), undefined, { readonly: true, personaId });
  try {
    return {
      events: [...backend.events.read()].filter((e) => !LIFECYCLE.has(e.type)).map((e) => ({ type: e.type, payload: e.payload })),
      brain: backend.memory.readBrain(),
      longTerm: backend.memory.readLongTerm(),
      ledger: ledgerOf(backend).exportDoc(),
      proposals: backend.proposals.lines(),
    };
  } finally {
    await backend.close();
  }
}

test('the same state and input stream, run twice in fresh directories, give byte-identical events, traces and brain', async () => {
  const dir = tempDir('rtc-determinism-');
  const persona = patrolPersona(dir, 'dora');
  const files: { events: Buffer; trace: Buffer; brain: Buffer }[] = [];
  for (const name of ['one', 'two']) {
    const stateDir = path.join(dir, name);
    await runPinned({ stateDir, profileFile: persona.file, cacheDir: CACHE_DIR, cycles: 3, env: pinnedEnv(dir) });
    files.push({
      events: readFileSync(path.join(stateDir, 'dora', 'logs', 'events.jsonl')),
      trace: readFileSync(traceFile(stateDir, 'dora')),
      brain: readFileSync(path.join(stateDir, 'dora', 'brain', 'memory', 'brain.json')),
    });
  }
  // the events' `at` is wall time from the pinned clock too, so whole files compare
  assert.ok(files[0]!.events.length > 0 && files[0]!.trace.length > 0);
  assert.deepEqual(files[0], files[1]);
});

test('reboot equivalence: boot, 2 cycles, SIGKILL, boot, 2 cycles equals boot, 4 cycles; the rebooted recording replays', async () => {
  const dir = tempDir('rtc-reboot-');
  const persona = patrolPersona(dir, 'remy');
  const split = path.join(dir, 'split');
  const first = await kernelProcess(split, persona.file, dir, 2, true);
  assert.deepEqual(first.seen, [1, 2]);
  assert.equal(first.signal, 'SIGKILL');
  const second = await kernelProcess(split, persona.file, dir, 2, false);
  assert.deepEqual(second.seen, [3, 4]);

  const whole = path.join(dir, 'whole');
  await runPinned({ stateDir: whole, profileFile: persona.file, cacheDir: CACHE_DIR, cycles: 4, env: pinnedEnv(dir) });

  const types = events(split, 'remy').map((e) => e.type);
  assert.ok(types.includes('reboot'), `the second boot wrote a reboot event (${types.join(', ')})`);
  const a = await engineState(split, 'remy');
  const b = await engineState(whole, 'remy');
  assert.equal(a.events.filter((e) => e.type === 'continuous_loop_cycle').length, 4);
  assert.deepEqual(a, b);

  for (const stateDir of [split, whole]) {
    const verify = await runCli(['verify', '--state-dir', stateDir]);
    assert.equal(verify.status, 0, verify.stdout);
  }
  const replay = await runCli(['replay', '--state-dir', split, '--persona', 'remy', '--json']);
  assert.equal(replay.status, 0, replay.stdout);
  assert.equal(JSON.parse(replay.stdout).personas[0].cycles, 4);
});
