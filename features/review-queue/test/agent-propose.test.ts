/**
 * An agent's proposal (features/review-queue/agent-proposals.ts), the one path under the proposals
 * binding and the review.propose tool: always an answer, never a throw; evidence digested at
 * submission and only ever the persona's own; a bad proposal (malformed, too large, evidence
 * not the persona's) refused with nothing written; backpressure answered with when to retry.
 * The evidence refusals are tested as an attacker probes: absolute paths, "..", links out of
 * the persona folder to files that exist and that do not, /proc, and the answers compared.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { MAX_AGENT_PROPOSAL_BYTES, submitAgentProposal, type AgentAnswer } from '../agent-proposals.ts';
import { evidenceDigest, notThePersonas } from '../evidence.ts';
import { openReviewQueue, type ReviewPolicy } from '../index.ts';
import { digestOf, logFile, personaDir, readOrEmpty } from './helpers.ts';

const POLICY: ReviewPolicy = { max_pending: 3, rate_limit: { count: 100, per_seconds: 60 }, per_proposer: { count: 2, per_seconds: 600 }, expire_after_seconds: 3600 };

function persona() {
  const dir = personaDir('ada');
  fs.mkdirSync(path.join(dir, 'brain', 'artifacts'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'brain', 'artifacts', 'note.md'), 'measured twice');
  const ws = path.join(dir, 'brain', 'workspace', 'workspaces', 'main', 'notes');
  fs.mkdirSync(ws, { recursive: true });
  fs.writeFileSync(path.join(ws, 'answer.md'), 'the answer');
  const queue = openReviewQueue(dir, { policy: POLICY });
  let now = 1_000;
  const log = [{ v: 1, seq: 1, type: 'persona_start', payload: {}, prev: '0', hash: 'a'.repeat(64), at: '' }];
  const host = { personaDir: dir, queue: () => queue, eventsAfter: (seq: number) => log.filter((e) => e.seq > seq) as never, now: () => now++ };
  const propose = (raw: unknown, plugin = 'executor.x') => submitAgentProposal(host, raw, { via: 'binding', plugin });
  return { dir, queue, propose };
}

function refused(answer: AgentAnswer): Extract<AgentAnswer, { status: 'refused' }> {
  assert.equal(answer.status, 'refused', JSON.stringify(answer));
  return answer as Extract<AgentAnswer, { status: 'refused' }>;
}

test('a proposal is queued with its evidence digested now, the proposer and origin the kernel says', () => {
  const { propose, queue } = persona();
  const out = propose({ kind: 'memory-promotion', text: 'Assay B separates A from B.', evidence: ['brain/artifacts/note.md', 'workspace:notes/answer.md', { ref: 'events#1', digest: `sha256:${'a'.repeat(64)}` }] });
  assert.equal(out.answer.status, 'queued', JSON.stringify(out.answer));
  assert.ok(out.answer.status === 'queued');
  assert.equal(out.answer.id, 'P-ada-1');
  assert.equal(out.answer.proposer, 'plugin:executor.x');
  assert.deepEqual(out.answer.evidence, [
    { ref: 'brain/artifacts/note.md', digest: digestOf('measured twice') },
    { ref: 'brain/workspace/workspaces/main/notes/answer.md', digest: digestOf('the answer') },
    { ref: 'events#1', digest: `sha256:${'a'.repeat(64)}` },
  ]);
  assert.deepEqual(out.events.map((e) => e.type), ['proposal_submitted']);
  const p = queue.get('P-ada-1');
  assert.deepEqual(p.origin, { via: 'binding', plugin: 'executor.x' });
  // A digest the agent insists on must be the one the file has.
  const wrong = refused(propose({ kind: 'memory-promotion', text: 'x', evidence: [{ ref: 'brain/artifacts/note.md', digest: digestOf('something else') }] }).answer);
  assert.equal(wrong.reason, 'evidence');
  assert.match(wrong.message, /^evidence brain\/artifacts\/note\.md: its digest is sha256:[0-9a-f]{64}, not sha256:/);
});

test('evidence that is not the persona\'s gets one answer whether or not it exists: absolute, "..", links out, /proc', () => {
  const { dir, propose } = persona();
  const outside = path.join(path.dirname(dir), 'secret.txt');
  fs.writeFileSync(outside, 'the operator\'s secret');
  fs.symlinkSync(outside, path.join(dir, 'brain', 'artifacts', 'to-secret'));
  fs.symlinkSync(path.join(path.dirname(dir), 'no-such-file'), path.join(dir, 'brain', 'artifacts', 'to-nothing'));
  fs.symlinkSync('/proc/self/environ', path.join(dir, 'brain', 'artifacts', 'to-environ'));
  fs.symlinkSync(path.dirname(dir), path.join(dir, 'brain', 'artifacts', 'up'));
  fs.symlinkSync('/etc', path.join(dir, 'brain', 'workspace', 'workspaces', 'main', 'etc'));
  const probes: [string, boolean][] = [
    // [ref, whether what it points at exists]
    [outside, true],
    [path.join(path.dirname(dir), 'missing.txt'), false],
    ['/etc/passwd', true],
    ['/etc/no-such-passwd', false],
    ['/proc/self/environ', true],
    ['/proc/self/no-such', false],
    ['../secret.txt', true],
    ['../missing.txt', false],
    ['brain/../../secret.txt', true],
    ['brain/artifacts/to-secret', true],
    ['brain/artifacts/to-nothing', false],
    ['brain/artifacts/to-environ', true],
    ['brain/artifacts/up/secret.txt', true],
    ['brain/artifacts/up/missing.txt', false],
    ['workspace:../../../../../secret.txt', true],
    ['workspace:etc/passwd', true],
    ['workspace:etc/no-such', false],
    ['brain/artifacts/no-such.md', false],
    ['events#999', false],
    ['brain/artifacts/note.md\0', false],
  ];
  const before = readOrEmpty(logFile(dir));
  for (const [ref, exists] of probes) {
    const answer = refused(propose({ kind: 'memory-promotion', text: 'leak?', evidence: [ref] }).answer);
    assert.equal(answer.reason, 'evidence', ref);
    assert.equal(answer.code, 'RTC_ERR_REVIEW_EVIDENCE', ref);
    // The same words for all of them, the ref apart: nothing says whether the target exists.
    assert.equal(answer.message, notThePersonas(ref), `${ref} (exists: ${exists})`);
    assert.doesNotMatch(answer.message.replace(JSON.stringify(ref), ''), /secret|sha256|ENOENT|EACCES|permission|regular|exist/i, ref);
  }
  assert.deepEqual(readOrEmpty(logFile(dir)), before, 'no refusal wrote anything');
  // The ratification check reads a relative ref only inside the persona folder too (a link swapped in after submission).
  assert.equal(evidenceDigest('brain/artifacts/to-secret', { personaDir: dir }), undefined);
  assert.equal(evidenceDigest('brain/artifacts/up/secret.txt', { personaDir: dir }), undefined);
  assert.equal(evidenceDigest('brain/artifacts/note.md', { personaDir: dir }), digestOf('measured twice'));
});

test('inside the persona folder what is wrong may be said: a folder, a FIFO are refused by name', () => {
  const { dir, propose } = persona();
  const folder = refused(propose({ kind: 'memory-promotion', text: 'x', evidence: ['brain/artifacts'] }).answer);
  assert.match(folder.message, /^evidence brain\/artifacts: /);
  const fifo = path.join(dir, 'brain', 'artifacts', 'pipe');
  try {
    execFileSync('mkfifo', [fifo]);
  } catch {
    return;
  }
  const pipe = refused(propose({ kind: 'memory-promotion', text: 'x', evidence: ['brain/artifacts/pipe'] }).answer);
  assert.match(pipe.message, /^evidence brain\/artifacts\/pipe: .*FIFO/);
});

test('malformed and oversized proposals are refused with the field named; nothing is written, the next one is queued', () => {
  const { dir, propose } = persona();
  const cases: [unknown, RegExp][] = [
    ['just a string', /^proposal: /],
    [null, /^proposal: /],
    [[1, 2], /^proposal: /],
    [{ kind: 'world-domination', evidence: ['brain/artifacts/note.md'] }, /^proposal: kind: /],
    [{ kind: 'memory-promotion', text: 'x' }, /^proposal: evidence: /],
    [{ kind: 'memory-promotion', text: 'x', evidence: [] }, /^proposal: evidence: a proposal must rest on at least one piece of evidence/],
    [{ kind: 'memory-promotion', text: '   ', evidence: ['brain/artifacts/note.md'] }, /^proposal: text: must not be blank/],
    [{ kind: 'memory-promotion', text: 'x', evidence: ['brain/artifacts/note.md'], proposer: 'operator' }, /^proposal: /],
    [{ kind: 'memory-promotion', text: 'x', evidence: ['brain/artifacts/note.md'], origin: { via: 'cli' } }, /^proposal: /],
    [{ kind: 'profile-change', path: '../etc/passwd', content: 'x', evidence: ['brain/artifacts/note.md'] }, /^proposal: path: must be a normalised relative path/],
    [{ kind: 'memory-promotion', text: 'x', evidence: [{ ref: 'brain/artifacts/note.md', digest: 'md5:1' }] }, /digest "md5:1" is not sha256/],
    [{ kind: 'memory-promotion', text: 'x'.repeat(70_000), evidence: ['brain/artifacts/note.md'] }, /^proposal: text: /],
  ];
  for (const [raw, message] of cases) {
    const answer = refused(propose(raw).answer);
    assert.equal(answer.reason, 'invalid', JSON.stringify(raw).slice(0, 80));
    assert.equal(answer.code, 'RTC_ERR_REVIEW_INVALID');
    assert.match(answer.message, message, JSON.stringify(raw).slice(0, 80));
  }
  const big = refused(propose({ kind: 'plugin-change', path: 'plugins/x/mod.ts', content: 'y'.repeat(MAX_AGENT_PROPOSAL_BYTES), evidence: ['brain/artifacts/note.md'] }).answer);
  assert.deepEqual([big.reason, big.code], ['too_large', 'RTC_ERR_REVIEW_TOO_LARGE']);
  assert.match(big.message, /at most 524288/);
  assert.equal(fs.existsSync(logFile(dir)), false, 'nothing refused reached the log');
  assert.equal(propose({ kind: 'memory-promotion', text: 'fine', evidence: ['brain/artifacts/note.md'] }).answer.status, 'queued');
});

test('backpressure is an answer with when to retry; per proposer, then max_pending; nothing queued is dropped', () => {
  const { queue, propose } = persona();
  const ok = { kind: 'memory-promotion', text: 'x', evidence: ['brain/artifacts/note.md'] };
  assert.equal(propose(ok, 'a').answer.status, 'queued');
  assert.equal(propose(ok, 'a').answer.status, 'queued');
  const mine = refused(propose(ok, 'a').answer);
  assert.deepEqual([mine.reason, mine.code, mine.retry_after_seconds, mine.recorded], ['proposer_rate_limit', 'RTC_ERR_REVIEW_BACKPRESSURE', 600, true]);
  assert.equal(propose(ok, 'b').answer.status, 'queued');
  const full = refused(propose(ok, 'b').answer);
  assert.deepEqual([full.reason, full.retry_after_seconds, full.recorded], ['max_pending', undefined, true]);
  assert.match(full.message, /nothing already queued was dropped/);
  assert.deepEqual(queue.list().map((p) => [p.id, p.proposer, p.state]), [['P-ada-1', 'plugin:a', 'pending'], ['P-ada-2', 'plugin:a', 'pending'], ['P-ada-3', 'plugin:b', 'pending']]);
});
