/**
 * persistence.postgres against a real PostgreSQL server (a throwaway cluster, test/support/
 * postgres.ts): the shared backend suite; the export round trip jsonl-fs → postgres → sqlite →
 * jsonl-fs byte for byte; versioned migrations (a newer database refused); row-level security
 * between personas and the statement guard; one writer per persona across processes (two
 * kernels racing, one SIGKILLed mid-cycle and taken over after its lease expired); each bad
 * input as one line naming the persona; and the fleet view (status/activity --dsn).
 *
 * Skipped with the reason when PostgreSQL is not installed; RUNTIMECTL_REQUIRE_POSTGRES=1
 * (set by .ci/run) turns that into a failure.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { APP_PASSWORD, postgresSkipReason, startPostgres, type TestPostgres } from '../../../test/support/postgres.ts';
import { loginRole, nobodyRole, rolePrefix } from '../storage/postgres/pg-roles.ts';
import { closeBridges } from '../storage/postgres/pg-bridge.ts';
import { copyPersistence, eventLine, openBackend, writePersistenceConfig } from '../index.ts';
import type { PersonaBackend } from '../backend.ts';
import { main } from '../../../cli/main.ts';
import { rollupOf } from '../../history/rollup.ts';
import { backendSuite, exercise } from './backend-suite.ts';
import { assertRejectsKernel, personaDir, pinnedClock } from './helpers.ts';
import { budgeted, tempDir } from '../../science-loop/test/helpers.ts';
import { ledgerOf } from '../../ledger/access.ts';
import { COPY_PARTS } from './copy-parts.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..', '..', '..');
const skip = postgresSkipReason();

let pg: TestPostgres;
let n = 0;
/** A persona id no other test of this run uses (the database is shared by all of them). */
const fresh = (prefix = 'p') => `${prefix}-${process.pid}-${++n}`;

function rowsOf(sql: string): Record<string, unknown>[] {
  return JSON.parse(pg.admin(sql)) as Record<string, unknown>[];
}

/** What the database holds for one persona, table by table (a reader must change none of it). */
function fingerprint(dir: string): unknown {
  const persona = path.basename(dir);
  const q = (table: string, cols: string) => rowsOf(`SELECT ${cols} FROM ${table} WHERE persona = '${persona}' ORDER BY 1, 2`);
  return {
    events: q('runtimectl_kernel.events', 'seq, hash'),
    memory: q('runtimectl.memory', 'name, md5(content)'),
    proposals: q('runtimectl.proposals', 'seq, md5(line)'),
    ledger: q('runtimectl.ledger_changes', 'db, seq, md5(record)'),
  };
}

async function cli(argv: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, { stdout: (t) => void (out += t), stderr: (t) => void (err += t), cwd: ROOT, env });
  return { code, out, err };
}

function oneLine(message: string): void {
  assert.ok(!message.includes('\n'), `one line: ${message}`);
}

