/**
 * benchEventAppends runs end to end on a small count and reports well-formed figures.
 * The figures themselves are for the benchmark harness, not asserted here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { benchEventAppends } from '../../kernel/events/bench.ts';

test('benchEventAppends measures group commit and the raw floor, and cleans up after itself', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rtc-'));
  const result = await benchEventAppends({ events: 600, dir, concurrency: 50 });
  assert.equal(result.events, 600);
  assert.equal(result.concurrency, 50);
  assert.ok(result.groupCommit.eventsPerSecond > 0);
  assert.ok(result.groupCommit.batches >= 1 && result.groupCommit.batches <= 600);
  assert.ok(result.groupCommit.p50AckMs <= result.groupCommit.p99AckMs);
  assert.ok(result.groupCommit.p99AckMs <= result.groupCommit.maxAckMs);
  assert.equal(result.rawFloor.batchSize, 100);
  assert.equal(result.rawFloor.fsyncs, 6);
  assert.ok(result.rawFloor.eventsPerSecond > 0);
  assert.deepEqual(fs.readdirSync(dir), [], 'scratch logs removed');
});
