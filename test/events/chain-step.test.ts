/**
 * One rule for a chain's links, whether the events come from a file's lines (kernel/events/scan.ts)
 * or a table's records (features/persistence/storage/rows.ts): both name a segment header
 * that is not first, both follow the links after it, in their own unit (line, record).
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { EVENT_SCHEMA_VERSION, GENESIS_HASH, type EventEnvelope } from '../../kernel/events/envelope.ts';
import { scanEventLog } from '../../kernel/events/scan.ts';
import { SEGMENT_EVENT } from '../../kernel/events/segment-header.ts';
import { checkEventRows, encodeEvent, eventLine } from '../../features/persistence/storage/rows.ts';
import { tempDir } from '../../features/science-loop/test/helpers.ts';

function chain(types: string[]): EventEnvelope[] {
  const out: EventEnvelope[] = [];
  let prev = GENESIS_HASH;
  types.forEach((type, i) => {
    const e = encodeEvent(i + 1, prev, type, { n: i + 1 }, new Date(Date.UTC(2026, 0, 1, 0, 0, i)));
    out.push({ v: EVENT_SCHEMA_VERSION, seq: e.seq, type: e.type, payload: JSON.parse(e.payloadJson), prev: e.prev, hash: e.hash, at: e.at });
    prev = e.hash;
  });
  return out;
}

test('a segment header in the middle is one chain problem in a file (line) and in a table (record); the links after it still hold', () => {
  const events = chain(['persona_start', SEGMENT_EVENT, 'continuous_loop_cycle']);
  const file = path.join(tempDir('rtc-chain-step-'), 'events.jsonl');
  writeFileSync(file, events.map((e) => eventLine(e)).join(''));
  const fromFile = [...scanEventLog(file)];
  const fromRows = [...checkEventRows(events.map((e) => ({ ...e, payload: JSON.stringify(e.payload) })), 'events table')];
  for (const [items, unit] of [[fromFile, 'line'], [fromRows, 'record']] as const) {
    const problems = items.flatMap((i) => (i.kind === 'problem' ? [i.problem] : []));
    assert.deepEqual(problems.map((p) => [p.code, p.seq, p.what]), [['RTC_ERR_EVENTS_CHAIN', 2, `a segment header in the middle of a segment (a header is only ever the first ${unit})`]], unit);
    assert.deepEqual(items.flatMap((i) => (i.kind === 'event' ? [i.event.seq] : [])), [1, 3], `${unit}: the events around it are read`);
  }
});
