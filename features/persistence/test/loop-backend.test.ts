/**
 * The loop and the review queue go through the persona's persistence backend: a persona whose
 * persistence.yaml says sqlite runs its whole loop on sqlite (events, brain memory, ledger,
 * proposals) with none of the jsonl-fs files written; `verify` passes; exporting it to
 * jsonl-fs and switching continues the same hash chain; proposals queued on sqlite are
 * listed, decided and applied through the CLI and the loop's own backend.
 */
import { persistenceProvider } from '../provider.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { main } from '../../../cli/main.ts';
import type { CliIo } from '../../command/command.ts';
import type { EventEnvelope } from '../../../kernel/events/envelope.ts';
import { verifyEventLog } from '../../../kernel/events/verify.ts';
import { detectLedgerFormat } from '../../ledger/format.ts';
import { PersonaRuntime } from '../../persona/persona-runtime.ts';
import { openLoopKernel } from '../../science-loop/preset.ts';
import { openBackend, writePersistenceConfig } from '../index.ts';
import { openPersonaReviewQueue, openReviewQueue } from '../../review-queue/index.ts';
import { budgeted, CACHE_DIR, fakeEnv, fakeTime, packet, run, tempDir } from '../../science-loop/test/helpers.ts';
import { assertRejectsKernel } from './helpers.ts';
import { makeOperators } from '../../../test/support/operator.ts';

const JSONL_FS_FILES = ['logs/events.jsonl', 'brain/memory/brain.json', 'brain/memory/long-term.md', 'review/proposals.jsonl'];

/** alice, an operator whose credential signs the decisions of these tests (and whom the kernel trusts). */
const ALICE = makeOperators(['alice']).alice!;

async function cli(argv: string[], cwd: string): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIo = { stdout: (t) => void (out += t), stderr: (t) => void (err += t), cwd, env: ALICE.env };
  const code = await main(argv, io);
  return { code, out, err };
}

/** `<tmp>/state/ada` configured for sqlite, with a work packet waiting; one fake clock for every run. */
function sqlitePersona() {
  const dir = tempDir();
  const stateDir = path.join(dir, 'state');
  const personaDir = path.join(stateDir, 'ada');
  fs.mkdirSync(personaDir, { recursive: true });
  writePersistenceConfig(personaDir, 'sqlite');
  packet(stateDir, 'ada', 'q.md', '# Map the assay options\n');
  return { dir, stateDir, personaDir, persona: budgeted(dir, 'ada', 'executor.orchestra'), time: fakeTime() };
}

async function storedEvents(personaDir: string, backend?: string): Promise<EventEnvelope[]> {
  const b = await openBackend(personaDir, backend, { readonly: true });
  try {
    return [...b.events.read()];
  } finally {
    await b.close();
  }
}

