/**
 * Replay over a sealed history: `--cycle N` and `--from-cycle N` read only the segments (of the
 * event log and of the trace) that can hold the cycles they need, and the cycles still match
 * their record; replaying everything reads every segment.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { replayPersona } from '../../science-loop/preset.ts';
import { fakeTime, run, tempDir, CACHE_DIR } from '../../science-loop/test/helpers.ts';
import { patrolPersona, pinnedEnv } from '../../../test/replay/helpers.ts';

test('replay --cycle and --from-cycle read only the segments that hold their cycles', async () => {
  const dir = tempDir('rtc-replay-seg-');
  const stateDir = path.join(dir, 'state');
  const persona = patrolPersona(dir, 'ada');
  fs.mkdirSync(path.join(stateDir, 'ada'), { recursive: true });
  fs.writeFileSync(path.join(stateDir, 'ada', 'history.yaml'), 'schema_version: 1\nsegments: { max_bytes: 16384, rotate: size }\n');
  const time = fakeTime();
  const [result] = await run([persona], { stateDir, env: pinnedEnv(dir), clock: time.clock, sleep: time.sleep, cycles: 100, everySeconds: 3600 });
  assert.equal(result!.reports.length, 100, result!.stopped);
  const sealedEvents = fs.readdirSync(path.join(stateDir, 'ada', 'logs', 'segments')).length;
  const sealedTrace = fs.readdirSync(path.join(stateDir, 'ada', 'trace', 'segments')).length;
  assert.ok(sealedEvents >= 6 && sealedTrace >= 3, `${sealedEvents} event and ${sealedTrace} trace segments sealed`);

  const one = await replayPersona({ stateDir, personaId: 'ada', cycle: 99, cacheDir: CACHE_DIR });
  assert.equal(one.ok, true, one.divergence?.message);
  assert.equal(one.cycles, 1);
  assert.ok(one.segments_read.events < sealedEvents, `--cycle read ${one.segments_read.events} of ${sealedEvents} event segments`);
  assert.ok(one.segments_read.trace < sealedTrace, `--cycle read ${one.segments_read.trace} of ${sealedTrace} trace segments`);

  const from = await replayPersona({ stateDir, personaId: 'ada', fromCycle: 90, cacheDir: CACHE_DIR });
  assert.equal(from.ok, true, from.divergence?.message);
  assert.equal(from.cycles, 11, 'cycles 90..100 are checked');
  assert.ok(from.segments_read.events < sealedEvents);

  const all = await replayPersona({ stateDir, personaId: 'ada', cacheDir: CACHE_DIR });
  assert.equal(all.ok, true, all.divergence?.message);
  assert.equal(all.segments_read.events, sealedEvents, 'replaying everything reads every segment');
  assert.ok(all.cycles >= 100 - all.unrecorded.length);
});
