/**
 * Step 5 reuses its last inspection while the ledger's files are unchanged (ledger-inspection.ts);
 * these cases check that every change another process can make is still seen by the next cycle.
 */
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { openLedger } from '../../ledger/open.ts';
import { PersonaRuntime } from '../../persona/persona-runtime.ts';
import { openLoopKernel } from '../preset.ts';
import { CACHE_DIR, budgeted, fakeEnv, fakeTime, tempDir } from './helpers.ts';
import { prepareLedger } from '../../ledger/open.ts';

// The ledger runs in its plugin's isolate: built once per test process.
await prepareLedger();

async function persona() {
  const dir = tempDir();
  const stateDir = path.join(dir, 'state');
  const time = fakeTime();
  const kernel = await openLoopKernel({ stateDir, env: fakeEnv(), clock: time.clock, cacheDir: CACHE_DIR });
  const runtime = await PersonaRuntime.open(kernel, budgeted(dir, 'ada', 'executor.none'));
  const personaDir = path.join(stateDir, 'ada');
  const ledger = async () => {
    const report = await runtime.cycle();
    time.advance(60_000);
    return report.payload.ledger as { bootstrap: string; tasks?: Record<string, number>; error?: string };
  };
  return { runtime, personaDir, ledger };
}

test('the ledger is bootstrapped once; then every cycle reports it as existing with its task counts', async () => {
  const { runtime, ledger } = await persona();
  try {
    assert.deepEqual(await ledger(), { path: 'ada/orchestra/orchestra.db', bootstrap: 'created', backend: 'jsonl-fs', tasks: {} });
    for (let i = 0; i < 3; i++) assert.deepEqual(await ledger(), { path: 'ada/orchestra/orchestra.db', bootstrap: 'existing', backend: 'jsonl-fs', tasks: {} });
  } finally {
    await runtime.close();
  }
});

test('a task another process adds between cycles is counted by the next cycle', async () => {
  const { runtime, personaDir, ledger } = await persona();
  try {
    await ledger();
    await ledger();
    await ledger();
    const { store } = openLedger(personaDir, { personaId: 'ada' });
    const task = store.addTask({ title: 'Check the controls', by: 'operator', now: 1 });
    assert.deepEqual((await ledger()).tasks, { proposed: 1 });
    assert.deepEqual((await ledger()).tasks, { proposed: 1 });
    store.moveTask(task.id, 'ready', { by: 'operator', now: 2 });
    store.close();
    assert.deepEqual((await ledger()).tasks, { ready: 1 });
  } finally {
    await runtime.close();
  }
});

test('a removed prompt or ledger folder is bootstrapped again by the next cycle, and a torn tail is repaired', async () => {
  const { runtime, personaDir, ledger } = await persona();
  const prompt = path.join(personaDir, 'orchestra/project/.orchestra/prompt.md');
  const db = path.join(personaDir, 'orchestra/orchestra.db');
  try {
    await ledger();
    await ledger();
    await ledger();
    rmSync(prompt);
    assert.equal((await ledger()).bootstrap, 'existing');
    assert.ok(existsSync(prompt), 'prompt.md is written again');

    // a writer that died mid-record: the next cycle's open cuts it off and records the repair
    appendFileSync(db, '{"seq":1,"change":"cre');
    assert.equal((await ledger()).bootstrap, 'existing');
    const lines = readFileSync(db, 'utf8').split('\n');
    assert.match(lines.at(-2)!, /"change":"repair"/);

    rmSync(path.join(personaDir, 'orchestra'), { recursive: true });
    assert.deepEqual(await ledger(), { path: 'ada/orchestra/orchestra.db', bootstrap: 'created', backend: 'jsonl-fs', tasks: {} });
    assert.equal((await ledger()).bootstrap, 'existing');
  } finally {
    await runtime.close();
  }
});
