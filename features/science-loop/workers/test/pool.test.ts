/**
 * The worker pool on its own (pool.ts), driven as the run CLI drives it: personas spread over
 * real worker threads, each a kernel of its own with real isolates and files; a worker ended
 * the way a crash ends it takes only its own personas down, and they come back.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { main } from '../../../../cli/main.ts';
import { KernelError } from '../../../../kernel/errors.ts';
import { acquireFileWriterLock } from '../../../persistence/state/writer-lock.ts';
import { verifyEventLog } from '../../../../kernel/events/verify.ts';
import { openLoopKernel } from '../../preset.ts';
import type { LoadedPersona } from '../../../../kernel/personas/profile-schema.ts';
import { CACHE_DIR, cycleEvents, events, fakeEnv, profile, tempDir } from '../../test/helpers.ts';
import { PersonaWorkers, type WorkerRunOptions } from '../pool.ts';
import { readRunWorkers } from '../worker-table.ts';

/** A worker's old-generation heap in the out-of-memory test: the kernel and its personas fit (it passed from 40 to 128 MB here; at 256 the queue fits too). */
const WORKER_HEAP_MB = 64;

function fleet(dir: string, count: number): LoadedPersona[] {
  return Array.from({ length: count }, (_, i) => profile(dir, `p${i}`, 'runtime: operon\n'));
}

async function options(stateDir: string, personas: LoadedPersona[], extra: Partial<WorkerRunOptions> = {}): Promise<WorkerRunOptions> {
  const env = fakeEnv();
  const kernel = await openLoopKernel({ stateDir, env, cacheDir: CACHE_DIR });
  return { workers: 2, personas, substrate: kernel.substrate, loop: { stateDir, env, spendTokens: false, cacheDir: CACHE_DIR }, everySeconds: 0, ...extra };
}

