import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { KERNEL_VERSION } from '../../../kernel/version.ts';
import { budgeted, cycleEvents, fakeTime, packet, profile, readJson, run, tempDir } from './helpers.ts';

type Probe = { probe: string; action: string; reason: string; skipped?: string[] };
const probe = (e: Record<string, any>, name: string): Probe => (e.probes as Probe[]).find((p) => p.probe === name)!;

test('startup smoke and bootstrap probes run once per kernel version, and again for a new version', async () => {
  const dir = tempDir();
  const stateDir = path.join(dir, 'state');
  const p = budgeted(dir, 'ada', 'executor.orchestra');
  const time = fakeTime();
  await run([p], { stateDir, cycles: 2, ...time });
  await run([p], { stateDir, ...time }); // a restart of the same version
  const [e1, e2, e3] = cycleEvents(stateDir, 'ada');
  assert.equal(probe(e1!, 'startup_smoke').action, 'ran');
  assert.equal(probe(e1!, 'bootstrap').action, 'ran');
  for (const e of [e2!, e3!]) {
    assert.deepEqual(probe(e, 'startup_smoke'), { probe: 'startup_smoke', action: 'skipped', reason: `already ran for runtimectl ${KERNEL_VERSION}` });
    assert.equal(probe(e, 'bootstrap').action, 'skipped');
  }
  // brain.json remembers an older kernel: the probes run again
  const brainFile = path.join(stateDir, 'ada', 'brain', 'memory', 'brain.json');
  const brain = readJson(brainFile);
  brain.probes.startup_smoke_version = '0.0.1';
  writeFileSync(brainFile, JSON.stringify(brain));
  await run([p], { stateDir, ...time });
  assert.equal(probe(cycleEvents(stateDir, 'ada').at(-1)!, 'startup_smoke').action, 'ran');
});

test('work packets are loaded once, by digest; a changed file is a new packet; every skip says why', async () => {
  const dir = tempDir();
  const stateDir = path.join(dir, 'state');
  const p = budgeted(dir, 'ada', 'executor.orchestra');
  const time = fakeTime();
  packet(stateDir, 'ada', 'a.md', '# Alpha\n');
  packet(stateDir, 'ada', 'b.json', JSON.stringify({ title: 'Beta', tier: 2 }));
  await run([p], { stateDir, ...time });
  await run([p], { stateDir, ...time });
  packet(stateDir, 'ada', 'a.md', '# Alpha, revised\n');
  packet(stateDir, 'ada', 'big.txt', 'x'.repeat(70 * 1024));
  await run([p], { stateDir, ...time });
  const [e1, e2, e3] = cycleEvents(stateDir, 'ada');
  assert.equal(probe(e1!, 'work_packets').action, 'ran');
  assert.deepEqual(e1!.work.offered.filter((w: { kind: string }) => w.kind === 'packet').map((w: { title: string }) => w.title), ['Alpha', 'Beta']);
  assert.deepEqual(probe(e2!, 'work_packets'), {
    probe: 'work_packets',
    action: 'skipped',
    reason: 'no new packet; skipped a.md: digest already recorded; b.json: digest already recorded',
    skipped: ['a.md: digest already recorded', 'b.json: digest already recorded'],
  });
  assert.equal(e2!.outcome, 'idle');
  assert.equal(probe(e3!, 'work_packets').action, 'ran');
  assert.match(probe(e3!, 'work_packets').reason, /^loaded 1 new packet\(s\): Alpha, revised; skipped 2$/);
  assert.deepEqual(probe(e3!, 'work_packets').skipped, ['b.json: digest already recorded', 'big.txt: 71680 bytes is over the 65536-byte cap; it was not read']);
});

test('a packet asking for a tier gets it', async () => {
  const dir = tempDir();
  const stateDir = path.join(dir, 'state');
  packet(stateDir, 'ada', 'p.md', '---\ntier: 6\n---\n# Escalate the dispute\n');
  const [r] = await run([budgeted(dir, 'ada', 'executor.orchestra')], { stateDir, ...fakeTime() });
  assert.equal(r!.reports[0]!.act.decision?.tier, 6);
  assert.deepEqual(r!.reports[0]!.act.tasks.map((t) => t.title)[0], 'Work packet: Escalate the dispute');
});

test('the direct-message queue is skipped when missing or already loaded; new lines are loaded once', async () => {
  const dir = tempDir();
  const stateDir = path.join(dir, 'state');
  const p = budgeted(dir, 'ada', 'executor.orchestra');
  const time = fakeTime();
  await run([p], { stateDir, ...time });
  const queue = path.join(stateDir, 'ada', 'dm', 'queue.jsonl');
  mkdirSync(path.dirname(queue), { recursive: true });
  writeFileSync(queue, `${JSON.stringify({ from: 'rosalind', subject: 'Check figure 2', text: 'Is the axis log scale?' })}\n`);
  await run([p], { stateDir, ...time });
  await run([p], { stateDir, ...time });
  appendFileSync(queue, 'not json\n{"from":"operon","text":"half a line');
  await run([p], { stateDir, ...time });
  const [e1, e2, e3, e4] = cycleEvents(stateDir, 'ada');
  assert.deepEqual(probe(e1!, 'dm_queue'), { probe: 'dm_queue', action: 'skipped', reason: 'queue missing (dm/queue.jsonl)' });
  assert.deepEqual(probe(e2!, 'dm_queue'), { probe: 'dm_queue', action: 'ran', reason: 'loaded 1 new message(s)' });
  assert.deepEqual(e2!.tasks_created.map((t: { title: string }) => t.title), ['Direct message: from rosalind: Check figure 2']);
  assert.deepEqual(probe(e3!, 'dm_queue'), { probe: 'dm_queue', action: 'skipped', reason: 'already loaded (1 message line(s))' });
  assert.deepEqual(probe(e4!, 'dm_queue'), { probe: 'dm_queue', action: 'ran', reason: 'loaded 0 new message(s), skipped 1', skipped: ['line 2: not JSON'] });
});

test('periodic work runs only on its cadence slot', async () => {
  const dir = tempDir();
  const stateDir = path.join(dir, 'state');
  const p = profile(dir, 'ada', `runtime: agent-ada
cadence: { cycle_seconds: 600, periodic_seconds: 1800 }
budget: { daily_tokens: 1000 }
allow: { read: ["\${state}"], write: ["\${state}"], env: [ORCHESTRA_DB, ORCHESTRA_DB_PATH] }
bindings: [ledger]`);
  // cycles every 600 s of the test clock: slots at 0, 1800 and 3600 s
  await run([p], { stateDir, cycles: 7, everySeconds: undefined, ...fakeTime() });
  const periodic = cycleEvents(stateDir, 'ada').map((e) => probe(e, 'periodic'));
  assert.deepEqual(periodic.map((x) => x.action), ['ran', 'skipped', 'skipped', 'ran', 'skipped', 'skipped', 'ran']);
  assert.equal(periodic[1]!.reason, 'not due: next cadence slot in 1200 s');
  assert.equal(periodic[3]!.reason, 'cadence slot due (every 1800 s)');
});
