/**
 * The proposal log and long-term.md are append-only: through a whole life of submissions,
 * refusals, decisions, expiries and applications, every later version of each file starts
 * with the exact bytes of the earlier one. And an edited, deleted or forged record is caught
 * by the hash chain (or the state machine) with file, line and seq named.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { computeEventHash, type EventEnvelope } from '../../../kernel/events/index.ts';
import { isKernelError } from '../../../kernel/errors.ts';
import { openReviewQueue, type ReviewPolicy } from '../index.ts';
import { checkReviewState } from '../../verify/review-check.ts';
import { EVIDENCE, logFile, longTermFile, memory, personaDir, readOrEmpty, recordTypes } from './helpers.ts';

const POLICY: ReviewPolicy = { max_pending: 3, rate_limit: { count: 4, per_seconds: 100 }, expire_after_seconds: 50 };

test('every operation only appends: each version of the log and of long-term.md is a prefix of the next', () => {
  const dir = personaDir();
  const queue = openReviewQueue(dir, { policy: POLICY });
  const files = [logFile(dir), longTermFile(dir)];
  let previous = files.map(readOrEmpty);
  let grew = 0;
  const step = (what: string, fn: () => unknown): void => {
    try {
      fn();
    } catch {
      // refused decisions are part of the life too; they must not rewrite anything either
    }
    const now = files.map(readOrEmpty);
    now.forEach((bytes, i) => {
      const before = previous[i]!;
      assert.ok(bytes.length >= before.length, `${what}: ${path.basename(files[i]!)} shrank`);
      assert.deepEqual(bytes.subarray(0, before.length), before, `${what}: ${path.basename(files[i]!)} was rewritten`);
      if (bytes.length > before.length) grew += 1;
    });
    previous = now;
  };
  let t = 0;
  for (let round = 0; round < 6; round++) {
    step('submit', () => queue.submit(memory(`fact ${round}`), { now: (t += 7_000) }));
    step('submit profile', () => queue.submit({ kind: 'profile-change', proposer: 'loop', evidence: EVIDENCE, path: 'policies/personas/alpha.yaml', content: `round ${round}\n` }, { now: (t += 1_000) }));
    step('start review', () => queue.startReview(`P-alpha-${2 * round + 1}`, { by: 'alice', now: (t += 1_000) }));
    step('accept', () => queue.accept(`P-alpha-${2 * round + 1}`, { by: 'alice', now: (t += 1_000) }));
    step('accept again', () => queue.accept(`P-alpha-${2 * round + 1}`, { by: 'bob', now: (t += 1_000) }));
    step('reject', () => queue.reject(`P-alpha-${2 * round}`, { by: 'bob', now: (t += 1_000), reason: 'no' }));
    step('apply', () => queue.applyAccepted({ now: (t += 1_000) }));
    step('expire', () => queue.expireDue((t += 20_000)));
  }
  assert.ok(grew > 20);
  const types = new Set(recordTypes(dir));
  for (const type of ['proposal_submitted', 'proposal_state', 'proposal_refused', 'operator_alert', 'proposal_applying', 'proposal_applied']) {
    assert.ok(types.has(type), `the life exercised ${type}`);
  }
  assert.equal(checkReviewState(dir).status, 'ok');
});

function lines(dir: string): string[] {
  return fs.readFileSync(logFile(dir), 'utf8').split('\n').slice(0, -1);
}

function write(dir: string, records: string[]): void {
  fs.writeFileSync(logFile(dir), `${records.join('\n')}\n`);
}

function corruption(dir: string): { code: string; message: string } {
  try {
    openReviewQueue(dir).list();
  } catch (error) {
    assert.ok(isKernelError(error));
    return { code: error.code, message: error.message };
  }
  assert.fail('the damaged log was read without complaint');
}

function decidedQueue(): string {
  const dir = personaDir();
  const queue = openReviewQueue(dir, { policy: POLICY });
  queue.submit(memory('one'), { now: 1 });
  queue.submit(memory('two'), { now: 2 });
  queue.reject('P-alpha-1', { by: 'bob', now: 3, reason: 'weak evidence' });
  return dir;
}

test('an edited record is caught: reads, changes and verification refuse the log and name the line', () => {
  const dir = decidedQueue();
  const all = lines(dir);
  // Turn the rejection into an acceptance without fixing the hash.
  all[2] = all[2]!.replace('"to":"rejected"', '"to":"accepted"');
  write(dir, all);
  const bytes = fs.readFileSync(logFile(dir));
  const { code, message } = corruption(dir);
  assert.equal(code, 'RTC_ERR_REVIEW_LOG_CORRUPT');
  assert.match(message, /^alpha\/review\/proposals\.jsonl:3 \(seq 3\): hash .* does not match/);
  assert.throws(() => openReviewQueue(dir).accept('P-alpha-2', { by: 'alice', now: 4 }), { code: 'RTC_ERR_REVIEW_LOG_CORRUPT' });
  assert.throws(() => openReviewQueue(dir).applyAccepted({ now: 4 }), { code: 'RTC_ERR_REVIEW_LOG_CORRUPT' });
  assert.deepEqual(fs.readFileSync(logFile(dir)), bytes, 'a damaged log is never written to');
  const report = checkReviewState(dir);
  assert.equal(report.status, 'failed');
  assert.equal(report.findings[0]?.line, 3);
});

test('a deleted record breaks the chain', () => {
  const dir = decidedQueue();
  const all = lines(dir);
  all.splice(1, 1);
  write(dir, all);
  const { code, message } = corruption(dir);
  assert.equal(code, 'RTC_ERR_REVIEW_LOG_CORRUPT');
  assert.match(message, /:2 \(seq 3\): seq 3 where seq 2 was expected/);
});

test('a forged second decision with a recomputed chain is still refused: a proposal is decided once', () => {
  const dir = decidedQueue();
  const all = lines(dir);
  const last = JSON.parse(all.at(-1)!) as EventEnvelope;
  const forged: Omit<EventEnvelope, 'hash'> & { hash?: string } = {
    v: 1,
    seq: last.seq + 1,
    type: 'proposal_state',
    payload: { schema_version: 1, id: 'P-alpha-1', from: 'rejected', to: 'accepted', by: 'mallory', at: 9 },
    prev: last.hash,
    at: new Date(9).toISOString(),
  };
  const hash = computeEventHash(forged);
  all.push(JSON.stringify({ ...forged, hash }));
  write(dir, all);
  const { code, message } = corruption(dir);
  assert.equal(code, 'RTC_ERR_REVIEW_LOG_CORRUPT');
  assert.match(message, /:4 \(seq 4\): P-alpha-1 becomes accepted but it was already rejected at seq 3$/);
});

test('a torn last line (a crash mid-write) is ignored by reads and saved aside and cut off by the next change, which logs the repair', () => {
  const dir = decidedQueue();
  const intact = fs.readFileSync(logFile(dir));
  fs.appendFileSync(logFile(dir), '{"v":1,"seq":4,"type":"proposal_st');
  assert.deepEqual(openReviewQueue(dir).list().map((p) => p.state), ['rejected', 'pending']);
  assert.equal(checkReviewState(dir).findings[0]?.severity, 'warning');
  const accepted = openReviewQueue(dir).accept('P-alpha-2', { by: 'alice', now: 10 });
  assert.deepEqual(accepted.events.map((e) => e.type), ['log_repaired', 'proposal_state']);
  const after = fs.readFileSync(logFile(dir));
  assert.deepEqual(after.subarray(0, intact.length), intact);
  assert.equal(fs.readFileSync(path.join(dir, 'review', 'proposals.jsonl.torn-4'), 'utf8'), '{"v":1,"seq":4,"type":"proposal_st');
  assert.equal(checkReviewState(dir).status, 'ok');
});