const until = async (what: string, ok: () => boolean, ms = 120_000) => {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

test('personas are spread over the workers, each in exactly one; every persona runs its cycles and its chain is whole', async () => {
  const dir = tempDir();
  const stateDir = path.join(dir, 'state');
  const personas = fleet(dir, 5);
  const seen: string[] = [];
  const pool = await PersonaWorkers.open(await options(stateDir, personas, { cycles: 3, onCycle: (r) => seen.push(`${r.persona_id}#${r.cycle}`) }));
  const shares = pool.shares;
  assert.deepEqual(shares.map((s) => s.personas), [['p0', 'p2', 'p4'], ['p1', 'p3']]);
  assert.equal(new Set(shares.map((s) => s.threadId)).size, 2, 'two distinct threads');
  assert.ok(shares.every((s) => s.threadId !== null && s.threadId > 0), 'worker threads, not the main thread (0)');
  // Each persona's writer lock is held by its worker: another writer in this process is refused.
  for (const p of personas) {
    assert.throws(() => acquireFileWriterLock(path.join(stateDir, p.profile.id), p.profile.id, 'a test'), (e: unknown) => e instanceof KernelError && e.code === 'RTC_ERR_PERSONA_LOCKED');
  }
  const runs = await pool.run();
  assert.deepEqual(runs.map((r) => r.persona_id), ['p0', 'p1', 'p2', 'p3', 'p4'], 'runs in the order given');
  // ...and released when its worker closed it.
  acquireFileWriterLock(path.join(stateDir, 'p0'), 'p0', 'a test').release();
  for (const r of runs) {
    assert.equal(r.stopped, undefined);
    assert.deepEqual(r.reports.map((c) => c.cycle), [1, 2, 3]);
    assert.equal(cycleEvents(stateDir, r.persona_id).length, 3);
    assert.equal(events(stateDir, r.persona_id).filter((e) => e.type === 'persona_start').length, 1, 'opened once, by one worker');
    assert.equal(verifyEventLog(path.join(stateDir, r.persona_id, 'logs', 'events.jsonl')).ok, true);
  }
  assert.equal(seen.length, 15, 'every cycle reported to the main thread as it was made');
  assert.equal(readRunWorkers(stateDir), undefined, 'the worker table is removed when the run ends');
});

test('a worker that dies takes only its own personas down; they restart (logged, in the worker table) while the others keep cycling', async () => {
  const dir = tempDir();
  const stateDir = path.join(dir, 'state');
  const personas = fleet(dir, 4);
  const notices: string[] = [];
  const cycles = new Map<string, number>();
  const pool = await PersonaWorkers.open(
    await options(stateDir, personas, {
      everySeconds: 0.05,
      restartDelay: () => 50,
      onNotice: (line) => notices.push(line),
      onCycle: (r) => cycles.set(r.persona_id, (cycles.get(r.persona_id) ?? 0) + 1),
    }),
  );
  const running = pool.run();
  const [first, second] = pool.shares;
  assert.deepEqual(first!.personas, ['p0', 'p2']);
  await until('a cycle of every persona', () => personas.every((p) => (cycles.get(p.profile.id) ?? 0) >= 1));
  assert.deepEqual(readRunWorkers(stateDir)?.workers.map((w) => w.restarts), [0, 0]);
  await pool.terminateWorker(1);
  await until('the restart notice', () => notices.length === 1);
  assert.match(notices[0]!, /^runtimectl: worker 1 \(personas p0, p2\) died \(exit code 1\); restarting them in 0\.05 s \(restart 1\)$/);
  // The other worker's personas go on cycling while worker 1 is down and after.
  const before = { p1: cycles.get('p1')!, p0: cycles.get('p0')! };
  await until('worker 1 back, its personas cycling again', () => (cycles.get('p0') ?? 0) > before.p0 && (cycles.get('p2') ?? 0) > before.p0);
  await until('worker 2 went on', () => (cycles.get('p1') ?? 0) > before.p1 + 1);
  const after = pool.shares;
  assert.equal(after[0]!.restarts, 1);
  assert.notEqual(after[0]!.threadId, first!.threadId, 'worker 1 is a new thread');
  assert.equal(after[1]!.restarts, 0);
  assert.equal(after[1]!.threadId, second!.threadId, 'worker 2 was never touched');
  const table = readRunWorkers(stateDir)!;
  assert.equal(table.pid, process.pid);
  assert.equal(table.workers[0]!.restarts, 1);
  assert.match(table.workers[0]!.last_death!.reason, /^exit code 1/);
  assert.equal(table.workers[1]!.last_death, null);
  // `runtimectl status` shows it to the operator.
  const out: string[] = [];
  const code = await main(['status', '--state-dir', stateDir], { stdout: (t: string) => out.push(t), stderr: (t: string) => out.push(t), cwd: dir, env: fakeEnv() });
  assert.equal(code, 0, out.join(''));
  assert.match(out.join(''), new RegExp(`run pid ${process.pid} \\(since [^)]+\\) spreads its personas over 2 worker thread\\(s\\):\n  worker 1 \\(thread \\d+\\): p0, p2; restarts 1; last died \\S+: exit code 1\n  worker 2 \\(thread \\d+\\): p1, p3; restarts 0\n`));
  pool.finish();
  const runs = await running;
  assert.ok(runs.every((r) => r.stopped === undefined), JSON.stringify(runs.map((r) => r.stopped)));
  for (const p of personas) {
    const id = p.profile.id;
    assert.equal(verifyEventLog(path.join(stateDir, id, 'logs', 'events.jsonl')).ok, true, `${id}'s chain is whole`);
    const starts = events(stateDir, id).filter((e) => e.type === 'persona_start').length;
    assert.equal(starts, id === 'p0' || id === 'p2' ? 2 : 1, `${id}: opened again only if its worker died`);
  }
});

test('with --cycles, a restarted worker runs only the cycles its personas still had', async () => {
  const dir = tempDir();
  const stateDir = path.join(dir, 'state');
  const personas = fleet(dir, 2);
  let pool: PersonaWorkers | undefined;
  let killed = false;
  pool = await PersonaWorkers.open(
    await options(stateDir, personas, {
      cycles: 3,
      everySeconds: 0.05,
      restartDelay: () => 10,
      onCycle: (r) => {
        if (r.persona_id === 'p0' && r.cycle === 1 && !killed) {
          killed = true;
          void pool!.terminateWorker(1);
        }
      },
    }),
  );
  const runs = await pool.run();
  assert.equal(killed, true);
  assert.deepEqual(runs.map((r) => [r.persona_id, r.reports.length, r.stopped]), [['p0', 3, undefined], ['p1', 3, undefined]]);
  assert.deepEqual(runs[0]!.reports.map((r) => r.cycle).slice(0, 1), [1]);
  assert.ok(cycleEvents(stateDir, 'p0').length >= 3);
});

test('a restart that cannot start one of its personas stops that persona alone, with the reason; its worker-mates and the other workers run on', async () => {
  const dir = tempDir();
  const stateDir = path.join(dir, 'state');
  const personas = fleet(dir, 3);
  const notices: string[] = [];
  let pool: PersonaWorkers | undefined;
  pool = await PersonaWorkers.open(
    await options(stateDir, personas, {
      cycles: 4,
      everySeconds: 0.05,
      restartDelay: () => 10,
      onNotice: (line) => notices.push(line),
      onCycle: (r) => {
        if (r.persona_id === 'p0' && r.cycle === 1) {
          // From now on p0 cannot start: its restart refuses it as a corrupt persona folder would.
          writeFileSync(path.join(stateDir, 'p0', 'persistence.yaml'), 'schema_version: 1\nbackend: mongo\n');
          void pool!.terminateWorker(1);
        }
      },
    }),
  );
  const runs = await pool.run();
  assert.equal(notices.length, 1, notices.join('\n'));
  assert.deepEqual(runs.map((r) => r.persona_id), ['p0', 'p1', 'p2']);
  assert.match(runs[0]!.stopped ?? '', /^RTC_ERR_WORKER_FAILED: its worker 1 was restarted and it could not start again: persona p0: .*persistence\.mongo is not installed/);
  assert.equal(runs[1]!.stopped, undefined);
  assert.equal(runs[1]!.reports.length, 4, 'the other worker finished its cycles');
  assert.equal(runs[2]!.stopped, undefined);
  assert.equal(runs[2]!.reports.length, 4, 'p0\'s worker-mate came back and finished its cycles');
});

test('a worker that dies more times in a row than allowed stops only its own personas, with the reason', async () => {
  const dir = tempDir();
  const stateDir = path.join(dir, 'state');
  const personas = fleet(dir, 2);
  let pool: PersonaWorkers | undefined;
  pool = await PersonaWorkers.open(
    await options(stateDir, personas, {
      cycles: 4,
      everySeconds: 0.05,
      maxConsecutiveDeaths: 0,
      onCycle: (r) => {
        if (r.persona_id === 'p0' && r.cycle === 1) void pool!.terminateWorker(1);
      },
    }),
  );
  const runs = await pool.run();
  assert.match(runs[0]!.stopped ?? '', /^RTC_ERR_WORKER_FAILED: its worker 1 died 1 time\(s\) in a row without completing a cycle between \(last: exit code 1\)$/);
  assert.equal(runs[1]!.stopped, undefined);
  assert.equal(runs[1]!.reports.length, 4);
  assert.equal(verifyEventLog(path.join(stateDir, 'p0', 'logs', 'events.jsonl')).ok, true);
});

test('each worker\'s persona writes its shutdown checkpoint at close; a restarted worker\'s persona starts from the checkpoint and says what it read; chains whole, verify passes', async () => {
  const dir = tempDir();
  const stateDir = path.join(dir, 'state');
  const personas = fleet(dir, 2);
  const checkpoint = (id: string) => JSON.parse(readFileSync(path.join(stateDir, id, 'logs', 'checkpoint.json'), 'utf8')) as { kind: string; chain: { seq: number } };
  const lastSeq = (id: string) => events(stateDir, id).at(-1)!.seq;
  const starts = (id: string) => events(stateDir, id).filter((e) => e.type === 'persona_start').map((e) => e.payload.history as Record<string, any>);

  // A clean run: each worker closes its persona, which writes a shutdown checkpoint at its last record.
  await (await PersonaWorkers.open(await options(stateDir, personas, { cycles: 2 }))).run();
  const closed: Record<string, number> = {};
  for (const p of personas) {
    const id = p.profile.id;
    closed[id] = lastSeq(id);
    assert.equal(checkpoint(id).kind, 'shutdown', `${id}: its worker wrote the shutdown checkpoint at close`);
    assert.equal(checkpoint(id).chain.seq, closed[id], `${id}: the checkpoint covers the log through its last record`);
  }

  // Again, and worker 1 (p0) dies mid-run: no close, so no new checkpoint; its restart reads the old one.
  const cycles = new Map<string, number>();
  const pool = await PersonaWorkers.open(
    await options(stateDir, personas, { everySeconds: 0.05, restartDelay: () => 50, onCycle: (r) => cycles.set(r.persona_id, (cycles.get(r.persona_id) ?? 0) + 1) }),
  );
  const running = pool.run();
  await until('two cycles of p0', () => (cycles.get('p0') ?? 0) >= 2);
  await pool.terminateWorker(1);
  const before = cycles.get('p0')!;
  await until('p0 cycling again after its restart', () => (cycles.get('p0') ?? 0) > before);
  pool.finish();
  const runs = await running;
  assert.ok(runs.every((r) => r.stopped === undefined), JSON.stringify(runs.map((r) => r.stopped)));

  const p0 = events(stateDir, 'p0');
  const [, second, third] = starts('p0');
  assert.equal(starts('p0').length, 3, 'p0: the clean run, this run, its restart');
  assert.equal(starts('p1').length, 2, 'p1 was never restarted');
  for (const start of [second!, third!]) {
    assert.equal(start.checkpoint, 'used', JSON.stringify(start));
    assert.equal(start.checkpoint_seq, closed.p0, 'the shutdown checkpoint of the clean run (the dead worker wrote none)');
    assert.equal(start.sealed_segments_read, 0);
  }
  // What the restart read: every record after that checkpoint up to where the dead worker left the log.
  const restartedAt = p0.filter((e) => e.type === 'persona_start')[2]!;
  const reboot = p0.findLast((e) => e.type === 'reboot' && e.seq < restartedAt.seq);
  const leftAt = (reboot ?? restartedAt).seq - 1;
  assert.equal(third!.folded_events, leftAt - closed.p0!, `folded the ${leftAt - closed.p0!} records after the checkpoint`);
  // ...and its cycle count went on from there.
  const cyclesBefore = p0.filter((e) => e.type === 'continuous_loop_cycle' && e.seq < restartedAt.seq).length;
  const firstAfter = p0.find((e) => e.type === 'continuous_loop_cycle' && e.seq > restartedAt.seq)!;
  assert.equal((firstAfter.payload as { cycle: number }).cycle, cyclesBefore + 1);
  // Both closed cleanly at the end: a shutdown checkpoint each, at its last record.
  for (const p of personas) {
    const id = p.profile.id;
    assert.equal(checkpoint(id).kind, 'shutdown');
    assert.equal(checkpoint(id).chain.seq, lastSeq(id));
    assert.equal(verifyEventLog(path.join(stateDir, id, 'logs', 'events.jsonl')).ok, true, `${id}'s chain is whole`);
  }
  const out: string[] = [];
  const code = await main(['verify', '--state-dir', stateDir], { stdout: (t: string) => out.push(t), stderr: (t: string) => out.push(t), cwd: dir, env: fakeEnv() });
  assert.equal(code, 0, out.join(''));
});

// Skipped: in the full suite (two CI runs in a row, quiet and loaded) the heap limit ends the worker
// while it completes an isolate call, and isolated-vm 5 then fails a native assertion
// (FunctorRunners::RunCatchExternal, try_catch.HasCaught()) that aborts this whole test process;
// alone the file passes. The hazard and what contains it are in ../README.md ("Out of memory").
test('a worker that runs out of memory takes only its own personas down; they restart on a new heap while the others keep cycling', { skip: 'isolated-vm 5 can abort the process when a worker is ended for its heap mid-call (../README.md, "Out of memory")' }, async () => {
  const dir = tempDir();
  const stateDir = path.join(dir, 'state');
  const personas = fleet(dir, 4);
  const notices: string[] = [];
  const cycles = new Map<string, number>();
  const queue = path.join(stateDir, 'p0', 'dm', 'queue.jsonl');
  const pool = await PersonaWorkers.open(
    await options(stateDir, personas, {
      everySeconds: 0.05,
      restartDelay: () => 50,
      // Room for the kernel and its personas, not for what the queue below makes of itself.
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
      onNotice: (line) => {
        notices.push(line);
        // The operator's fix: the queue that filled the heap is moved out of the way.
        if (existsSync(queue)) renameSync(queue, `${queue}.aside`);
      },
      onCycle: (r) => cycles.set(r.persona_id, (cycles.get(r.persona_id) ?? 0) + 1),
    }),
  );
  const running = pool.run();
  const [first, second] = pool.shares;
  assert.deepEqual(first!.personas, ['p0', 'p2']);
  await until('a cycle of every persona', () => personas.every((p) => (cycles.get(p.profile.id) ?? 0) >= 1));
  // A direct-message queue under its 16 MiB read cap, of half a million short messages: p0's
  // next cycle makes a work item of each (key, title, text) before keeping the newest, more
  // than its worker's heap holds. (Many small objects made by JS: the shape Node's heap limit
  // ends a worker on. One huge array or string built inside a builtin can abort the whole
  // process instead: nodejs/node#47224; see the workers README.)
  mkdirSync(path.dirname(queue), { recursive: true });
  writeFileSync(`${queue}.tmp`, Array.from({ length: 550_000 }, (_, i) => `{"text":"message ${String(i).padStart(7, '0')}"}\n`).join(''));
  renameSync(`${queue}.tmp`, queue);
  await until('the death notice', () => notices.length >= 1);
  assert.match(notices[0]!, /^runtimectl: worker 1 \(personas p0, p2\) died \(exit code 1: .*out of memory.*\); restarting them in 0\.05 s \(restart 1\)$/);
  const before = { p0: cycles.get('p0')!, p1: cycles.get('p1')!, p2: cycles.get('p2')! };
  await until('worker 1 back, its personas cycling again', () => cycles.get('p0')! > before.p0 && cycles.get('p2')! > before.p2);
  await until('worker 2 went on', () => cycles.get('p1')! > before.p1 + 1);
  const after = pool.shares;
  assert.deepEqual(after.map((s) => s.restarts), [1, 0]);
  assert.notEqual(after[0]!.threadId, first!.threadId, 'worker 1 is a new thread');
  assert.equal(after[1]!.threadId, second!.threadId, 'worker 2 was never touched');
  assert.match(readRunWorkers(stateDir)!.workers[0]!.last_death!.reason, /out of memory/);
  pool.finish();
  const runs = await running;
  assert.ok(runs.every((r) => r.stopped === undefined), JSON.stringify(runs.map((r) => r.stopped)));
  assert.equal(notices.length, 1, notices.join('\n'));
  for (const p of personas) {
    const id = p.profile.id;
    assert.equal(verifyEventLog(path.join(stateDir, id, 'logs', 'events.jsonl')).ok, true, `${id}'s chain is whole`);
    assert.equal(events(stateDir, id).filter((e) => e.type === 'persona_start').length, id === 'p0' || id === 'p2' ? 2 : 1, `${id}: opened again only if its worker died`);
  }
});
