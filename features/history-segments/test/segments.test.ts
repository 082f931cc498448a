/**
 * features/history-segments's own pieces: the reverse line reader the rollups are read with, the
 * segment checker's fast paths against the scanner (same verdict on sound and on damaged
 * bytes), a seal that another writer raced, and incremental verification saying how far back
 * it looked.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { tailLines, fileHistoryStorage } from '../file-storage.ts';
import { checkSegmentBytes } from '../segment-check.ts';
import { bufferLines, scanEventLines } from '../../../kernel/events/scan.ts';
import { openEventLog } from '../../../kernel/events/event-log.ts';
import { verifyHistory } from '../verify.ts';
import { checkOpenFile } from '../open-file-check.ts';
import { logHistory } from '../segments.ts';

function tmp(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'rtc-hist-'));
}

test('tailLines reads the lines of segments >= N from the end, whatever the chunk boundaries', () => {
  fc.assert(
    fc.property(fc.array(fc.integer({ min: 0, max: 70_000 }), { minLength: 1, maxLength: 40 }), fc.integer({ min: 1, max: 45 }), fc.boolean(), (sizes, from, torn) => {
      const file = path.join(tmp(), 'rollups.jsonl');
      const lines = sizes.map((n, i) => JSON.stringify({ segment: i + 1, pad: 'x'.repeat(n) }));
      fs.writeFileSync(file, `${lines.join('\n')}\n${torn ? '{"segment":999,"torn' : ''}`);
      assert.deepEqual(tailLines(file, from), lines.slice(from - 1));
    }),
    { numRuns: 60 },
  );
});

async function writeLog(dir: string, count: number): Promise<string> {
  const file = path.join(dir, 'logs', 'events.jsonl');
  const log = await openEventLog(file);
  for (let i = 0; i < count; i++) void log.append('test.tick', { i, text: `é${'z'.repeat(i % 17)}`, nested: { b: [1, { a: i }], a: null } });
  await log.close();
  return file;
}

test('the fast checks agree with the scanner on sound lines, and hand anything odd to it', async () => {
  const file = await writeLog(tmp(), 200);
  const bytes = fs.readFileSync(file);
  for (const depth of ['records', 'links'] as const) {
    const check = checkSegmentBytes(bytes, { file, depth });
    assert.deepEqual(check.problems, []);
    assert.equal(check.records, 200);
  }
  const edits: [string, (text: string) => string][] = [
    ['a payload value', (t) => t.replace('"i":7,', '"i":8,')],
    ['a payload key order (canonically the same)', (t) => t.replace('{"a":null,"b":[1,{"a":3}]}', '{"b":[1,{"a":3}],"a":null}')],
    ['whitespace in a payload (canonically the same)', (t) => t.replace('"i":9,', '"i": 9,')],
    ['a line dropped', (t) => t.split('\n').filter((_, i) => i !== 50).join('\n')],
    ['a prev', (t) => t.replace(/"prev":"[0-9a-f]{4}/, '"prev":"0000')],
    ['a truncated end', (t) => t.slice(0, -40)],
  ];
  for (const [what, edit] of edits) {
    const damaged = Buffer.from(edit(bytes.toString('utf8')));
    const scanner = [...scanEventLines(bufferLines(damaged), file)].filter((i) => i.kind !== 'event').map((i) => (i.kind === 'problem' ? i.problem.line : i.torn.line));
    for (const depth of ['records', 'links'] as const) {
      const check = checkSegmentBytes(damaged, { file, depth });
      // The scanner is the authority: a line that is not canonical but whose canonical form
      // hashes right (key order, whitespace) is sound for it, and so for the fast paths.
      assert.equal(check.problems.length > 0, scanner.length > 0, `${what}: the same verdict as the scanner at ${depth} depth`);
      if (scanner.length > 0) assert.equal(check.problems[0]!.line, scanner[0], `${what}: the same first line as the scanner`);
    }
  }
  assert.ok(edits.length > 4);
});

test('incremental verification reads only segments it has not seen, and says from where', async () => {
  const dir = tmp();
  const file = path.join(dir, 'logs', 'events.jsonl');
  const history = fileHistoryStorage({ dir: path.dirname(file), label: 'p/logs' });
  const log = await openEventLog(file, { history: logHistory(history) });
  for (let s = 0; s < 4; s++) {
    for (let i = 0; i < 50; i++) void log.append('test.tick', { s, i });
    await log.flush();
    await log.seal();
  }
  await log.close();
  const source = { history, location: file, checkOpen: (start: Parameters<typeof checkOpenFile>[1]) => checkOpenFile(file, start) };
  const first = verifyHistory(source, { mode: 'incremental' });
  assert.equal(first.ok, true);
  assert.equal(first.read_segments, 4, 'no record yet: every segment is read');
  const again = verifyHistory(source, { mode: 'incremental', since: first.record! });
  assert.equal(again.unchanged_segments, 3, 'only the last sealed segment is read again (its digest is always checked)');
  assert.equal(again.looked_back_to_segment, 4);
  assert.ok(again.looked_back_to_seq! > 150, `looked back to seq ${again.looked_back_to_seq}`);
  // A segment rewritten in place has a new identity: the next incremental run reads it, and finds the edit.
  const seg2 = path.join(dir, 'logs', 'segments', '000002.jsonl.gz');
  const bytes = fs.readFileSync(seg2);
  fs.rmSync(seg2);
  fs.writeFileSync(seg2, bytes);
  const third = verifyHistory(source, { mode: 'incremental', since: again.record! });
  assert.equal(third.ok, true);
  assert.equal(third.looked_back_to_segment, 2, 'a segment whose identity changed is read again, and everything after it');
});

test('a log with sealed segments opened without the history that checks them is refused in one line, untouched', async () => {
  const dir = tmp();
  const file = path.join(dir, 'logs', 'events.jsonl');
  const log = await openEventLog(file, { history: logHistory(fileHistoryStorage({ dir: path.dirname(file), label: 'p/logs' })) });
  await log.append('test.tick', { i: 1 });
  await log.seal();
  await log.append('test.tick', { i: 2 });
  await log.close();
  const before = fs.readFileSync(file);
  await assert.rejects(openEventLog(file), (error: unknown) => {
    const e = error as { code?: string; message: string };
    assert.equal(e.code, 'RTC_ERR_HISTORY_SEGMENT');
    assert.match(e.message, /segment 2, after 1 sealed one\(s\), and the log was opened without the history/);
    assert.doesNotMatch(e.message, /\n/);
    return true;
  });
  assert.deepEqual(fs.readFileSync(file), before, 'the file was left as it is');
  // A caller that mends the open segment only says so, and may open it.
  const mended = await openEventLog(file, { sealedUnchecked: true });
  assert.equal(mended.openSegment.index, 2);
  await mended.close();
});
