/**
 * Expiry: an open proposal past its expiry becomes `expired` (a new record) the next time the
 * queue changes; an expired proposal cannot be accepted; reads never write.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { isKernelError } from '../../../kernel/errors.ts';
import { isOverdue, openReviewQueue, reviewEventsOf, type ReviewPolicy } from '../index.ts';
import { logFile, memory, personaDir } from './helpers.ts';

const MINUTE: ReviewPolicy = { max_pending: 10, rate_limit: { count: 10, per_seconds: 60 }, expire_after_seconds: 60 };

test('expireDue(now) records expired for pending and under-review proposals due at or before now, and only once', () => {
  const dir = personaDir();
  const queue = openReviewQueue(dir, { policy: MINUTE });
  queue.submit(memory('early'), { now: 0 });
  queue.submit(memory('reviewed'), { now: 10_000 });
  queue.submit(memory('decided'), { now: 20_000 });
  queue.submit(memory('late'), { now: 30_000 });
  queue.startReview('P-alpha-2', { by: 'alice', now: 40_000 });
  queue.accept('P-alpha-3', { by: 'alice', now: 40_000 });

  assert.deepEqual(queue.expireDue(59_999).expired, []);
  const first = queue.expireDue(70_000);
  assert.deepEqual(first.expired.map((p) => p.id), ['P-alpha-1', 'P-alpha-2']);
  assert.deepEqual(first.events.map((e) => [e.payload['id'], e.payload['from'], e.payload['to'], e.payload['by']]), [
    ['P-alpha-1', 'pending', 'expired', 'review-queue'],
    ['P-alpha-2', 'under-review', 'expired', 'review-queue'],
  ]);
  assert.deepEqual(queue.expireDue(70_000).expired, [], 'an expiry is recorded once');
  assert.deepEqual(queue.list().map((p) => p.state), ['expired', 'expired', 'accepted', 'pending']);
});

test('accepting an overdue proposal fails with RTC_ERR_REVIEW_EXPIRED, and its expiry is recorded on the way', () => {
  const dir = personaDir();
  const queue = openReviewQueue(dir, { policy: MINUTE });
  queue.submit(memory('one'), { now: 0 });
  let failure: unknown;
  try {
    queue.accept('P-alpha-1', { by: 'alice', now: 60_000 });
  } catch (error) {
    failure = error;
  }
  assert.ok(isKernelError(failure));
  assert.equal(failure.code, 'RTC_ERR_REVIEW_EXPIRED');
  assert.match(failure.message, /^P-alpha-1 expired at 1970-01-01T00:01:00.000Z without a decision; it cannot be accepted$/);
  assert.deepEqual(reviewEventsOf(failure).map((e) => e.payload['to']), ['expired'], 'the expiry travels with the error');
  assert.equal(queue.get('P-alpha-1').state, 'expired');
  // Later attempts meet the recorded expiry, and write nothing more.
  const size = fs.statSync(logFile(dir)).size;
  assert.throws(() => queue.reject('P-alpha-1', { by: 'bob', now: 70_000, reason: 'late' }), { code: 'RTC_ERR_REVIEW_EXPIRED' });
  assert.equal(fs.statSync(logFile(dir)).size, size);
});

test('reads never write: an overdue proposal is shown as overdue until the next change records it', () => {
  const dir = personaDir();
  const queue = openReviewQueue(dir, { policy: MINUTE });
  queue.submit(memory('one'), { now: 0 });
  const before = fs.readFileSync(logFile(dir));
  const [proposal] = queue.list();
  assert.ok(proposal);
  assert.equal(proposal.state, 'pending');
  assert.equal(isOverdue(proposal, 59_999), false);
  assert.equal(isOverdue(proposal, 60_000), true);
  queue.get('P-alpha-1');
  queue.pendingEffects();
  assert.deepEqual(fs.readFileSync(logFile(dir)), before);
});
