/**
 * Two processes writing one ledger at once (the kernel and an operator's CLI): on both
 * backends every change lands, ids never repeat, and the result is consistent.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { bootstrapLedger, checkLedgerConsistency, openLedger } from '../index.ts';
import { BACKENDS, personaDir } from './helpers.ts';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const WRITER = path.join(ROOT, 'features/ledger/test/concurrent-writer.ts');
const COUNT = 40;

/** Starts a writer; `ready` resolves once its ledger is open, `done` when it exits cleanly. */
function writer(dir: string, backend: string, name: string, go: string): { ready: Promise<void>; done: Promise<void> } {
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  const done = new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', WRITER, dir, backend, name, String(COUNT), go], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => chunk.includes('ready') && markReady());
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`writer ${name} exited ${code}: ${stderr}`))));
  });
  return { ready, done };
}

for (const backend of BACKENDS) {
  test(`two processes writing one ${backend} ledger lose nothing and never reuse an id`, async (t) => {
    const dir = personaDir();
    bootstrapLedger(dir, { backend });
    const go = path.join(dir, 'go');
    const writers = [writer(dir, backend, 'kernel', go), writer(dir, backend, 'operator', go)];
    await Promise.race([Promise.all(writers.map((w) => w.ready)), Promise.all(writers.map((w) => w.done))]);
    fs.writeFileSync(go, '');
    await Promise.all(writers.map((w) => w.done));
    const { store } = openLedger(dir);
    const tasks = store.listTasks();
    store.close();
    assert.equal(tasks.length, 2 * COUNT);
    assert.deepEqual(
      tasks.map((t) => t.id),
      Array.from({ length: 2 * COUNT }, (_, i) => `T-${String(i + 1).padStart(4, '0')}`),
    );
    for (const name of ['kernel', 'operator']) assert.equal(tasks.filter((t) => t.title.startsWith(`${name} `) && t.state === 'ready').length, COUNT);
    assert.deepEqual(checkLedgerConsistency(dir, backend), []);
    const switches = tasks.filter((t, i) => i > 0 && t.history[0]?.by !== tasks[i - 1]?.history[0]?.by).length;
    t.diagnostic(`writers took turns ${switches} times`);
  });
}
