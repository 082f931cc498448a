/**
 * Two operators deciding the same proposals at once, in two processes: for each proposal
 * exactly one decision is recorded, and the other operator gets RTC_ERR_REVIEW_DECIDED in
 * one line. Also: a lock left by a dead process is taken over; a live one is waited for.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { openReviewQueue } from '../index.ts';
import { withExclusiveLock } from '../../persistence/state/exclusive-lock.ts';
import { reviewLock } from '../paths.ts';
import { logFile, memory, OPERATORS, personaDir, realEvidence, ROOMY } from './helpers.ts';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const DECIDER = path.join(ROOT, 'features/review-queue/test/decider.ts');
const COUNT = 20;

interface Outcome {
  id: string;
  status: number;
  stderr: string;
}

function decider(stateDir: string, verb: string, name: string, go: string, order: 'up' | 'down'): { ready: Promise<void>; done: Promise<Outcome[]> } {
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  const done = new Promise<Outcome[]>((resolve, reject) => {
    const child = spawn(process.execPath, ['--no-node-snapshot', '--import', 'tsx', DECIDER, stateDir, verb, name, String(COUNT), go, order, OPERATORS[name]!.home], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      stdout += chunk;
      if (stdout.includes('ready\n')) markReady();
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`decider ${name} exited ${code}: ${stderr}`));
      resolve(JSON.parse(stdout.split('\n').filter((l) => l.startsWith('['))[0]!) as Outcome[]);
    });
  });
  return { ready, done };
}

test('two processes racing accept against reject: exactly one decision per proposal, the loser told in one line', async (t) => {
  const dir = personaDir('alpha');
  const stateDir = path.dirname(dir);
  const queue = openReviewQueue(dir, { policy: ROOMY });
  const evidence = realEvidence(dir);
  for (let i = 1; i <= COUNT; i++) queue.submit({ ...memory(`fact ${i}`), evidence }, { now: i });
  const go = path.join(stateDir, 'go');
  const racers = [decider(stateDir, 'accept', 'alice', go, 'up'), decider(stateDir, 'reject', 'bob', go, 'down')];
  await Promise.race([Promise.all(racers.map((r) => r.ready)), Promise.all(racers.map((r) => r.done))]);
  fs.writeFileSync(go, '');
  const [accepts, rejects] = await Promise.all(racers.map((r) => r.done));

  let aliceWon = 0;
  for (let i = 0; i < COUNT; i++) {
    const a = accepts![i]!;
    const r = rejects![i]!;
    const winners = [a, r].filter((o) => o.status === 0);
    assert.equal(winners.length, 1, `${a.id}: exactly one of the two decisions succeeds (${a.stderr} / ${r.stderr})`);
    const loser = a.status === 0 ? r : a;
    assert.equal(loser.status, 1);
    assert.match(loser.stderr, new RegExp(`^runtimectl: RTC_ERR_REVIEW_DECIDED: ${a.id} was already (accepted by alice|rejected by bob) at `));
    assert.equal(loser.stderr.split('\n').length, 1);
    if (a.status === 0) aliceWon += 1;
  }
  t.diagnostic(`alice won ${aliceWon} of ${COUNT} races`);

  // The log agrees: one decision record per proposal, by the winner.
  const proposals = openReviewQueue(dir).list();
  for (const p of proposals) {
    assert.equal(p.history.length, 1, `${p.id} has one decision`);
    const winner = accepts!.find((o) => o.id === p.id)!.status === 0 ? 'alice' : 'bob';
    assert.equal(p.decision?.by, winner);
  }
  const decisions = fs.readFileSync(logFile(dir), 'utf8').split('\n').filter((l) => l.includes('"proposal_state"'));
  assert.equal(decisions.length, COUNT);
  assert.equal(fs.existsSync(path.join(dir, 'review', 'proposals.lock')), false, 'the lock is released');
});

test('a lock left by a process that died is taken over; a lock held by a live process is waited for, then refused', () => {
  const dir = personaDir();
  const queue = openReviewQueue(dir, { policy: ROOMY, lockWaitMs: 50 });
  queue.submit(memory('one'), { now: 1 });
  const lock = path.join(dir, 'review', 'proposals.lock');

  const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  fs.writeFileSync(lock, `${dead.stdout} 0 deadbeef\n`);
  assert.equal(queue.startReview('P-alpha-1', { by: 'alice', now: 2 }).proposal.state, 'under-review');
  assert.equal(fs.existsSync(lock), false);

  // The test runner that started this process is alive and is not us.
  fs.writeFileSync(lock, `${process.ppid} 0 cafe\n`);
  assert.throws(() => queue.accept('P-alpha-1', { by: 'alice', now: 3 }), { code: 'RTC_ERR_REVIEW_LOCKED' });
  assert.equal(fs.readFileSync(lock, 'utf8'), `${process.ppid} 0 cafe\n`, "another holder's lock is never removed");
  fs.rmSync(lock);
  assert.equal(queue.accept('P-alpha-1', { by: 'alice', now: 3 }).proposal.state, 'accepted');
});

test('a lock is not taken twice by one thread (a nested change is a bug, reported as such)', () => {
  const dir = personaDir();
  fs.mkdirSync(dir, { recursive: true });
  const lock = path.join(dir, 'x.lock');
  const use = { shown: 'x', what: 'the review lock', code: 'RTC_ERR_REVIEW_LOCKED' } as const;
  assert.throws(() => withExclusiveLock(lock, use, () => withExclusiveLock(lock, use, () => 1)), { code: 'RTC_ERR_REVIEW_LOCKED' });
  assert.equal(fs.existsSync(lock), false);
});