describe('persistence.postgres on a real server', { skip }, () => {
  before(async () => {
    pg = await startPostgres({ tcp: true });
  });
  after(async () => {
    await closeBridges();
    pg?.stop();
  });

  backendSuite({ name: 'postgres', options: () => ({ dsn: pg.dsn }), shared: true, fingerprint });

  test('export round trip jsonl-fs → postgres → sqlite → jsonl-fs is byte-identical: events, memory, proposals, ledger', async () => {
    const persona = fresh('trip');
    const start = personaDir(persona);
    const files = await openBackend(start, 'jsonl-fs', { now: pinnedClock() });
    await exercise(files);
    const { store } = ledgerOf(files).open();
    const t = store.addTask({ title: 'survives the trip', by: 'tester', now: 1 });
    store.moveTask(t.id, 'ready', { by: 'tester', now: 2 });
    store.recordSurprise({ observation: 'odd', affects: [t.id], by: 'tester', now: 3 });
    store.close();
    const doc = ledgerOf(files).exportDoc();
    await files.close();
    const original = ['logs/events.jsonl', 'brain/memory/brain.json', 'brain/memory/long-term.md', 'review/proposals.jsonl'].map((f) => fs.readFileSync(path.join(start, f)));

    const hop = async (fromDir: string, from: string, toDir: string, to: string) => {
      const a = await openBackend(fromDir, from, { readonly: true, dsn: pg.dsn });
      const b = await openBackend(toDir, to, { dsn: pg.dsn });
      try {
        return await copyPersistence(a, b, COPY_PARTS);
      } finally {
        await b.close();
        await a.close();
      }
    };
    const pgDir = personaDir(persona);
    const toPg = await hop(start, 'jsonl-fs', pgDir, 'postgres');
    assert.equal((toPg.ledger as { status: string }).status, 'copied');
    const sqliteDir = personaDir(persona);
    await hop(pgDir, 'postgres', sqliteDir, 'sqlite');
    const endDir = personaDir(persona);
    await hop(sqliteDir, 'sqlite', endDir, 'jsonl-fs');
    ['logs/events.jsonl', 'brain/memory/brain.json', 'brain/memory/long-term.md', 'review/proposals.jsonl'].forEach((f, i) => {
      assert.ok(fs.readFileSync(path.join(endDir, f)).equals(original[i]!), `${f} is byte-identical after jsonl-fs → postgres → sqlite → jsonl-fs`);
    });
    const end = await openBackend(endDir, 'jsonl-fs', { readonly: true });
    assert.deepEqual(ledgerOf(end).exportDoc(), doc);
    await end.close();
    // The chain in Postgres is the same chain, line for line.
    const inPg = await openBackend(pgDir, 'postgres', { readonly: true, dsn: pg.dsn });
    assert.equal([...inPg.events.read()].map(eventLine).join(''), original[0]!.toString('utf8'));
    await inPg.close();
  });

  test('sealed segments are rows: the seal is one transaction, a reopen checks them, verify reads them, and a segmented export keeps every digest', async () => {
    const persona = fresh('seg');
    const dir = personaDir(persona);
    const backend = await openBackend(dir, 'postgres', { dsn: pg.dsn, now: pinnedClock() });
    // The loop's rollup: the copy below recomputes it for each segment and must find the one sealed.
    await backend.events.open({ rollup: rollupOf });
    for (let i = 0; i < 5; i++) await backend.events.append('test.one', { i });
    const first = await backend.events.seal();
    assert.ok(first, 'a segment with records seals');
    assert.equal(first.entry.segment, 1);
    for (let i = 0; i < 3; i++) await backend.events.append('test.two', { i });
    const second = await backend.events.seal({ attached: { note: 'second' } });
    assert.equal(second?.entry.segment, 2);
    await backend.events.append('test.three', {});
    assert.equal(await backend.events.seal().then((o) => o?.entry.segment), 3);
    assert.equal(await backend.events.seal(), undefined, 'a segment holding only its header is not sealed');
    await backend.close();
    // Only the open segment (its header) stays in runtimectl_kernel.events; the sealed ones are rows of event_segments.
    assert.deepEqual(rowsOf(`SELECT count(*)::int AS n FROM runtimectl_kernel.events WHERE persona = '${persona}'`), [{ n: 1 }]);
    assert.deepEqual(rowsOf(`SELECT segment FROM runtimectl_kernel.event_segments WHERE persona = '${persona}' ORDER BY segment`), [{ segment: 1 }, { segment: 2 }, { segment: 3 }]);
    assert.equal(rowsOf(`SELECT count(*)::int AS n FROM runtimectl_kernel.event_rollups WHERE persona = '${persona}'`)[0]!.n, 3);

    // A reopen checks the sealed side and continues the chain after the header.
    const again = await openBackend(dir, 'postgres', { dsn: pg.dsn, now: pinnedClock() });
    const startup = await again.events.open();
    assert.equal(startup.rebooted, true);
    assert.equal(again.events.openSegment().index, 4);
    await again.close();
    const reader = await openBackend(dir, 'postgres', { readonly: true, dsn: pg.dsn });
    const all = [...reader.events.read()];
    assert.deepEqual(all.map((e) => e.seq), all.map((_, i) => i + 1), 'one chain across the segments');
    assert.equal(all.filter((e) => e.type === 'log_segment').length, 3);
    assert.deepEqual([...reader.events.readAfter(all.at(-2)!.seq)].map((e) => e.seq), [all.at(-1)!.seq]);
    const report = reader.events.verify();
    assert.equal(report.ok, true, JSON.stringify(report.problems));
    assert.equal(report.events, all.length);

    // The copy into jsonl-fs is segmented as the source: the same segment bytes, file for row.
    const copyDir = personaDir(persona);
    const files = await openBackend(copyDir, 'jsonl-fs');
    await copyPersistence(reader, files, COPY_PARTS);
    const sourceIndex = reader.events.history.readIndex().map((l) => JSON.parse(l).sha256);
    assert.deepEqual(files.events.history.readIndex().map((l) => JSON.parse(l).sha256), sourceIndex);
    assert.deepEqual([...files.events.read()].map(eventLine), all.map(eventLine));
    await files.close();
    await reader.close();

    // An edited sealed segment is refused at the next open, naming it; the rows are left as they are.
    pg.admin(`UPDATE runtimectl_kernel.event_segments SET data = decode('00', 'hex') WHERE persona = '${persona}' AND segment = 3`);
    const before = rowsOf(`SELECT count(*)::int AS n FROM runtimectl_kernel.events WHERE persona = '${persona}'`);
    const broken = await openBackend(dir, 'postgres', { dsn: pg.dsn });
    await assert.rejects(broken.events.open(), (e: Error & { code?: string }) => e.code?.startsWith('RTC_ERR_HISTORY') === true && e.message.includes('event_segments'));
    await broken.close();
    assert.deepEqual(rowsOf(`SELECT count(*)::int AS n FROM runtimectl_kernel.events WHERE persona = '${persona}'`), before);
  });

  test('a database migrated by a newer runtimectl is refused with one line, untouched', async () => {
    const persona = fresh();
    const warm = await openBackend(personaDir(persona), 'postgres', { dsn: pg.dsn });
    await warm.events.append('test.one', {});
    await warm.close();
    for (const component of ['kernel', 'persistence.postgres']) {
      pg.admin(`UPDATE runtimectl_kernel.schema_versions SET version = version + 98 WHERE component = '${component}'`);
      try {
        // A DSN this process has not checked yet (a kernel starting against the upgraded database).
        const dsn = `${pg.dsn}&application_name=${component.replace('.', '-')}`;
        const before = rowsOf(`SELECT count(*)::int AS n FROM runtimectl_kernel.events`);
        await assertRejectsKernel(() => openBackend(personaDir(persona), 'postgres', { dsn }), 'RTC_ERR_PERSISTENCE_SCHEMA_NEWER', `persona ${persona}`, `the ${component} schema is version`, 'upgrade runtimectl');
        assert.deepEqual(rowsOf(`SELECT count(*)::int AS n FROM runtimectl_kernel.events`), before);
      } finally {
        pg.admin(`UPDATE runtimectl_kernel.schema_versions SET version = version - 98 WHERE component = '${component}'`);
      }
    }
    const tables = rowsOf("SELECT component, version FROM runtimectl_kernel.schema_versions ORDER BY component");
    assert.deepEqual(tables, [
      { component: 'kernel', version: 3 },
      { component: 'persistence.postgres', version: 1 },
    ]);
  });

  test('row-level security keeps each persona to its own rows by its login role; the DSN role may not bypass it, and needs CREATEROLE', async () => {
    const a = fresh('rls');
    const b = fresh('rls');
    for (const [p, text] of [
      [a, '{"owner":"a"}'],
      [b, '{"owner":"b"}'],
    ] as const) {
      const backend = await openBackend(personaDir(p), 'postgres', { dsn: pg.dsn });
      backend.memory.writeBrain(text);
      await backend.close();
    }
    // As persona a's own role (what its plugin's statements run as; SET SESSION AUTHORIZATION is the superuser's test tool).
    const prefix = rolePrefix('runtimectl');
    const as = (role: string, sql: string) => rowsOf(`SET SESSION AUTHORIZATION ${role}; ${sql}`);
    assert.deepEqual(as(loginRole(prefix, 'persona', a), 'SELECT persona, content FROM runtimectl.memory'), [{ persona: a, content: '{"owner":"a"}' }]);
    assert.deepEqual(as(loginRole(prefix, 'reader', b), 'SELECT persona, content FROM runtimectl.memory'), [{ persona: b, content: '{"owner":"b"}' }]);
    assert.deepEqual(as(nobodyRole(prefix), 'SELECT count(*)::int AS n FROM runtimectl.memory'), [{ n: 0 }], 'a role of no persona sees no row');
    assert.throws(() => as(loginRole(prefix, 'persona', a), `INSERT INTO runtimectl.memory (persona, name, content) VALUES ('${b}', 'brain.json', '{}')`), /row-level security/);
    assert.throws(() => as(loginRole(prefix, 'reader', a), "INSERT INTO runtimectl.memory (name, content) VALUES ('x', '{}')"), /permission denied/);
    // The kernel's role owns no plugin table and reads none.
    assert.throws(() => rowsOf('SET SESSION AUTHORIZATION runtimectl; SELECT count(*) FROM runtimectl.memory'), /permission denied/);
    // A superuser DSN would bypass row-level security: refused with one line.
    await assertRejectsKernel(() => openBackend(personaDir(fresh()), 'postgres', { dsn: pg.adminDsn.replace('/postgres?', '/runtimectl?') }), 'RTC_ERR_PERSISTENCE_CONFIG', 'superuser', 'connect as a plain role');
    // A writer's DSN role without CREATEROLE cannot make the plugins' roles: refused with one line naming the fix.
    pg.admin("CREATE ROLE rtc_plain LOGIN PASSWORD 'plain-secret'", 'postgres');
    pg.admin('GRANT CONNECT ON DATABASE runtimectl TO rtc_plain', 'postgres');
    const plain = pg.dsn.replace(`runtimectl:${APP_PASSWORD}@`, 'rtc_plain:plain-secret@');
    await assertRejectsKernel(() => openBackend(personaDir(fresh()), 'postgres', { dsn: plain }), 'RTC_ERR_PERSISTENCE_CONFIG', 'lacks CREATEROLE', 'ALTER ROLE rtc_plain CREATEROLE');
  });

  // What a hostile plugin's statements and migrations can reach: postgres-reach.test.ts.

  test('bad input is one line naming the persona: unreachable database, wrong password, no DSN', async () => {
    const persona = fresh();
    await assertRejectsKernel(() => openBackend(personaDir(persona), 'postgres', { dsn: 'postgres://runtimectl:x@127.0.0.1:9/runtimectl' }), 'RTC_ERR_PERSISTENCE_UNREACHABLE', `persona ${persona}`, 'cannot reach the database', 'start it, or fix the host and port');
    await assertRejectsKernel(() => openBackend(personaDir(persona), 'postgres', { dsn: pg.wrongPasswordDsn }), 'RTC_ERR_PERSISTENCE_UNREACHABLE', `persona ${persona}`, 'refused the login', 'fix the user or password');
    const saved = process.env.RUNTIMECTL_POSTGRES_DSN;
    delete process.env.RUNTIMECTL_POSTGRES_DSN;
    try {
      await assertRejectsKernel(() => openBackend(personaDir(persona), 'postgres'), 'RTC_ERR_PERSISTENCE_CONFIG', `persona ${persona} keeps its state in Postgres`, 'RUNTIMECTL_POSTGRES_DSN');
    } finally {
      if (saved !== undefined) process.env.RUNTIMECTL_POSTGRES_DSN = saved;
    }
    assert.ok(!JSON.stringify(pg.wrongPasswordDsn).includes('rtc-app-secret'));
  });

  test('a connection dropped mid-batch fails the appends in flight with one line; nothing acknowledged is lost; the chain goes on after a reopen', async () => {
    const persona = fresh('drop');
    const dir = personaDir(persona);
    const backend = await openBackend(dir, 'postgres', { dsn: pg.tcpDsn! });
    await backend.events.open();
    const acked: number[] = [];
    let failure: Error | undefined;
    // Appends keep a batch in flight all the time, until one fails.
    const writers = Array.from({ length: 64 }, async () => {
      for (let i = 0; failure === undefined && i < 2_000; i++) {
        try {
          acked.push((await backend.events.append('test.load', { i })).seq);
        } catch (error) {
          failure = error as Error;
        }
      }
    });
    await new Promise((r) => setTimeout(r, 500));
    // Cut every connection of the kernel's role, again until a batch in flight is hit.
    // (asynchronously: the kernel's main thread must go on sending batches meanwhile)
    for (let i = 0; i < 40 && failure === undefined; i++) {
      await pg.adminAsync("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'runtimectl' AND pid <> pg_backend_pid()");
    }
    await Promise.all(writers);
    assert.ok(failure, 'an append in flight failed when its connection was cut');
    oneLine(failure.message);
    assert.match(`${(failure as Error & { code?: string }).code}: ${failure.message}`, new RegExp(`^RTC_ERR_PERSISTENCE_UNREACHABLE: .*persona ${persona}`));
    await backend.close().catch(() => undefined);
    // Nothing acknowledged is lost.
    const reader = await openBackend(dir, 'postgres', { readonly: true, dsn: pg.tcpDsn! });
    const stored = new Set([...reader.events.read()].map((e) => e.seq));
    assert.ok(reader.events.verify().ok);
    for (const seq of acked) assert.ok(stored.has(seq), `acknowledged seq ${seq} is stored`);
    await reader.close();
    // The lease this backend held was released at close (or expires); the next opener continues the chain.
    const next = await openBackend(dir, 'postgres', { dsn: pg.tcpDsn!, leaseSeconds: 2 });
    await next.events.append('test.after', {});
    assert.ok(next.events.verify().ok);
    await next.close();
  });

  test('two kernel processes racing for the same personas: each persona gets exactly one writer, the other is refused naming it; no chain forks', async () => {
    const stateA = tempDir('rtc-race-a-');
    const stateB = tempDir('rtc-race-b-');
    const personas = Array.from({ length: 6 }, () => fresh('race'));
    const go = path.join(tempDir('rtc-go-'), 'go');
    const child = (state: string) =>
      new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
        const p = spawn(process.execPath, ['--no-node-snapshot', '--import', 'tsx', path.join(HERE, 'fixtures', 'pg-writer.ts'), pg.dsn, state, '40', go, ...personas], { cwd: ROOT });
        let out = '';
        let err = '';
        p.stdout.on('data', (d) => (out += d));
        p.stderr.on('data', (d) => (err += d));
        p.on('exit', (code) => resolve({ code, out, err }));
      });
    const runs = [child(stateA), child(stateB)];
    // Both children at the start line (each leaves a ready file), then they go at once.
    const ready = () => fs.readdirSync(path.dirname(go)).filter((f) => f.endsWith('.ready')).length;
    for (let i = 0; i < 1200 && ready() < 2; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(ready(), 2, 'both writers got ready');
    fs.writeFileSync(go, '');
    const [a, b] = await Promise.all(runs);
    assert.equal(a!.code, 0, a!.err);
    assert.equal(b!.code, 0, b!.err);
    const parse = (out: string) => new Map(out.trim().split('\n').map((l) => JSON.parse(l) as { persona: string; held: boolean; appended: number; refusal: string | null }).map((r) => [r.persona, r]));
    const ra = parse(a!.out);
    const rb = parse(b!.out);
    for (const persona of personas) {
      const x = ra.get(persona)!;
      const y = rb.get(persona)!;
      const holders = [x, y].filter((r) => r.held);
      // Both may hold it in turn (one finished and released before the other opened), never at once.
      assert.ok(holders.length >= 1, persona);
      for (const refused of [x, y].filter((r) => !r.held)) assert.match(refused.refusal ?? '', new RegExp(`^RTC_ERR_PERSONA_LOCKED: persona ${persona} already has a writer: kernel pid \\d+ on `));
      const reader = await openBackend(personaDir(persona), 'postgres', { readonly: true, dsn: pg.dsn });
      const events = [...reader.events.read()];
      assert.ok(reader.events.verify().ok, `${persona}: the chain verifies`);
      assert.equal(events.filter((e) => e.type === 'test.race').length, holders.reduce((s, h) => s + h.appended, 0), `${persona}: every acknowledged append is there once`);
      // Writers never interleave: each writer's appends are one run between its opening and its close.
      const pids = events.filter((e) => e.type === 'test.race').map((e) => e.payload.pid);
      const runsOfPids = pids.filter((pid, i) => i === 0 || pid !== pids[i - 1]).length;
      assert.equal(runsOfPids, holders.length, `${persona}: ${runsOfPids} runs of writers`);
      await reader.close();
    }
    assert.ok([...ra.values(), ...rb.values()].some((r) => !r.held), 'at least one open was refused (they raced)');
  });

  test('a kernel SIGKILLed mid-cycle: a second is refused naming it while its lease runs, then takes over after it expires, after reconciling; nothing acknowledged is lost', async () => {
    const dir = tempDir('rtc-kill-');
    const stateDir = path.join(dir, 'state');
    const id = fresh('kill');
    fs.mkdirSync(path.join(stateDir, id), { recursive: true });
    writePersistenceConfig(path.join(stateDir, id), 'postgres');
    const persona = budgeted(dir, id, 'executor.none');
    // Long enough that a kernel starting on a loaded machine still finds the dead one's lease running.
    const LEASE = 8;
    const env = { ...process.env, RUNTIMECTL_POSTGRES_DSN: pg.dsn, RUNTIMECTL_POSTGRES_LEASE_SECONDS: String(LEASE) };
    const kernel = (cycles: number) => spawn(process.execPath, ['--no-node-snapshot', path.join(ROOT, 'bin', 'runtimectl.js'), 'run', '--persona', persona.file, '--state-dir', stateDir, '--cycles', String(cycles), '--every', '0', '--no-spend'], { cwd: dir, env });
    // (the kernel creates the schema: until it has, there are no cycles)
    const count = () => {
      try {
        return Number(rowsOf(`SELECT count(*)::int AS n FROM runtimectl_kernel.events WHERE persona = '${id}' AND type = 'continuous_loop_cycle'`)[0]!.n);
      } catch (error) {
        if (/relation "runtimectl_kernel.events" does not exist/.test(String(error))) return 0;
        throw error;
      }
    };
    const first = kernel(100_000);
    let firstErr = '';
    first.stderr.on('data', (d) => (firstErr += d));
    for (let i = 0; i < 600 && count() < 3; i++) await new Promise((r) => setTimeout(r, 100));
    assert.ok(count() >= 3, `the first kernel ran cycles: ${firstErr}`);
    first.kill('SIGKILL');
    await new Promise((r) => first.on('exit', r));
    const cyclesAtKill = count();

    // While the dead kernel's lease still runs, a second writer is refused and names it (here, at
    // once, in this process: a kernel process starting on a loaded machine could outlive the lease).
    const second = await openBackend(path.join(stateDir, id), 'postgres', { dsn: pg.dsn });
    await assert.rejects(second.events.open(), (e: Error & { code?: string }) => {
      assert.equal(e.code, 'RTC_ERR_PERSONA_LOCKED');
      assert.match(e.message, new RegExp(`^persona ${id} already has a writer: kernel pid ${first.pid} on `));
      oneLine(e.message);
      return true;
    });
    await second.close();

    // After it expires, the next kernel takes over: verifies the stored chain and continues it.
    const expires = Date.parse(String(rowsOf(`SELECT expires_at FROM runtimectl_kernel.leases WHERE persona = '${id}'`)[0]!.expires_at));
    await new Promise((r) => setTimeout(r, Math.max(0, expires - Date.now()) + 500));
    const next = spawnSync(process.execPath, ['--no-node-snapshot', path.join(ROOT, 'bin', 'runtimectl.js'), 'run', '--persona', persona.file, '--state-dir', stateDir, '--cycles', '2', '--every', '0', '--no-spend'], { cwd: dir, env, encoding: 'utf8' });
    assert.equal(next.status, 0, next.stderr);
    const reader = await openBackend(path.join(stateDir, id), 'postgres', { readonly: true, dsn: pg.dsn });
    const events = [...reader.events.read()];
    assert.ok(reader.events.verify().ok, 'no fork: the chain verifies');
    const takeover = events.find((e) => e.type === 'writer_takeover');
    assert.ok(takeover, 'the takeover is in the chain');
    assert.equal((takeover.payload.previous as { pid: number }).pid, first.pid);
    assert.equal(events.filter((e) => e.type === 'continuous_loop_cycle').length, cyclesAtKill + 2, 'every cycle acknowledged before the kill is there, then the two new ones');
    const cycles = events.filter((e) => e.type === 'continuous_loop_cycle').map((e) => e.payload.cycle as number);
    assert.deepEqual(cycles, cycles.map((_, i) => i + 1), 'cycle numbers continue from the stored chain');
    await reader.close();
    // The cycles' trace is in Postgres too: replay reads it from there and re-runs the last cycle.
    const replay = await cli(['replay', '--state-dir', stateDir, '--persona', id, '--json'], { RUNTIMECTL_POSTGRES_DSN: pg.dsn });
    assert.equal(replay.code, 0, `${replay.err}${replay.out}`);
    assert.equal(fs.existsSync(path.join(stateDir, id, 'trace')), false, 'no trace files in the persona folder');
    const traced = Number(rowsOf(`SELECT count(*)::int AS n FROM runtimectl.trace_records WHERE persona = '${id}'`)[0]!.n);
    assert.ok(traced > 0, 'the trace lines are rows');
    const report = JSON.parse(replay.out) as { personas: { cycles: number; calls: number; divergence: unknown }[] };
    assert.ok(report.personas[0]!.cycles > 0 && report.personas[0]!.calls > 0, 'recorded cycles were replayed from the rows');
    assert.equal(report.personas[0]!.divergence, null);
  });

  test('status --dsn and activity --dsn read every persona in the shared database, without a state directory', async () => {
    const ids = [fresh('fleet'), fresh('fleet')];
    for (const id of ids) {
      const b = await openBackend(personaDir(id), 'postgres', { dsn: pg.dsn });
      await b.events.append('continuous_loop_cycle', { cycle: 1, phase: 'science_patrol', outcome: 'deferred', defer_reason: 'executor is none', runtime: `agent-${id}`, budget: { source: 'profile', token_budget: 1000 }, executor: { plugin: 'executor.none', enabled: false } });
      await b.close();
    }
    const status = await cli(['status', '--dsn', pg.dsn, '--json']);
    const rows = (JSON.parse(status.out) as { database: string; personas: { persona_id: string; cycles: number; last_defer_reason: { reason: string }; error?: string }[] }).personas;
    // The database is shared with this file's other tests (killed kernels, hostile roles): status
    // exits 1 exactly when a row it read has an error, and these two personas have none.
    const errors = rows.filter((r) => r.error).map((r) => `${r.persona_id}: ${r.error}`);
    if (errors.length > 0) console.log(`status --dsn: rows with an error (from other tests): ${errors.join('; ')}`);
    assert.equal(status.code, errors.length > 0 ? 1 : 0, `${status.err}${status.out}`);
    for (const id of ids) assert.equal(rows.find((r) => r.persona_id === id)?.error, undefined, id);
    for (const id of ids) assert.deepEqual([rows.find((r) => r.persona_id === id)?.cycles, rows.find((r) => r.persona_id === id)?.last_defer_reason?.reason], [1, 'executor is none']);
    assert.ok(!status.out.includes('rtc-app-secret'), 'the password is never printed');
    const activity = await cli(['activity', '--dsn', pg.dsn, '--persona', ids[0]!, '--json']);
    assert.equal(activity.code, 0, activity.err);
    assert.equal((JSON.parse(activity.out) as { personas: { persona: string; backend: string }[] }).personas[0]?.backend, 'postgres');
    const text = await cli(['status', '--dsn', pg.dsn]);
    assert.match(text.out, new RegExp(`${ids[1]}\\s+#1 `));
    const down = await cli(['status', '--dsn', 'postgres://runtimectl:x@127.0.0.1:9/runtimectl']);
    assert.equal(down.code, 1);
    assert.match(down.err, /^runtimectl: RTC_ERR_PERSISTENCE_UNREACHABLE: postgres:\/\/runtimectl@127\.0\.0\.1:9\/runtimectl: cannot reach the database/);
    assert.equal(down.err.trim().split('\n').length, 1);
  });
});
