/**
 * Applying at a cycle boundary: brain/memory/long-term.md grows only through accepted memory
 * promotions, once each, with who accepted them; other kinds are recorded as awaiting an
 * operator restart; a change behind the queue's back stops application; a crash between
 * announcing and recording an append is finished, not repeated.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { isKernelError } from '../../../kernel/errors.ts';
import { applyAccepted, memoryBlock, openReviewQueue, reviewPaths } from '../index.ts';
import { RECORD_TYPES, REVIEW_SCHEMA_VERSION } from '../records.ts';
import { sha256Digest, withReviewSession } from '../session.ts';
import { digestOf, EVIDENCE, logFile, longTermFile, memory, personaDir, readOrEmpty, recordTypes, ROOMY } from './helpers.ts';

test('long-term.md grows only by accepted memory promotions, applied once each at the next cycle boundary', () => {
  const dir = personaDir();
  const queue = openReviewQueue(dir, { policy: { ...ROOMY, expire_after_seconds: 100 } });
  const lt = longTermFile(dir);
  queue.submit(memory('Accepted fact one.'), { now: 1_000 });
  queue.submit(memory('Rejected guess.'), { now: 1_001 });
  queue.submit(memory('Left to expire.'), { now: 1_002 });
  queue.submit(memory('Accepted fact two.\nWith a second line.\n'), { now: 1_003 });
  queue.submit(memory('Still pending.'), { now: 50_000 });
  queue.reject('P-alpha-2', { by: 'bob', now: 2_000, reason: 'speculative' });
  queue.accept('P-alpha-4', { by: 'carol', now: 3_000 });
  queue.accept('P-alpha-1', { by: 'alice', now: 4_000 });
  assert.equal(fs.existsSync(lt), false, 'deciding changes nothing in long-term memory');
  assert.deepEqual(queue.pendingEffects().map((p) => p.id), ['P-alpha-4', 'P-alpha-1'], 'acceptance order');

  const result = applyAccepted(dir, { now: 101_002 });
  assert.deepEqual(result.applied.map((p) => p.id), ['P-alpha-4', 'P-alpha-1']);
  assert.deepEqual(result.expired.map((p) => p.id), ['P-alpha-3']);
  assert.equal(
    fs.readFileSync(lt, 'utf8'),
    '<!-- P-alpha-4: accepted by carol at 1970-01-01T00:00:03.000Z -->\nAccepted fact two.\nWith a second line.\n' +
      '\n<!-- P-alpha-1: accepted by alice at 1970-01-01T00:00:04.000Z -->\nAccepted fact one.\n',
  );
  const applied = result.events.filter((e) => e.type === 'proposal_applied').map((e) => [e.payload['id'], e.payload['accepted_by']]);
  assert.deepEqual(applied, [
    ['P-alpha-4', 'carol'],
    ['P-alpha-1', 'alice'],
  ]);
  assert.deepEqual(queue.pendingEffects(), []);
  assert.equal(queue.get('P-alpha-1').applied?.effect.status, 'applied');

  // Nothing more to apply: the next cycle boundary leaves the file and the log alone.
  const bytes = fs.readFileSync(lt);
  const log = fs.readFileSync(logFile(dir));
  assert.deepEqual(applyAccepted(dir, { now: 101_003 }), { applied: [], expired: [], held: [], events: [] });
  assert.deepEqual(fs.readFileSync(lt), bytes);
  assert.deepEqual(fs.readFileSync(logFile(dir)), log);
  assert.doesNotMatch(bytes.toString(), /Rejected guess|Left to expire|Still pending/);
});

test('a persona that never proposed anything: applying creates nothing', () => {
  const dir = personaDir();
  assert.deepEqual(applyAccepted(dir, { now: 1 }), { applied: [], expired: [], held: [], events: [] });
  assert.equal(fs.existsSync(dir), false);
});

test('skill drafts and profile/plugin changes are recorded as awaiting an operator restart; long-term.md is untouched', () => {
  const dir = personaDir();
  const queue = openReviewQueue(dir, { policy: ROOMY });
  const profile = 'id: alpha\nruntime: agent-alpha\n';
  queue.submit({ kind: 'profile-change', proposer: 'loop', evidence: EVIDENCE, path: 'policies/personas/alpha.yaml', content: profile }, { now: 1 });
  queue.submit({ kind: 'skill-draft', proposer: 'loop', evidence: EVIDENCE, skill: 'persona/alpha/triage', package: { ref: 'gates/triage', digest: digestOf('pkg') } }, { now: 2 });
  queue.submit({ kind: 'plugin-change', proposer: 'loop', evidence: EVIDENCE, path: 'plugins/x/manifest.yaml', content: new Uint8Array([1, 2, 3]) }, { now: 3 });
  const blob = path.join(dir, 'review', 'blobs', digestOf(profile).slice(7));
  assert.equal(fs.readFileSync(blob, 'utf8'), profile, 'the proposed content is stored by its digest');
  for (const id of ['P-alpha-1', 'P-alpha-2', 'P-alpha-3']) queue.accept(id, { by: 'alice', now: 10 });
  const result = queue.applyAccepted({ now: 20 });
  assert.deepEqual(result.applied.map((p) => p.applied?.effect.status), ['awaiting-operator', 'awaiting-operator', 'awaiting-operator']);
  const effect = queue.get('P-alpha-1').applied!.effect;
  assert.ok(effect.status === 'awaiting-operator');
  assert.equal(effect.path, 'policies/personas/alpha.yaml');
  assert.equal(effect.content_digest, digestOf(profile));
  assert.match(effect.action, /restart the persona/);
  assert.equal(fs.existsSync(longTermFile(dir)), false);
});

test('a proposed file whose stored content went missing is RTC_ERR_REVIEW_BLOB at application', () => {
  const dir = personaDir();
  const queue = openReviewQueue(dir, { policy: ROOMY });
  queue.submit({ kind: 'plugin-change', proposer: 'loop', evidence: EVIDENCE, path: 'plugins/x/main.ts', content: 'export {}\n' }, { now: 1 });
  queue.accept('P-alpha-1', { by: 'alice', now: 2 });
  const blob = path.join(dir, 'review', 'blobs', digestOf('export {}\n').slice(7));
  fs.writeFileSync(blob, 'export const evil = 1;\n');
  assert.throws(() => queue.applyAccepted({ now: 3 }), { code: 'RTC_ERR_REVIEW_BLOB' });
  fs.rmSync(blob);
  assert.throws(() => queue.applyAccepted({ now: 3 }), { code: 'RTC_ERR_REVIEW_BLOB' });
  assert.equal(queue.pendingEffects().length, 1, 'it stays accepted and unapplied');
});

test('long-term.md changed outside the queue stops application with RTC_ERR_REVIEW_MEMORY_DRIFT and is left as it is', () => {
  const dir = personaDir();
  const queue = openReviewQueue(dir, { policy: ROOMY });
  queue.submit(memory('first'), { now: 1 });
  queue.accept('P-alpha-1', { by: 'alice', now: 2 });
  queue.applyAccepted({ now: 3 });
  fs.appendFileSync(longTermFile(dir), 'sneaked in\n');
  const edited = fs.readFileSync(longTermFile(dir));
  queue.submit(memory('second'), { now: 4 });
  queue.accept('P-alpha-2', { by: 'alice', now: 5 });
  let failure: unknown;
  try {
    queue.applyAccepted({ now: 6 });
  } catch (error) {
    failure = error;
  }
  assert.ok(isKernelError(failure));
  assert.equal(failure.code, 'RTC_ERR_REVIEW_MEMORY_DRIFT');
  assert.match(failure.message, /^brain\/memory\/long-term\.md changed outside the review queue: /);
  assert.deepEqual(fs.readFileSync(longTermFile(dir)), edited);
  assert.deepEqual(queue.pendingEffects().map((p) => p.id), ['P-alpha-2']);
});

test('a memory promotion whose append was announced but not recorded (a crash) is finished once, from where it stopped', () => {
  for (const written of ['none', 'half', 'all'] as const) {
    const dir = personaDir();
    const queue = openReviewQueue(dir, { policy: ROOMY });
    fs.mkdirSync(path.dirname(longTermFile(dir)), { recursive: true });
    fs.writeFileSync(longTermFile(dir), '# Long-term memory\n');
    queue.submit(memory('Survives a crash.'), { now: 1 });
    queue.accept('P-alpha-1', { by: 'alice', now: 2 });
    const proposal = queue.get('P-alpha-1');
    const offset = fs.statSync(longTermFile(dir)).size;
    const block = memoryBlock(proposal, proposal.decision!, offset);
    // What applyAccepted does before its crash: announce (synced), then perhaps part of the block.
    withReviewSession(reviewPaths(dir), 3, (session) => {
      session.append(RECORD_TYPES.applying, {
        schema_version: REVIEW_SCHEMA_VERSION,
        id: 'P-alpha-1',
        at: 3,
        file: 'brain/memory/long-term.md',
        offset,
        before_sha256: sha256Digest(fs.readFileSync(longTermFile(dir))),
        block_sha256: sha256Digest(block),
        block_bytes: block.length,
      });
    });
    const part = written === 'none' ? 0 : written === 'half' ? Math.floor(block.length / 2) : block.length;
    fs.appendFileSync(longTermFile(dir), block.subarray(0, part));

    const result = queue.applyAccepted({ now: 4 });
    assert.deepEqual(result.applied.map((p) => p.id), ['P-alpha-1'], written);
    assert.equal(fs.readFileSync(longTermFile(dir), 'utf8'), `# Long-term memory\n${block.toString('utf8')}`, written);
    assert.deepEqual(recordTypes(dir).slice(-2), ['proposal_applying', 'proposal_applied']);
    queue.applyAccepted({ now: 5 });
    assert.equal(fs.readFileSync(longTermFile(dir), 'utf8'), `# Long-term memory\n${block.toString('utf8')}`, `${written}: not repeated`);
  }
});

test('secrets in a proposed memory are redacted before they reach the log or long-term.md', () => {
  const dir = personaDir();
  const queue = openReviewQueue(dir, { policy: ROOMY });
  const queued = queue.submit(memory('The staging api_key=abcdef0123456789 works.'), { now: 1 });
  assert.ok(queued.status === 'queued');
  queue.accept('P-alpha-1', { by: 'alice', now: 2 });
  queue.applyAccepted({ now: 3 });
  assert.doesNotMatch(fs.readFileSync(logFile(dir), 'utf8'), /abcdef0123456789/);
  assert.doesNotMatch(readOrEmpty(longTermFile(dir)).toString(), /abcdef0123456789/);
  assert.match(readOrEmpty(longTermFile(dir)).toString(), /api_key=\[REDACTED\]/);
});
