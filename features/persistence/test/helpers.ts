/** Shared set-up for the persistence tests: persona folders in temp state dirs, a pinned clock. */
import { createHash } from 'node:crypto';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isKernelError, type ErrorCode } from '../../../kernel/errors.ts';

/** `<tmp>/state/<persona>`, created. */
export function personaDir(persona = 'alice'): string {
  const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'rtc-')), 'state', persona);
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/** A clock that starts at a fixed time and moves one second per reading: both backends see the same times. */
export function pinnedClock(start = Date.parse('2030-01-01T00:00:00.000Z')): () => Date {
  let t = start;
  return () => new Date((t += 1000));
}

export function sha256File(file: string): string {
  return createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

export async function assertRejectsKernel(fn: () => unknown, code: ErrorCode, ...patterns: (string | RegExp)[]): Promise<void> {
  await assert.rejects(async () => fn(), (error: unknown) => {
    assert.ok(isKernelError(error), `expected a KernelError, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    assert.ok(!error.message.includes('\n'), 'one line');
    for (const p of patterns) {
      if (typeof p === 'string') assert.ok(error.message.includes(p), `message "${error.message}" lacks "${p}"`);
      else assert.match(error.message, p);
    }
    return true;
  });
}

/** The same operations, whatever the backend: events in concurrent batches, a secret to redact, usage numbers. */
export const SAMPLE_EVENTS: [string, Record<string, unknown>][] = [
  ['persona_start', { persona_id: 'alice', runtime: 'agent-alice' }],
  ['continuous_loop_cycle', { cycle: 1, outcome: 'executed', defer_reason: null, provider_usage: { input_tokens: 1200, output_tokens: 300, total_tokens: 1500 } }],
  ['continuous_loop_cycle', { cycle: 2, outcome: 'deferred', defer_reason: 'session cap reached: 12 of 12', headers: { authorization: 'Bearer sk-live-abcdef' } }],
  ['test.unicode', { text: 'é 日本 \u2028 "quoted"', nested: { z: 1, a: [3, 2, 1], m: { api_key: 'sk-secret-value' } } }],
  ['test.numbers', { big: 1e21, small: 1e-7, neg: -0, list: [1.5, 0.1] }],
];
