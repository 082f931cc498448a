/**
 * A long-lived queue (the loop keeps one per persona) replays only what was appended since
 * its last change, yet still sees every other writer's records, checks them like the rest of
 * the chain, and falls back to a full replay when the part it already read was changed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { computeEventHash, type EventEnvelope } from '../../../kernel/events/index.ts';
import { openReviewQueue } from '../index.ts';
import { logFile, memory, personaDir, ROOMY } from './helpers.ts';

test("a long-lived queue sees another writer's decision made between its own changes", () => {
  const dir = personaDir();
  const loop = openReviewQueue(dir, { policy: ROOMY });
  loop.submit(memory('one'), { now: 1 });
  loop.submit(memory('two'), { now: 2 });
  const operator = openReviewQueue(dir);
  operator.accept('P-alpha-1', { by: 'alice', now: 3 });
  assert.throws(() => loop.reject('P-alpha-1', { by: 'bob', now: 4, reason: 'late' }), { code: 'RTC_ERR_REVIEW_DECIDED' });
  assert.deepEqual(loop.applyAccepted({ now: 5 }).applied.map((p) => p.id), ['P-alpha-1']);
  operator.accept('P-alpha-2', { by: 'alice', now: 6 });
  assert.deepEqual(loop.applyAccepted({ now: 7 }).applied.map((p) => p.id), ['P-alpha-2']);
  assert.deepEqual(loop.applyAccepted({ now: 8 }).applied, []);
});

test('a bad record appended by someone else after the cursor is refused like any other', () => {
  const dir = personaDir();
  const loop = openReviewQueue(dir, { policy: ROOMY });
  loop.submit(memory('one'), { now: 1 });
  const last = JSON.parse(fs.readFileSync(logFile(dir), 'utf8').trim()) as EventEnvelope;
  const rogue = { v: 1, seq: 2, type: 'proposal_state', payload: { schema_version: 1, id: 'P-alpha-1', from: 'pending', to: 'accepted', by: 'mallory', at: 2 }, prev: last.hash, at: new Date(2).toISOString() };
  fs.appendFileSync(logFile(dir), `${JSON.stringify({ ...rogue, hash: '0'.repeat(64) })}\n`);
  assert.throws(() => loop.applyAccepted({ now: 3 }), (error: Error & { code?: string }) => {
    assert.equal(error.code, 'RTC_ERR_REVIEW_LOG_CORRUPT');
    assert.match(error.message, /^alpha\/review\/proposals\.jsonl:2 \(seq 2\): hash does not match/);
    return true;
  });
});

test('a record this queue already read, rewritten in place with its hash recomputed, is reported; a replaced file is replayed whole', () => {
  const dir = personaDir();
  const loop = openReviewQueue(dir, { policy: ROOMY });
  loop.submit(memory('one'), { now: 1 });
  loop.submit(memory('two'), { now: 2 });
  const lines = fs.readFileSync(logFile(dir), 'utf8').split('\n');
  const edited = JSON.parse(lines[1]!) as EventEnvelope;
  (edited.payload as { proposal: { content: { text: string } } }).proposal.content.text = 'forged';
  // Even with its own hash recomputed, the edited last record no longer matches what the queue read.
  lines[1] = JSON.stringify({ ...edited, hash: computeEventHash(edited) });
  fs.writeFileSync(logFile(dir), lines.join('\n'));
  assert.throws(() => loop.accept('P-alpha-2', { by: 'alice', now: 3 }), (error: Error & { code?: string }) => {
    assert.equal(error.code, 'RTC_ERR_REVIEW_LOG_CORRUPT');
    assert.match(error.message, /^alpha\/review\/proposals\.jsonl:2 \(seq 2\): the record this process read there has changed/);
    return true;
  });

  // A file put in place of the log (a restore: a new inode) is simply replayed whole.
  const other = personaDir();
  const restored = openReviewQueue(other, { policy: ROOMY });
  restored.submit(memory('one'), { now: 1 });
  const copy = `${logFile(other)}.copy`;
  fs.copyFileSync(logFile(other), copy);
  restored.submit(memory('two'), { now: 2 });
  fs.renameSync(copy, logFile(other));
  assert.deepEqual(restored.list().map((p) => p.id), ['P-alpha-1']);
  assert.equal(restored.submit(memory('again'), { now: 3 }).status, 'queued');
  assert.deepEqual(restored.list().map((p) => p.id), ['P-alpha-1', 'P-alpha-2']);
});
