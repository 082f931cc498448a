/**
 * Shared set-up for the ledger tests: every suite runs once per backend, on a real ledger
 * in a fresh temporary persona directory.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import assert from 'node:assert/strict';
import { isKernelError, type ErrorCode } from '../../../kernel/errors.ts';
import { LEDGER_BACKENDS, openLedger, prepareLedger, type LedgerBackend, type LedgerStore } from '../index.ts';

// The ledger runs in its plugin's isolate over the backends' rows: built once per test process.
await prepareLedger();

export const BACKENDS: readonly LedgerBackend[] = LEDGER_BACKENDS;

export function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'rtc-ledger-'));
}

/** A new persona directory `<tmp>/state/<personaId>` (not yet bootstrapped). */
export function personaDir(personaId = 'alice'): string {
  const dir = path.join(tempDir(), 'state', personaId);
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

export function freshStore(backend: LedgerBackend, personaId = 'alice'): { dir: string; store: LedgerStore } {
  const dir = personaDir(personaId);
  const { store } = openLedger(dir, { backend });
  return { dir, store };
}

export function sha256File(file: string): string {
  return createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

/** Asserts `fn` throws a KernelError with `code` whose message matches every pattern. */
export function assertKernelError(fn: () => unknown, code: ErrorCode, ...patterns: (string | RegExp)[]): void {
  assert.throws(fn, (error: unknown) => {
    assert.ok(isKernelError(error), `expected a KernelError, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    assert.ok(!error.message.includes('\n'), 'a ledger error is one line');
    for (const pattern of patterns) {
      if (typeof pattern === 'string') assert.ok(error.message.includes(pattern), `message "${error.message}" lacks "${pattern}"`);
      else assert.match(error.message, pattern);
    }
    return true;
  });
}

export const by = 'tester';

/** Fills a ledger with one of everything: tasks in several states, blocks, surprises, leases, checkpoints. */
export function populate(store: LedgerStore): void {
  let now = 1_000;
  const tick = () => ++now;
  const a = store.addTask({ title: 'alloc slice', description: 'allocations and ids', by: 'lead', now: tick() }).id;
  const b = store.addTask({ title: 'event text', by: 'lead', now: tick() }).id;
  const c = store.addTask({ title: 'rng', by: 'lead', now: tick() }).id;
  const d = store.addTask({ title: 'accepted one', by: 'lead', now: tick() }).id;
  for (const s of ['ready', 'implementing'] as const) store.moveTask(a, s, { by: 'lead', now: tick(), reason: `to ${s}` });
  for (const s of ['ready', 'implementing', 'verification', 'revision', 'implementing'] as const) store.moveTask(b, s, { by: 'implementer', now: tick() });
  for (const s of ['ready', 'implementing', 'verification', 'integration', 'accepted'] as const) store.moveTask(d, s, { by: 'integrator', now: tick() });
  store.moveTask(c, 'blocked', { by: 'lead', now: tick(), reason: 'waiting on lab' });
  store.recordSurprise({ observation: 'trace mismatch', evidence: ['evidence/t1.jsonl'], affects: [a, b], by: 'verifier', now: tick() });
  store.resolveSurprise('S-0001', { outcome: 'survives', by: 'astra', now: tick() });
  store.recordSurprise({ observation: 'regression in rng', affects: [a, c], by: 'verifier', now: tick() });
  store.acquireLease('vm/guest-1', 'worker-a', 60_000, tick());
  store.acquireLease('build-host', 'worker-b', 1_000, tick());
  store.renewLease('build-host', 'worker-b', 2_000, tick());
  store.acquireLease('ghidra', 'worker-c', 1_000, tick());
  store.reconcileLease('ghidra', { ownerGone: true, by: 'lead', now: tick(), reason: 'process gone' });
  store.addCheckpoint(a, { changedPaths: ['src/a.c'], commands: [{ command: 'make', result: 'ok', exitCode: 0 }], nextAction: 'verify' }, { by: 'implementer', now: tick() });
  store.addCheckpoint(a, { nextAction: 'wait for S-0002', openSurprises: ['S-0002'], heldLeases: ['vm/guest-1'] }, { by: 'implementer', now: tick() });
  store.addCheckpoint(b, { nextAction: 'rerun tests' }, { by: 'implementer', now: tick() });
}
