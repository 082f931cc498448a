/**
 * The console's charts ask the read path for whole clock hours; there the rollups' own
 * buckets are cut at the window's start instead of reading the edge segment's raw events.
 * The figures must still be those of every raw event, hour by hour, on both backends.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openBackend } from '../../persistence/open.ts';
import { openHistoryReader } from '../../history/read-path.ts';
import { bucketsOf, hourOf, HOUR_MS } from '../../history/buckets.ts';
import { BACKENDS, idlePersona } from '../../history/test/helpers.ts';

for (const backend of BACKENDS) {
  test(`${backend}: hourly buckets over whole clock hours from rollups equal those of the raw events`, async () => {
    const p = idlePersona(backend);
    // off the hour on purpose (every 41 minutes), across several daily seals
    await p.cycles(120, 41 * 60);
    const nowMs = p.time.clock() + 17 * 60_000;
    const b = await openBackend(p.personaDir, undefined, { readonly: true });
    const events = [...b.events.read()];
    await b.close();
    const reader = await openHistoryReader(p.stateDir, 'ada');
    try {
      assert.ok(reader.entries().length >= 3, `several sealed segments (${reader.entries().length})`);
      for (const hours of [3, 24, 7 * 24]) {
        const since = hourOf(nowMs) - hours * HOUR_MS;
        const expected = bucketsOf(events, (at) => at >= since && at <= nowMs);
        assert.deepEqual(reader.buckets(since, nowMs), expected, `${hours} h`);
        const until = hourOf(nowMs) - 1;
        assert.deepEqual(reader.buckets(since, until), bucketsOf(events, (at) => at >= since && at <= until), `${hours} h to the last whole hour`);
      }
    } finally {
      await reader.close();
    }
  });
}
