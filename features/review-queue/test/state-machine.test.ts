/**
 * The proposal state machine: pending → under-review → accepted | rejected, every change a
 * new record, state derived by replaying the log, exactly one decision per proposal, and
 * clear errors for unknown ids, second decisions and bad input.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { isKernelError } from '../../../kernel/errors.ts';
import { openReviewQueue, type ProposalInput } from '../index.ts';
import { digestOf, EVIDENCE, logFile, memory, personaDir, recordTypes, ROOMY } from './helpers.ts';

function code(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    assert.ok(isKernelError(error), `expected a KernelError, got ${String(error)}`);
    assert.ok(!error.message.includes('\n'), 'error messages are one line');
    return error.code;
  }
  assert.fail('expected an error');
}

test('a proposal moves pending → under-review → accepted, each change a new record, ids P-<persona>-<n>', () => {
  const dir = personaDir('alpha');
  const queue = openReviewQueue(dir, { policy: ROOMY });
  const first = queue.submit(memory('Small diffs review faster.'), { now: 1_000 });
  assert.equal(first.status, 'queued');
  assert.ok(first.status === 'queued');
  assert.equal(first.proposal.id, 'P-alpha-1');
  assert.equal(first.proposal.state, 'pending');
  assert.equal(first.proposal.created_at, 1_000);
  assert.equal(first.proposal.expires_at, 1_000 + 3600 * 1000);
  assert.deepEqual(first.proposal.evidence, EVIDENCE);
  assert.deepEqual(first.events.map((e) => e.type), ['proposal_submitted']);

  const second = queue.submit({ kind: 'skill-draft', proposer: 'plugin.skills', evidence: EVIDENCE, skill: 'persona/alpha/triage', package: { ref: 'gates/triage.tar', digest: digestOf('pkg') } }, { now: 1_001 });
  assert.ok(second.status === 'queued');
  assert.equal(second.proposal.id, 'P-alpha-2');

  assert.equal(queue.startReview('P-alpha-1', { by: 'alice', now: 2_000 }).proposal.state, 'under-review');
  const accepted = queue.accept('P-alpha-1', { by: 'alice', now: 3_000, reason: 'stable for a month' });
  assert.equal(accepted.proposal.state, 'accepted');
  assert.deepEqual(
    accepted.proposal.history.map((t) => [t.from, t.to, t.by]),
    [
      ['pending', 'under-review', 'alice'],
      ['under-review', 'accepted', 'alice'],
    ],
  );
  assert.equal(accepted.proposal.decision?.by, 'alice');
  assert.equal(accepted.proposal.decision?.reason, 'stable for a month');
  assert.equal(queue.reject('P-alpha-2', { by: 'bob', now: 3_001, reason: 'gate evidence is stale' }).proposal.state, 'rejected');

  assert.deepEqual(recordTypes(dir), ['proposal_submitted', 'proposal_submitted', 'proposal_state', 'proposal_state', 'proposal_state']);
  // Another reader (a fresh queue object, as another process would be) derives the same state.
  const reread = openReviewQueue(dir).list();
  assert.deepEqual(
    reread.map((p) => [p.id, p.state]),
    [
      ['P-alpha-1', 'accepted'],
      ['P-alpha-2', 'rejected'],
    ],
  );
  assert.deepEqual(openReviewQueue(dir).list({ states: ['accepted'] }).map((p) => p.id), ['P-alpha-1']);
});

test('a proposal is decided once: a second accept or reject is RTC_ERR_REVIEW_DECIDED and records nothing', () => {
  const dir = personaDir();
  const queue = openReviewQueue(dir, { policy: ROOMY });
  queue.submit(memory('one'), { now: 1 });
  queue.submit(memory('two'), { now: 2 });
  queue.accept('P-alpha-1', { by: 'alice', now: 10 });
  queue.reject('P-alpha-2', { by: 'alice', now: 11, reason: 'no' });
  const before = fs.readFileSync(logFile(dir));
  assert.equal(code(() => queue.accept('P-alpha-1', { by: 'bob', now: 12 })), 'RTC_ERR_REVIEW_DECIDED');
  assert.equal(code(() => queue.reject('P-alpha-1', { by: 'bob', now: 12, reason: 'late' })), 'RTC_ERR_REVIEW_DECIDED');
  assert.equal(code(() => queue.accept('P-alpha-2', { by: 'bob', now: 12 })), 'RTC_ERR_REVIEW_DECIDED');
  assert.equal(code(() => queue.startReview('P-alpha-2', { by: 'bob', now: 12 })), 'RTC_ERR_REVIEW_DECIDED');
  try {
    queue.accept('P-alpha-1', { by: 'bob', now: 12 });
  } catch (error) {
    assert.match((error as Error).message, /P-alpha-1 was already accepted by alice/);
  }
  assert.deepEqual(fs.readFileSync(logFile(dir)), before);
});

test('taking a proposal under review twice is RTC_ERR_REVIEW_TRANSITION; it can still be decided', () => {
  const dir = personaDir();
  const queue = openReviewQueue(dir, { policy: ROOMY });
  queue.submit(memory('one'), { now: 1 });
  queue.startReview('P-alpha-1', { by: 'alice', now: 2 });
  assert.equal(code(() => queue.startReview('P-alpha-1', { by: 'bob', now: 3 })), 'RTC_ERR_REVIEW_TRANSITION');
  assert.equal(queue.reject('P-alpha-1', { by: 'bob', now: 4, reason: 'duplicate' }).proposal.state, 'rejected');
});

test('an unknown id is RTC_ERR_REVIEW_NOT_FOUND, and asking about a persona with no queue creates nothing', () => {
  const dir = personaDir('alpha');
  const queue = openReviewQueue(dir, { policy: ROOMY });
  assert.equal(code(() => queue.accept('P-alpha-1', { by: 'alice', now: 1 })), 'RTC_ERR_REVIEW_NOT_FOUND');
  assert.equal(fs.existsSync(dir), false, 'no folder is made for a persona that never proposed');
  queue.submit(memory('one'), { now: 1 });
  assert.equal(code(() => queue.accept('P-alpha-2', { by: 'alice', now: 2 })), 'RTC_ERR_REVIEW_NOT_FOUND');
  assert.equal(code(() => queue.accept('P-beta-1', { by: 'alice', now: 2 })), 'RTC_ERR_REVIEW_NOT_FOUND');
  assert.equal(code(() => queue.get('garbage')), 'RTC_ERR_REVIEW_NOT_FOUND');
  assert.equal(queue.pendingEffects().length, 0);
});

test('bad input is refused with the field named and nothing written', () => {
  const dir = personaDir();
  const queue = openReviewQueue(dir, { policy: ROOMY });
  const bad: [string, unknown][] = [
    ['no evidence', { kind: 'memory-promotion', proposer: 'loop', evidence: [], text: 'x' }],
    ['bad digest', { kind: 'memory-promotion', proposer: 'loop', evidence: [{ ref: 'a', digest: 'md5:abc' }], text: 'x' }],
    ['blank text', { kind: 'memory-promotion', proposer: 'loop', evidence: EVIDENCE, text: '  \n' }],
    ['unknown kind', { kind: 'pack-mutation', proposer: 'loop', evidence: EVIDENCE }],
    ['escaping path', { kind: 'plugin-change', proposer: 'loop', evidence: EVIDENCE, path: '../../etc/passwd', content: 'x' }],
    ['absolute path', { kind: 'profile-change', proposer: 'loop', evidence: EVIDENCE, path: '/etc/passwd', content: 'x' }],
    ['multi-line proposer', { kind: 'memory-promotion', proposer: 'a\nb', evidence: EVIDENCE, text: 'x' }],
  ];
  for (const [what, input] of bad) {
    assert.equal(code(() => queue.submit(input as ProposalInput, { now: 1 })), 'RTC_ERR_REVIEW_INVALID', what);
  }
  assert.equal(code(() => queue.submit(memory('x'), { now: -1 })), 'RTC_ERR_REVIEW_INVALID');
  assert.equal(code(() => queue.submit(memory('x'), { now: 1.5 })), 'RTC_ERR_REVIEW_INVALID');
  assert.equal(fs.existsSync(logFile(dir)), false);
  queue.submit(memory('fine'), { now: 1 });
  assert.equal(code(() => queue.reject('P-alpha-1', { by: 'bob', now: 2, reason: ' ' })), 'RTC_ERR_REVIEW_INVALID');
  assert.equal(code(() => queue.accept('P-alpha-1', { by: '', now: 2 })), 'RTC_ERR_REVIEW_INVALID');
  assert.equal(queue.get('P-alpha-1').state, 'pending');
});

test('the same calls in two fresh directories give byte-identical logs (no wall clock, pid or host path)', () => {
  const run = (dir: string): Buffer => {
    const queue = openReviewQueue(dir, { policy: ROOMY });
    queue.submit(memory('one'), { now: 1_700_000_000_000 });
    queue.submit({ kind: 'profile-change', proposer: 'loop', evidence: EVIDENCE, path: 'policies/personas/alpha.yaml', content: 'id: alpha\n' }, { now: 1_700_000_000_500 });
    queue.startReview('P-alpha-1', { by: 'alice', now: 1_700_000_001_000 });
    queue.accept('P-alpha-1', { by: 'alice', now: 1_700_000_002_000 });
    queue.reject('P-alpha-2', { by: 'bob', now: 1_700_000_003_000, reason: 'not now' });
    queue.applyAccepted({ now: 1_700_000_004_000 });
    return fs.readFileSync(logFile(dir));
  };
  const a = personaDir('alpha');
  const b = personaDir('alpha');
  assert.notEqual(path.dirname(a), path.dirname(b));
  assert.deepEqual(run(a), run(b));
  assert.deepEqual(fs.readFileSync(path.join(a, 'brain/memory/long-term.md')), fs.readFileSync(path.join(b, 'brain/memory/long-term.md')));
});
