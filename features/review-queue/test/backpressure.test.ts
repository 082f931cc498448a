/**
 * Backpressure: a per-persona cap on open proposals and a sliding-window rate limit. A
 * refused proposal is never silent (a proposal_refused record and an operator_alert, in the
 * log and in the returned events), and nothing already queued is dropped or changed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { isKernelError } from '../../../kernel/errors.ts';
import { DEFAULT_REVIEW_POLICY, openReviewQueue, parseReviewPolicy, reviewPolicySchema, type ReviewPolicy } from '../index.ts';
import { logFile, memory, personaDir, recordTypes } from './helpers.ts';

const CAP_2: ReviewPolicy = { max_pending: 2, rate_limit: { count: 100, per_seconds: 60 }, expire_after_seconds: 3600 };

test('past max_pending a proposal is refused with a refusal record and an operator alert; the queue is intact', () => {
  const dir = personaDir();
  const queue = openReviewQueue(dir, { policy: CAP_2 });
  queue.submit(memory('one'), { now: 1_000 });
  queue.submit(memory('two'), { now: 2_000 });
  const before = fs.readFileSync(logFile(dir));
  const stateBefore = queue.list();

  const refused = queue.submit(memory('three'), { now: 3_000 });
  assert.equal(refused.status, 'refused');
  assert.ok(refused.status === 'refused');
  assert.equal(refused.refusal.reason, 'max_pending');
  assert.equal(refused.refusal.limit, 2);
  assert.equal(refused.refusal.observed, 2);
  assert.deepEqual(refused.events.map((e) => e.type), ['proposal_refused', 'operator_alert']);
  const alert = refused.events[1]!.payload;
  assert.equal(alert['alert'], 'review_backpressure');
  assert.equal(alert['refusal_seq'], refused.refusal.refusal_seq);
  assert.match(String(alert['message']), /nothing already queued was dropped/);
  assert.equal(refused.events[0]!.payload['proposal_log_seq'], refused.refusal.refusal_seq);

  const after = fs.readFileSync(logFile(dir));
  assert.deepEqual(after.subarray(0, before.length), before, 'the refusal only appended');
  assert.deepEqual(queue.list(), stateBefore, 'queued proposals are unchanged');
  assert.deepEqual(recordTypes(dir), ['proposal_submitted', 'proposal_submitted', 'proposal_refused', 'operator_alert']);
  const state = queue.read();
  assert.equal(state.refusals.length, 1);
  assert.equal(state.alerts.length, 1);

  // A decision frees a slot (under-review still counts as open).
  queue.startReview('P-alpha-1', { by: 'alice', now: 4_000 });
  assert.equal(queue.submit(memory('four'), { now: 4_001 }).status, 'refused');
  queue.accept('P-alpha-1', { by: 'alice', now: 5_000 });
  const queued = queue.submit(memory('five'), { now: 5_001 });
  assert.ok(queued.status === 'queued');
  assert.equal(queued.proposal.id, 'P-alpha-3', 'refusals take no id');
});

test('the rate limit counts proposals queued in a sliding window; refusals do not count', () => {
  const dir = personaDir();
  const policy: ReviewPolicy = { max_pending: 100, rate_limit: { count: 2, per_seconds: 10 }, expire_after_seconds: 3600 };
  const queue = openReviewQueue(dir, { policy });
  assert.equal(queue.submit(memory('a'), { now: 0 }).status, 'queued');
  assert.equal(queue.submit(memory('b'), { now: 1_000 }).status, 'queued');
  const refused = queue.submit(memory('c'), { now: 5_000 });
  assert.ok(refused.status === 'refused');
  assert.equal(refused.refusal.reason, 'rate_limit');
  assert.equal(refused.refusal.window_seconds, 10);
  assert.equal(refused.refusal.recorded, true);
  // The same proposer, the same reason, nothing queued since and within the window: answered
  // as refused, pointing at the record already written, and not written again.
  const repeat = queue.submit(memory('d'), { now: 9_999 });
  assert.ok(repeat.status === 'refused');
  assert.deepEqual([repeat.refusal.recorded, repeat.refusal.refusal_seq, repeat.refusal.alert_seq], [false, refused.refusal.refusal_seq, refused.refusal.alert_seq]);
  assert.deepEqual(repeat.events, []);
  // At 10 s the first proposal leaves the window, and the refusals never entered it.
  assert.equal(queue.submit(memory('e'), { now: 10_000 }).status, 'queued');
  // A proposal queued since: the next refusal is a new episode, recorded.
  const next = queue.submit(memory('f'), { now: 10_500 });
  assert.ok(next.status === 'refused' && next.refusal.recorded);
  assert.equal(queue.submit(memory('g'), { now: 11_000 }).status, 'queued');
  assert.deepEqual(queue.list().map((p) => p.id), ['P-alpha-1', 'P-alpha-2', 'P-alpha-3', 'P-alpha-4']);
  assert.equal(queue.read().alerts.length, 2);
});

test('per_proposer: one noisy proposer is refused while others still queue; a flood of its refusals writes two records, and a reminder per window', () => {
  const dir = personaDir();
  const policy: ReviewPolicy = { max_pending: 100, rate_limit: { count: 100, per_seconds: 60 }, per_proposer: { count: 2, per_seconds: 10 }, expire_after_seconds: 3600 };
  const queue = openReviewQueue(dir, { policy });
  assert.equal(queue.submit(memory('a1', 'plugin:noisy'), { now: 0 }).status, 'queued');
  assert.equal(queue.submit(memory('a2', 'plugin:noisy'), { now: 1 }).status, 'queued');
  const refused = queue.submit(memory('a3', 'plugin:noisy'), { now: 2 });
  assert.ok(refused.status === 'refused');
  assert.deepEqual([refused.refusal.reason, refused.refusal.limit, refused.refusal.observed, refused.refusal.window_seconds, refused.refusal.recorded], ['proposer_rate_limit', 2, 2, 10, true]);
  assert.match(refused.refusal.message, /^plugin:noisy queued 2 proposals in the last 10s and may queue 2 \(per_proposer\)$/);
  // Others are not held back by it.
  assert.equal(queue.submit(memory('b1', 'agent:executor.codex'), { now: 3 }).status, 'queued');
  const before = fs.readFileSync(logFile(dir));
  for (let i = 0; i < 500; i++) {
    const again = queue.submit(memory(`flood ${i}`, 'plugin:noisy'), { now: 4 + i });
    assert.ok(again.status === 'refused' && !again.refusal.recorded);
  }
  assert.deepEqual(fs.readFileSync(logFile(dir)), before, 'a flood of refusals writes nothing more');
  // The window passed: its proposals left it, and it queues again.
  assert.equal(queue.submit(memory('a4', 'plugin:noisy'), { now: 10_001 }).status, 'queued');
  assert.deepEqual(queue.read().refusals.map((r) => [r.proposer, r.reason]), [['plugin:noisy', 'proposer_rate_limit']]);

  // max_pending reminds once per rate window while nothing changes.
  const full = openReviewQueue(personaDir(), { policy: { max_pending: 1, rate_limit: { count: 100, per_seconds: 60 }, expire_after_seconds: 3600 } });
  full.submit(memory('only'), { now: 0 });
  assert.ok(full.submit(memory('x'), { now: 1_000 }).status === 'refused');
  const quiet = full.submit(memory('y'), { now: 59_999 });
  assert.ok(quiet.status === 'refused' && !quiet.refusal.recorded);
  const reminder = full.submit(memory('z'), { now: 61_000 });
  assert.ok(reminder.status === 'refused' && reminder.refusal.recorded);
  assert.equal(full.read().alerts.length, 2);
});

test('an expired proposal frees its slot: expiry is recorded before the cap is counted', () => {
  const dir = personaDir();
  const queue = openReviewQueue(dir, { policy: { ...CAP_2, expire_after_seconds: 60 } });
  queue.submit(memory('one'), { now: 0 });
  queue.submit(memory('two'), { now: 1_000 });
  assert.equal(queue.submit(memory('three'), { now: 59_000 }).status, 'refused');
  const later = queue.submit(memory('four'), { now: 60_000 });
  assert.equal(later.status, 'queued');
  assert.deepEqual(later.events.map((e) => [e.type, e.payload['to'] ?? '']), [
    ['proposal_state', 'expired'],
    ['proposal_submitted', ''],
  ]);
});

test('the policy schema has defaults to embed in a profile and refuses bad values with the field named', () => {
  assert.deepEqual(reviewPolicySchema.parse({ ...DEFAULT_REVIEW_POLICY }), DEFAULT_REVIEW_POLICY);
  assert.equal(reviewPolicySchema.safeParse({ ...DEFAULT_REVIEW_POLICY, surprise: 1 }).success, false);
  for (const bad of [{ ...DEFAULT_REVIEW_POLICY, max_pending: 0 }, { ...DEFAULT_REVIEW_POLICY, rate_limit: { count: 1 } }, { ...DEFAULT_REVIEW_POLICY, expire_after_seconds: 1.5 }]) {
    try {
      parseReviewPolicy(bad);
      assert.fail('expected an error');
    } catch (error) {
      assert.ok(isKernelError(error));
      assert.equal(error.code, 'RTC_ERR_REVIEW_INVALID');
      assert.match(error.message, /^review policy: (max_pending|rate_limit\.per_seconds|expire_after_seconds): /);
    }
  }
  const embedded = reviewPolicySchema.default(DEFAULT_REVIEW_POLICY);
  assert.deepEqual(embedded.parse(undefined), DEFAULT_REVIEW_POLICY);
  assert.throws(() => openReviewQueue(personaDir(), { policy: { max_pending: -1 } as ReviewPolicy }), { code: 'RTC_ERR_REVIEW_INVALID' });
});