test('a persona configured for sqlite runs its whole loop on sqlite; export to jsonl-fs and switching continues the same chain', async () => {
  const { dir, stateDir, personaDir, persona, time } = sqlitePersona();
  const [r] = await run([persona], { stateDir, cycles: 3, clock: time.clock, sleep: time.sleep });
  assert.equal(r!.stopped, undefined);
  assert.deepEqual(r!.reports.map((c) => c.cycle), [1, 2, 3]);

  // Nothing of the jsonl-fs layout was written: events, brain memory and proposals are in persistence.db.
  for (const rel of JSONL_FS_FILES) assert.equal(fs.existsSync(path.join(personaDir, rel)), false, `${rel} must not exist`);
  assert.ok(fs.existsSync(path.join(personaDir, 'persistence.db')));
  const events = await storedEvents(personaDir);
  assert.deepEqual(events.map((e) => e.type), ['persona_start', 'continuous_loop_cycle', 'continuous_loop_cycle', 'continuous_loop_cycle']);
  assert.deepEqual(events.map((e) => e.seq), [1, 2, 3, 4]);
  const backend = await openBackend(personaDir, undefined, { readonly: true });
  try {
    assert.equal(backend.name, 'sqlite');
    assert.equal(backend.events.verify().ok, true);
    const brain = JSON.parse(backend.memory.readBrain()!);
    assert.equal(brain.cycles, 3);
    assert.equal(brain.medium_term.recent.length, 3);
    assert.match(backend.memory.readLongTerm(), /^# Long-term memory/);
  } finally {
    await backend.close();
  }
  // The ledger is in the sqlite format, and the executor's tasks (made through the ledger binding) are in it.
  assert.equal(detectLedgerFormat(path.join(personaDir, 'orchestra', 'orchestra.db')), 'sqlite');
  const first = events[1]!.payload as Record<string, any>;
  assert.equal(first.ledger.backend, 'sqlite');
  assert.deepEqual(first.tasks_created.map((t: { title: string }) => t.title), ['Work packet: Map the assay options', 'science_patrol patrol']);
  assert.equal(first.brain.status, 'created');
  assert.equal((events[2]!.payload as Record<string, any>).brain.status, 'loaded');

  const verified = await cli(['verify', '--state-dir', stateDir], dir);
  assert.equal(verified.code, 0, verified.out + verified.err);
  assert.match(verified.out, /ada {2}persistence {2}ok {2}sqlite\n/);
  assert.match(verified.out, /ada {2}events {2}ok {2}4 event\(s\), last seq 4/);

  // Export into jsonl-fs and switch: the next run appends to the copied chain.
  const exported = await cli(['persistence', 'export', '--persona', 'ada', '--to', 'jsonl-fs', '--switch', '--state-dir', stateDir], dir);
  assert.equal(exported.code, 0, exported.err);
  assert.match(fs.readFileSync(path.join(personaDir, 'persistence.yaml'), 'utf8'), /^backend: jsonl-fs$/m);
  const [again] = await run([persona], { stateDir, cycles: 2, clock: time.clock, sleep: time.sleep });
  assert.equal(again!.stopped, undefined);
  assert.deepEqual(again!.reports.map((c) => c.cycle), [4, 5], 'the cycle count continues from the copied events');

  const log = verifyEventLog(path.join(personaDir, 'logs', 'events.jsonl'));
  assert.equal(log.ok, true);
  const after = await storedEvents(personaDir, 'jsonl-fs');
  assert.deepEqual(after.map((e) => e.seq), [1, 2, 3, 4, 5, 6, 7, 8]);
  assert.deepEqual(after.slice(0, 4), events, 'the copied chain is the sqlite chain, event for event');
  assert.deepEqual(after.slice(4).map((e) => e.type), ['reboot', 'persona_start', 'continuous_loop_cycle', 'continuous_loop_cycle']);
  assert.equal(after[4]!.prev, events[3]!.hash);
  assert.equal(JSON.parse(fs.readFileSync(path.join(personaDir, 'brain', 'memory', 'brain.json'), 'utf8')).cycles, 5);
  assert.equal(detectLedgerFormat(path.join(personaDir, 'orchestra', 'orchestra.db')), 'jsonl-fs');
  assert.equal((after[6]!.payload as Record<string, any>).ledger.backend, 'jsonl-fs');
  // The sqlite store is left as it was: still its four events.
  assert.equal((await storedEvents(personaDir, 'sqlite')).length, 4);

  const reverified = await cli(['verify', '--state-dir', stateDir], dir);
  assert.equal(reverified.code, 0, reverified.out + reverified.err);
  assert.match(reverified.out, /ada {2}events {2}ok {2}8 event\(s\), last seq 8/);

  const status = JSON.parse((await cli(['status', '--state-dir', stateDir, '--json'], dir)).out);
  assert.equal(status.personas[0].cycles, 5);
});

test('runtimectl status reads a sqlite persona through its backend', async () => {
  const { dir, stateDir, persona, time } = sqlitePersona();
  await run([persona], { stateDir, cycles: 2, clock: time.clock, sleep: time.sleep });
  const status = await cli(['status', '--state-dir', stateDir, '--json'], dir);
  assert.equal(status.code, 0, status.err);
  const [row] = JSON.parse(status.out).personas;
  assert.equal(row.persona_id, 'ada');
  assert.equal(row.cycles, 2);
  assert.equal(row.last_cycle.cycle, 2);
});

test('proposals on a sqlite persona: queued, listed, decided through the CLI, applied through the loop\'s own backend', async () => {
  const { dir, stateDir, personaDir, persona, time } = sqlitePersona();
  await run([persona], { stateDir, cycles: 1, clock: time.clock, sleep: time.sleep });

  // Without the backend, the queue refuses rather than write files nobody reads.
  await assertRejectsKernel(() => openReviewQueue(personaDir), 'RTC_ERR_REVIEW_BACKEND', 'persona ada keeps its state in the sqlite persistence backend');

  const queue = await openPersonaReviewQueue(personaDir, persistenceProvider);
  try {
    assert.match(queue.location, /persistence\.db#proposals$/);
    // Evidence the ratification check can find: event 2 of the persona's own log, by its hash.
    const event2 = await (async () => {
      const b = await openBackend(personaDir, undefined, { readonly: true });
      try {
        return [...b.events.read()].find((e) => e.seq === 2)!;
      } finally {
        await b.close();
      }
    })();
    const outcome = queue.submit({ kind: 'memory-promotion', proposer: 'loop', evidence: [{ ref: 'persistence.db#events/2', digest: `sha256:${event2.hash}` }], text: 'The assay needs a control.' }, { now: time.clock() });
    assert.equal(outcome.status, 'queued');
  } finally {
    await queue.close();
  }

  const listed = await cli(['proposals', 'list', '--state-dir', stateDir, '--json'], dir);
  assert.equal(listed.code, 0, listed.err);
  const list = JSON.parse(listed.out);
  assert.deepEqual(list.personas, ['ada']);
  assert.deepEqual(list.proposals.map((p: { id: string; state: string }) => [p.id, p.state]), [['P-ada-1', 'pending']]);
  const accepted = await cli(['proposals', 'accept', 'P-ada-1', '--by', 'alice', '--now', String(time.clock()), '--state-dir', stateDir], dir);
  assert.equal(accepted.code, 0, accepted.err);
  assert.match((await cli(['proposals', 'show', 'P-ada-1', '--state-dir', stateDir], dir)).out, /accepted/);

  // The next cycle boundary applies it through the runtime's own backend: long-term.md grows
  // inside persistence.db, the cycle event names it and the queue's records join the log.
  // (The kernel trusts alice: the decision is ratified.)
  const kernel = await openLoopKernel({ stateDir, env: fakeEnv(ALICE.env), clock: time.clock, cacheDir: CACHE_DIR });
  const runtime = await PersonaRuntime.open(kernel, persona);
  try {
    assert.equal(runtime.persistence, 'sqlite');
    const report = await runtime.cycle();
    assert.deepEqual(report.payload.review, { applied: ['P-ada-1'], expired: [] });
    const again = await runtime.cycle();
    assert.deepEqual(again.payload.review, { applied: [], expired: [] }, 'applied once, not at every boundary');
  } finally {
    await runtime.close();
  }
  const types = await (async () => {
    const b = await openBackend(personaDir, undefined, { readonly: true });
    try {
      return [...b.events.read()].map((e) => e.type);
    } finally {
      await b.close();
    }
  })();
  assert.ok(types.indexOf('proposal_applied') > types.indexOf('proposal_applying') && types.indexOf('proposal_applied') < types.lastIndexOf('continuous_loop_cycle'), types.join(', '));
  const backend = await openBackend(personaDir, undefined, { readonly: true });
  try {
    assert.match(backend.memory.readLongTerm(), /^# Long-term memory\n[\s\S]*<!-- P-ada-1: accepted by alice at [^>]+ -->\nThe assay needs a control\.\n$/);
    assert.equal(backend.proposals.lines().length, 4);
  } finally {
    await backend.close();
  }
  for (const rel of JSONL_FS_FILES) assert.equal(fs.existsSync(path.join(personaDir, rel)), false, `${rel} must not exist`);

  const verified = await cli(['verify', '--state-dir', stateDir, '--json'], dir);
  assert.equal(verified.code, 0, verified.out);
  const checks = JSON.parse(verified.out).personas[0].checks as { name: string; status: string; summary: string }[];
  assert.deepEqual(checks.find((c) => c.name === 'proposals'), { name: 'proposals', status: 'ok', summary: '1 proposal(s), 0 open, 0 refused, last seq 4', findings: [] });
});

test('a long-term memory changed behind a sqlite queue\'s back is caught by verify, as for the file', async () => {
  const { dir, stateDir, personaDir, persona, time } = sqlitePersona();
  await run([persona], { stateDir, cycles: 1, clock: time.clock, sleep: time.sleep });
  const queue = await openPersonaReviewQueue(personaDir, persistenceProvider);
  try {
    queue.submit({ kind: 'memory-promotion', proposer: 'loop', evidence: [{ ref: 'x', digest: `sha256:${'b'.repeat(64)}` }], text: 'A fact.' }, { now: 1 });
    queue.accept('P-ada-1', { by: 'alice', now: 2 });
    queue.applyAccepted({ now: 3 });
  } finally {
    await queue.close();
  }
  const backend = await openBackend(personaDir);
  try {
    backend.memory.appendLongTerm('sneaked in\n');
  } finally {
    await backend.close();
  }
  const verified = await cli(['verify', '--state-dir', stateDir, '--json'], dir);
  assert.equal(verified.code, 1);
  const check = JSON.parse(verified.out).personas[0].checks.find((c: { name: string }) => c.name === 'proposals');
  assert.equal(check.status, 'failed');
  assert.equal(check.findings[0].code, 'RTC_ERR_REVIEW_MEMORY_DRIFT');
  assert.match(check.findings[0].file, /persistence\.db#long-term\.md$/);
});

test('on jsonl-fs (no persistence.yaml) the loop\'s review queue is the file review/proposals.jsonl, also through a symbolic link to the state', async () => {
  const dir = tempDir();
  fs.mkdirSync(path.join(dir, 'real-state'));
  fs.symlinkSync(path.join(dir, 'real-state'), path.join(dir, 'state'));
  const stateDir = path.join(dir, 'state');
  const persona = budgeted(dir, 'ada', 'executor.orchestra');
  const time = fakeTime();
  const kernel = await openLoopKernel({ stateDir, env: fakeEnv(), clock: time.clock, cacheDir: CACHE_DIR });
  const runtime = await PersonaRuntime.open(kernel, persona);
  try {
    assert.equal(runtime.persistence, 'jsonl-fs');
    await runtime.cycle();
    const queue = runtime.reviewQueue();
    assert.equal(queue.location, path.join(stateDir, 'ada', 'review', 'proposals.jsonl'));
    queue.submit({ kind: 'memory-promotion', proposer: 'loop', evidence: [{ ref: 'x', digest: `sha256:${'c'.repeat(64)}` }], text: 'A fact.' }, { now: time.clock() });
  } finally {
    await runtime.close();
  }
  for (const rel of JSONL_FS_FILES) assert.ok(fs.existsSync(path.join(stateDir, 'ada', rel)), `${rel} exists`);
  assert.equal(fs.existsSync(path.join(stateDir, 'ada', 'persistence.db')), false);
});
