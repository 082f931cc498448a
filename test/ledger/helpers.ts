/**
 * Shared set-up for the ledger tests: every suite runs once per backend, on a real ledger
 * in a fresh temporary persona directory.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import assert from 'node:assert/strict';
import { isKernelError, type ErrorCode } from '../../kernel/errors.ts';
import { LEDGER_BACKENDS, openLedger, type LedgerBackend, type LedgerStore } from '../../kernel/ledger/index.ts';

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
