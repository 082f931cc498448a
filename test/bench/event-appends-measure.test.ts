/**
 * measureEventAppends runs end to end on a small count: both variants append every event
 * (the group-commit log holds them all, chained), the figures are consistent with each other,
 * and the scratch files are gone. The figures themselves are for the benchmark, not asserted.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { measureEventAppends } from '../../bench/lib/event-appends-measure.ts';

test('measureEventAppends interleaves group commit and the raw floor over rounds, and cleans up', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rtc-'));
  try {
    const result = await measureEventAppends({ events: 1000, dir, concurrency: 50, rounds: 4 });
    assert.equal(result.events, 1000);
    assert.equal(result.rounds, 4);
    assert.equal(result.concurrency, 50);
    assert.ok(result.groupCommit.eventsPerSecond > 0 && result.rawFloor.eventsPerSecond > 0);
    // 50 appenders in flight: a write+fdatasync round carries at most 50 events.
    assert.ok(result.groupCommit.batches >= 1000 / 50 && result.groupCommit.batches <= 1000);
    assert.ok(result.groupCommit.p50AckMs <= result.groupCommit.p99AckMs);
    assert.ok(result.groupCommit.p99AckMs <= result.groupCommit.maxAckMs);
    // 250 events a round in batches of 100: 3 fsyncs a round.
    assert.equal(result.rawFloor.fsyncs, 12);
    assert.ok(result.rawFloor.fsyncP50Ms <= result.rawFloor.fsyncP99Ms);
    assert.deepEqual(fs.readdirSync(dir), [], 'scratch logs removed');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
