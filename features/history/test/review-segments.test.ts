/**
 * The proposal log seals into segments like the event log: the queue reads the state the
 * seal's checkpoint kept plus the open segment, falls back to every sealed segment when the
 * checkpoint does not match, and refuses a history with a segment missing; every decision
 * made before a seal still holds after it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ReviewQueue } from '../../review-queue/queue.ts';
import { checkReviewState } from '../../verify/review-check.ts';
import { personaDir, memory, ROOMY, logFile } from '../../review-queue/test/helpers.ts';

const DAY = 86_400_000;
const T0 = Date.parse('2026-03-01T08:00:00.000Z');
const REVIEW = { ...ROOMY, expire_after_seconds: 30 * 86_400 };
const POLICY = { max_bytes: 4 * 1024 * 1024, rotate: 'daily' as const };

test('the proposal log seals daily; the queue reads its checkpoint and the open segment, or every segment when the checkpoint is off', async () => {
  const dir = personaDir();
  const queue = new ReviewQueue(dir, { policy: REVIEW });
  for (let i = 0; i < 3; i++) queue.submit(memory(`fact ${i}`), { now: T0 + i * 1000 });
  assert.equal(queue.sealLog(POLICY, T0 + 5000), undefined, 'not due on the same day');
  const first = queue.sealLog(POLICY, T0 + DAY);
  assert.equal(first?.segment, 1);
  const text = fs.readFileSync(logFile(dir), 'utf8').trim().split('\n');
  assert.equal(text.length, 1, 'the open segment holds only its header');
  assert.equal(JSON.parse(text[0]!).type, 'log_segment');

  queue.accept('P-alpha-2', { by: 'ops', now: T0 + DAY + 1000 });
  queue.submit(memory('fact 3'), { now: T0 + DAY + 2000 });
  assert.equal(queue.sealLog(POLICY, T0 + 2 * DAY)?.segment, 2);
  const reader = new ReviewQueue(dir, { policy: REVIEW });
  const states = () => reader.list().map((p) => `${p.id}:${p.state}`);
  assert.deepEqual(states(), ['P-alpha-1:pending', 'P-alpha-2:accepted', 'P-alpha-3:pending', 'P-alpha-4:pending']);
  assert.equal(reader.read().lastSeq, 7, 'three submits, a header, an accept, a submit, a header: one chain across the segments');

  // The checkpoint is only a shortcut: edited, the queue replays every sealed segment instead.
  const cpFile = path.join(dir, 'review', 'checkpoint.json');
  const cp = JSON.parse(fs.readFileSync(cpFile, 'utf8'));
  cp.state.proposals = [];
  cp.chain.hash = 'f'.repeat(64);
  fs.writeFileSync(cpFile, JSON.stringify(cp));
  assert.deepEqual(states(), ['P-alpha-1:pending', 'P-alpha-2:accepted', 'P-alpha-3:pending', 'P-alpha-4:pending']);
  assert.throws(() => reader.accept('P-alpha-2', { by: 'other', now: T0 + 2 * DAY + 10 }), /already accepted|RTC_ERR_REVIEW_DECIDED/);
  assert.equal(checkReviewState(dir).status, 'ok');

  // A sealed segment removed: the queue refuses to guess (the open segment's header names what is missing).
  fs.rmSync(cpFile);
  fs.rmSync(path.join(dir, 'review', 'segments', '000001.jsonl.gz'));
  assert.throws(() => new ReviewQueue(dir, { policy: REVIEW }).list(), /review\/segments\/000001\.jsonl\.gz: segment 1 of the proposal log is missing/);
});
