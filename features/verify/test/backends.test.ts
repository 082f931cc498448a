/**
 * `runtimectl verify` is the operator's health check (issue 24 item 3): it passes on every
 * healthy state, on every backend and plugin source, and fails on each kind of real damage.
 *
 * Each backend's state is made through the real CLI, as a user makes it: a phase selector
 * scaffolded into an outside folder (`plugins new --dir`), a persona that selects it run with
 * `--plugins-dir` and a history.yaml that seals small segments, a ledger task, a proposal.
 * Then verify must pass with the outside folder given the ways `run` takes it (--plugins-dir,
 * RUNTIMECTL_PLUGIN_PATH), name the folder to pass when it is not given, write nothing but its
 * own logs/verified.json, and fail, naming where, on each damage:
 *
 *   edited, truncated, reordered or removed event records; a missing or edited sealed
 *   segment; a missing or edited checkpoint; a broken or removed trace record; a tampered
 *   proposal log; a tampered ledger; a plugin whose bundle changed since it was recorded.
 *
 * jsonl-fs and sqlite damage copies of the state; postgres damages its rows (as the database's
 * superuser) and puts each back, verifying it passes again.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { runCli, type CliResult } from '../../../test/support/cli.ts';
import { postgresSkipReason, startPostgres, type TestPostgres } from '../../../test/support/postgres.ts';
import { closeBridges } from '../../persistence/storage/postgres/pg-bridge.ts';
import { tempDir } from '../../science-loop/test/helpers.ts';
import { openBackend } from '../../persistence/open.ts';
import { ledgerOf } from '../../ledger/access.ts';
import { prepareLedgerPlugin } from '../../ledger/plugin-host.ts';
import type { VerifyReport } from '../cli.ts';

type Backend = 'jsonl-fs' | 'sqlite' | 'postgres';

interface Made {
  dir: string;
  state: string;
  plugins: string;
  id: string;
  personaDir: string;
  env: Record<string, string>;
}

/** A state made through the CLI: an outside plugin, a run that seals, a ledger task, a proposal. */
async function makeState(backend: Backend, id: string, env: Record<string, string> = {}): Promise<Made> {
  const dir = tempDir('rtc-verify-');
  const plugins = path.join(dir, 'outside-plugins');
  fs.mkdirSync(plugins);
  const scaffold = await runCli(['plugins', 'new', '--kind', 'phase-selector', 'least', '--dir', plugins], { cwd: dir, env });
  assert.equal(scaffold.status, 0, scaffold.stderr);
  const profile = path.join(dir, `${id}.yaml`);
  fs.writeFileSync(profile, `id: ${id}\nruntime: agent-${id}\nharness: continuous-science-loop\nexecutor: { plugin: executor.none }\npersistence: persistence.${backend}\nphase: phase.least\nphases: [science_patrol, governance_patrol]\n`);
  const state = path.join(dir, 'state');
  const personaDir = path.join(state, id);
  fs.mkdirSync(personaDir, { recursive: true });
  // Small segments: the run seals a few times, so the sealed side and its checkpoint exist.
  fs.writeFileSync(path.join(personaDir, 'history.yaml'), 'schema_version: 1\nsegments: { max_bytes: 9000, rotate: size }\n');
  const ran = await runCli(['run', '--persona', profile, '--plugins-dir', plugins, '--cycles', '7', '--every', '0', '--no-spend', '--state-dir', state], { cwd: dir, env });
  assert.equal(ran.status, 0, ran.stderr);
  if (backend === 'postgres') {
    // The ledger CLI opens file ledgers only (a postgres persona's task would go to a file
    // beside its rows): the task goes into the backend's rows, as the loop's do.
    const opened = await openBackend(personaDir, 'postgres', { dsn: env.RUNTIMECTL_POSTGRES_DSN!, personaId: id });
    try {
      await prepareLedgerPlugin();
      const { store } = ledgerOf(opened).open();
      store.addTask({ title: 'check the chain', by: 'operator', now: Date.now() });
      store.close();
    } finally {
      await opened.close();
    }
  } else {
    const task = await runCli(['ledger', 'add', '--persona', id, '--title', 'check the chain', '--state-dir', state], { cwd: dir, env });
    assert.equal(task.status, 0, task.stderr);
  }
  const note = path.join(personaDir, 'note.txt');
  fs.writeFileSync(note, 'the chain held for seven cycles\n');
  const digest = createHash('sha256').update(fs.readFileSync(note)).digest('hex');
  const proposed = await runCli(['proposals', 'submit', '--persona', id, '--kind', 'memory-promotion', '--text', 'a fact worth keeping', '--evidence', `note.txt@sha256:${digest}`, '--state-dir', state], { cwd: dir, env });
  assert.equal(proposed.status, 0, proposed.stderr);
  return { dir, state, plugins, id, personaDir, env };
}

async function verify(made: Made, args: string[], env: Record<string, string> = made.env): Promise<CliResult & { report: VerifyReport }> {
  const out = await runCli(['verify', '--json', ...args], { cwd: made.dir, env });
  assert.equal(out.stderr, '', 'verify prints its findings, never a stack');
  return { ...out, report: JSON.parse(out.stdout) as VerifyReport };
}

/** Every finding of a report, as `check: file[:line]: what`. */
function findings(report: VerifyReport): string[] {
  return [...report.state.map((c) => ({ ...c, persona: '(state)' })), ...report.personas.flatMap((p) => p.checks.map((c) => ({ ...c, persona: p.id })))].flatMap((c) =>
    c.findings.map((f) => `${c.name}: ${f.severity}: ${f.file}${f.line ? `:${f.line}` : ''}${f.seq ? ` (seq ${f.seq})` : ''}: ${f.code ?? ''}: ${f.what}`),
  );
}

function checkOf(report: VerifyReport, name: string) {
  return report.personas[0]!.checks.find((c) => c.name === name)!;
}

/** sha256 of every file under `dir` but verify's own record and sqlite's read-only sidecars. */
function fingerprint(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const rel of fs.readdirSync(dir, { recursive: true }) as string[]) {
    const file = path.join(dir, rel);
    if (!fs.statSync(file).isFile() || /verified\.json$|-(wal|shm)$/.test(rel)) continue;
    out.set(rel, createHash('sha256').update(fs.readFileSync(file)).digest('hex'));
  }
  return out;
}

/** The healthy state passes with the outside folder given either way, names it when not, and is left as it was. */
async function assertHealthy(made: Made): Promise<void> {
  const before = fingerprint(made.state);
  const given = await verify(made, ['--full', '--state-dir', made.state, '--plugins-dir', made.plugins]);
  assert.equal(given.status, 0, findings(given.report).join('\n'));
  const names = given.report.personas[0]!.checks.map((c) => `${c.name} ${c.status}`);
  // (a jsonl-fs persona has no persistence.yaml: its persistence check is `absent`)
  assert.deepEqual(names.filter((n) => !/ ok$/.test(n) && n !== 'persistence absent'), [], `every check ran and passed: ${names.join(', ')}`);
  assert.match(checkOf(given.report, 'trace').summary, /7 cycle event\(s\) matched to their records/);
  assert.ok((given.report.personas[0]!.checks.find((c) => c.name === 'events')!.details as { sealed_segments: number }).sealed_segments >= 1, 'the run sealed');
  const viaEnv = await verify(made, ['--state-dir', made.state], { ...made.env, RUNTIMECTL_PLUGIN_PATH: made.plugins });
  assert.equal(viaEnv.status, 0, findings(viaEnv.report).join('\n'));
  const incremental = await verify(made, ['--state-dir', made.state, '--plugins-dir', made.plugins]);
  assert.equal(incremental.status, 0, findings(incremental.report).join('\n'));
  // Not given the folder: not "gone", but the folder to pass.
  const without = await verify(made, ['--state-dir', made.state]);
  assert.equal(without.status, 1);
  assert.deepEqual(findings(without.report), [
    `substrate: error: ${path.join(made.plugins, 'phase-least', 'plugin.yaml')}: RTC_ERR_SUBSTRATE_OFF_PATH: phase.least: recorded from an outside plugin folder that is not on this search path, so it was not checked: pass --plugins-dir ${made.plugins} (or add it to RUNTIMECTL_PLUGIN_PATH), as the run that recorded it did`,
  ]);
  assert.equal(without.report.personas[0]!.ok, true, 'the persona itself is intact');
  const text = await runCli(['verify', '--state-dir', made.state], { cwd: made.dir, env: made.env });
  assert.match(text.stdout, /\(state\) {2}substrate {2}FAILED {2}1 recorded plugin\(s\) in folder\(s\) not on this search path: not checked\n/);
  assert.deepEqual(fingerprint(made.state), before, 'verify writes nothing but its own logs/verified.json');
}

interface Damage {
  name: string;
  /** breaks the state (in `personaDir`), returning how to put it back (postgres) */
  apply(made: Made, personaDir: string): void | (() => void);
  /** a finding that must be reported */
  finding: RegExp;
}

function rewriteLines(file: string, edit: (lines: string[]) => void): void {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  edit(lines);
  fs.writeFileSync(file, lines.join('\n'));
}

function editGz(file: string, edit: (text: string) => string): void {
  fs.writeFileSync(file, gzipSync(Buffer.from(edit(gunzipSync(fs.readFileSync(file)).toString('utf8')))));
}

/** Damage common to every backend: the trace (files for jsonl-fs and sqlite), the outside plugin's bundle. */
const BUNDLE_CHANGED: Damage = {
  name: 'a plugin whose bundle changed since it was recorded',
  apply(made) {
    const mod = path.join(made.plugins, 'phase-least', 'mod.ts');
    const was = fs.readFileSync(mod, 'utf8');
    fs.writeFileSync(mod, `${was}\nexport const changed = true;\n`);
    return () => fs.writeFileSync(mod, was);
  },
  finding: /^substrate: error: .*outside-plugins\/phase-least\/mod\.ts: RTC_ERR_SUBSTRATE_CHANGED: phase\.least: isolate bundle digest changed since recorded .*input mod\.ts changed/,
};

const TRACE_FILE_DAMAGE: Damage[] = [
  {
    name: 'a broken trace record (edited)',
    apply: (_m, dir) => rewriteLines(path.join(dir, 'trace', 'cycles.jsonl'), (l) => void (l[l.length - 2] = l[l.length - 2]!.replace(/"cycle":(\d+)/, (_x, n) => `"cycle":${Number(n) + 100}`))),
    finding: /^trace: error: .*trace\/cycles\.jsonl:\d+: RTC_ERR_REPLAY_RECORDING: cycle \d+: the record's content hashes to [0-9a-f]{64}, not its stored hash/,
  },
  {
    name: 'a removed trace record',
    apply: (_m, dir) => rewriteLines(path.join(dir, 'trace', 'cycles.jsonl'), (l) => void l.splice(l.length - 2, 1)),
    finding: /^trace: error: .*trace\/cycles\.jsonl \(seq \d+\): RTC_ERR_REPLAY_RECORDING: cycle 7: its trace record [0-9a-f]{16}… is not in the trace \(removed or replaced\)/,
  },
  {
    name: 'a removed trace',
    apply: (_m, dir) => fs.rmSync(path.join(dir, 'trace'), { recursive: true }),
    finding: /^trace: error: .*: RTC_ERR_REPLAY_RECORDING: cycle 1: its trace record [0-9a-f]{16}… is not in the trace/,
  },
];

const JSONL_DAMAGE: Damage[] = [
  {
    name: 'an edited event line',
    apply: (_m, dir) => rewriteLines(path.join(dir, 'logs', 'events.jsonl'), (l) => void (l[1] = l[1]!.replace('"idle"', '"done"').replace('"deferred"', '"done"'))),
    finding: /^events: error: .*logs\/events\.jsonl:2 \(seq \d+\): RTC_ERR_EVENTS_\w+: /,
  },
  {
    name: 'a truncated event line',
    apply: (_m, dir) => rewriteLines(path.join(dir, 'logs', 'events.jsonl'), (l) => void (l[1] = l[1]!.slice(0, 200))),
    finding: /^events: error: .*logs\/events\.jsonl:2: RTC_ERR_EVENTS_CORRUPT: /,
  },
  {
    name: 'reordered event lines',
    apply: (_m, dir) => rewriteLines(path.join(dir, 'logs', 'events.jsonl'), (l) => void ([l[1], l[2]] = [l[2]!, l[1]!])),
    finding: /^events: error: .*logs\/events\.jsonl:2 \(seq \d+\): RTC_ERR_EVENTS_CHAIN: /,
  },
  {
    name: 'a missing sealed segment',
    apply: (_m, dir) => fs.rmSync(path.join(dir, 'logs', 'segments', '000001.jsonl.gz')),
    finding: /^events: error: .*logs\/(segments\/000001\.jsonl\.gz: RTC_ERR_HISTORY_SEGMENT: sealed segment 1 is missing|index\.jsonl: RTC_ERR_HISTORY_INDEX: describes \d+ segments, but \d+ are stored)/,
  },
  {
    name: 'an edited sealed segment',
    apply: (_m, dir) => editGz(path.join(dir, 'logs', 'segments', '000001.jsonl.gz'), (t) => t.replace('"persona_start"', '"persona_stop"')),
    finding: /^events: error: .*logs\/segments\/000001\.jsonl\.gz: RTC_ERR_HISTORY_SEGMENT: its bytes do not hash to the digest recorded/,
  },
  {
    name: 'a missing checkpoint',
    apply: (_m, dir) => fs.rmSync(path.join(dir, 'logs', 'checkpoint.json')),
    finding: /^events: error: .*logs\/checkpoint\.json: RTC_ERR_HISTORY_CHECKPOINT: missing, though \d+ segment\(s\) are sealed/,
  },
  {
    name: 'an edited checkpoint',
    apply: (_m, dir) => {
      const file = path.join(dir, 'logs', 'checkpoint.json');
      const cp = JSON.parse(fs.readFileSync(file, 'utf8'));
      cp.chain.hash = 'f'.repeat(64);
      fs.writeFileSync(file, JSON.stringify(cp));
    },
    finding: /^events: error: .*logs\/checkpoint\.json: RTC_ERR_HISTORY_CHECKPOINT: the record at seq \d+ does not carry the hash it records/,
  },
  ...TRACE_FILE_DAMAGE,
  {
    name: 'a tampered proposal log',
    apply: (_m, dir) => rewriteLines(path.join(dir, 'review', 'proposals.jsonl'), (l) => void (l[0] = l[0]!.replace('a fact worth keeping', 'a fact worth changing'))),
    finding: /^proposals: error: .*review\/proposals\.jsonl:1 \(seq 1\): RTC_ERR_REVIEW_LOG_CORRUPT: /,
  },
  {
    name: 'a tampered ledger',
    apply: (_m, dir) => rewriteLines(path.join(dir, 'orchestra', 'orchestra.db'), (l) => void (l[1] = l[1]!.replace('"state":"proposed"', '"state":"accepted"'))),
    finding: /^ledger: error: .*orchestra\/orchestra\.db: RTC_ERR_LEDGER_CORRUPT: task T-0001: /,
  },
  BUNDLE_CHANGED,
];

function sqlite(file: string, sql: string, ...params: unknown[]): void {
  const db = new Database(file);
  try {
    db.prepare(sql).run(...params);
  } finally {
    db.close();
  }
}

function sqliteRow<T>(file: string, sql: string): T {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare(sql).get() as T;
  } finally {
    db.close();
  }
}

const SQLITE_DAMAGE: Damage[] = [
  {
    name: 'an edited event row',
    apply: (_m, dir) => sqlite(path.join(dir, 'logs', 'events.db'), "UPDATE events SET payload = replace(payload, '\"cycle\":', '\"cycle\":1') WHERE seq = (SELECT max(seq) FROM events)"),
    finding: /^events: error: .*logs\/events\.db.* \(seq \d+\): RTC_ERR_EVENTS_\w+: /,
  },
  {
    name: 'a truncated event row',
    apply: (_m, dir) => sqlite(path.join(dir, 'logs', 'events.db'), 'UPDATE events SET payload = substr(payload, 1, 40) WHERE seq = (SELECT max(seq) FROM events)'),
    finding: /^events: error: .*logs\/events\.db.* \(seq \d+\): RTC_ERR_EVENTS_\w+: /,
  },
  {
    name: 'a removed event row',
    apply: (_m, dir) => sqlite(path.join(dir, 'logs', 'events.db'), 'DELETE FROM events WHERE seq = (SELECT min(seq) + 1 FROM events)'),
    finding: /^events: error: .*logs\/events\.db.*: RTC_ERR_EVENTS_CHAIN: /,
  },
  {
    name: 'a missing sealed segment',
    apply: (_m, dir) => sqlite(path.join(dir, 'logs', 'events.db'), 'DELETE FROM event_segments WHERE segment = 1'),
    finding: /^events: error: .*logs\/events\.db#event_index: RTC_ERR_HISTORY_INDEX: describes \d+ segments, but \d+ are stored/,
  },
  {
    name: 'an edited sealed segment',
    apply: (_m, dir) => {
      const file = path.join(dir, 'logs', 'events.db');
      const { data } = sqliteRow<{ data: Buffer }>(file, 'SELECT data FROM event_segments WHERE segment = 1');
      sqlite(file, 'UPDATE event_segments SET data = ? WHERE segment = 1', gzipSync(Buffer.from(gunzipSync(data).toString('utf8').replace('"persona_start"', '"persona_stop"'))));
    },
    finding: /^events: error: .*logs\/events\.db#event_segments\/1: RTC_ERR_HISTORY_SEGMENT: its bytes do not hash to the digest recorded/,
  },
  {
    name: 'a missing checkpoint',
    apply: (_m, dir) => sqlite(path.join(dir, 'logs', 'events.db'), "DELETE FROM history_documents WHERE name = 'checkpoint'"),
    finding: /^events: error: .*logs\/events\.db.*checkpoint.*: RTC_ERR_HISTORY_CHECKPOINT: missing, though \d+ segment\(s\) are sealed/,
  },
  ...TRACE_FILE_DAMAGE,
  {
    name: 'a tampered proposal log',
    apply: (_m, dir) => sqlite(path.join(dir, 'persistence.db'), "UPDATE proposals SET line = replace(line, 'a fact worth keeping', 'a fact worth changing')"),
    finding: /^proposals: error: .*persistence\.db.*: RTC_ERR_REVIEW_\w+: /,
  },
  {
    name: 'a tampered ledger',
    apply: (_m, dir) => sqlite(path.join(dir, 'orchestra', 'orchestra.db'), "UPDATE tasks SET state = 'accepted'"),
    finding: /^ledger: error: .*orchestra\/orchestra\.db: RTC_ERR_LEDGER_CORRUPT: task T-0001: /,
  },
  BUNDLE_CHANGED,
];

/** Each damage on a fresh copy of the state: verify fails and names it. */
async function assertEachDamageCaught(made: Made, damages: Damage[]): Promise<void> {
  const caught: string[] = [];
  for (const damage of damages) {
    const copy = path.join(tempDir('rtc-verify-damaged-'), 'state');
    fs.cpSync(made.state, copy, { recursive: true });
    const undo = damage.apply(made, path.join(copy, made.id));
    try {
      const out = await verify(made, ['--full', '--state-dir', copy, '--plugins-dir', made.plugins]);
      const all = findings(out.report);
      assert.equal(out.status, 1, `${damage.name}: verify fails (${all.join('; ')})`);
      assert.ok(all.some((f) => damage.finding.test(f)), `${damage.name}: expected ${damage.finding} among:\n${all.join('\n')}`);
      caught.push(damage.name);
    } finally {
      if (typeof undo === 'function') undo();
    }
  }
  assert.equal(caught.length, damages.length);
}

for (const backend of ['jsonl-fs', 'sqlite'] as const) {
  test(`${backend}: verify passes on a healthy state with an outside plugin, and fails on each kind of damage, naming it`, async () => {
    const made = await makeState(backend, `vp-${backend.replace('-', '')}`);
    await assertHealthy(made);
    await assertEachDamageCaught(made, backend === 'jsonl-fs' ? JSONL_DAMAGE : SQLITE_DAMAGE);
    // The state itself was never touched by the damage: it still verifies.
    assert.equal((await verify(made, ['--full', '--state-dir', made.state, '--plugins-dir', made.plugins])).status, 0);
    // Moved to the other file backend by persistence export: still a healthy state (the
    // checkpoint goes along with the sealed history), as verify says.
    const moved = path.join(tempDir('rtc-verify-moved-'), 'state');
    fs.cpSync(made.state, moved, { recursive: true });
    const other = backend === 'jsonl-fs' ? 'sqlite' : 'jsonl-fs';
    const exported = await runCli(['persistence', 'export', '--persona', made.id, '--to', other, '--switch', '--state-dir', moved], { cwd: made.dir });
    assert.equal(exported.status, 0, exported.stderr);
    const after = await verify(made, ['--full', '--state-dir', moved, '--plugins-dir', made.plugins]);
    assert.equal(after.status, 0, findings(after.report).join('\n'));
    assert.equal((checkOf(after.report, 'events').details as { backend: string }).backend, other);
  });
}

const skip = postgresSkipReason();

describe('postgres: verify reads the rows', { skip }, () => {
  let pg: TestPostgres;
  let savedDsn: string | undefined;
  before(async () => {
    pg = await startPostgres();
    // run and the other verbs in this process reach the database through the environment, as a deployment's do
    savedDsn = process.env.RUNTIMECTL_POSTGRES_DSN;
    process.env.RUNTIMECTL_POSTGRES_DSN = pg.dsn;
  });
  after(async () => {
    if (savedDsn === undefined) delete process.env.RUNTIMECTL_POSTGRES_DSN;
    else process.env.RUNTIMECTL_POSTGRES_DSN = savedDsn;
    await closeBridges();
    pg?.stop();
  });

  test('a healthy postgres state passes (state directory or the database alone); each damage to its rows fails, and passes again once put back', async () => {
    const id = 'vp-postgres';
    const made = await makeState('postgres', id, { RUNTIMECTL_POSTGRES_DSN: pg.dsn });
    await assertHealthy(made);
    const rows = (sql: string) => JSON.parse(pg.admin(sql)) as Record<string, unknown>[];
    assert.ok(Number(rows(`SELECT count(*)::int AS n FROM runtimectl.trace_records WHERE persona = '${id}'`)[0]!.n) >= 7, 'the trace is rows');
    assert.equal(fs.existsSync(path.join(made.personaDir, 'trace')), false, 'no trace files');

    // No database named: one actionable line, the other checks say they did not run.
    delete process.env.RUNTIMECTL_POSTGRES_DSN;
    try {
      const blind = await verify(made, ['--state-dir', made.state, '--plugins-dir', made.plugins], {});
      assert.equal(blind.status, 1);
      assert.deepEqual(findings(blind.report), [`events: error: ${made.personaDir}: RTC_ERR_PERSISTENCE_CONFIG: the events check could not run: persona ${id} keeps its state in Postgres, but no database is named: pass --dsn DSN or set RUNTIMECTL_POSTGRES_DSN`]);
      const dsnFlag = await verify(made, ['--state-dir', made.state, '--plugins-dir', made.plugins, '--dsn', pg.dsn], {});
      assert.equal(dsnFlag.status, 0, findings(dsnFlag.report).join('\n'));
    } finally {
      process.env.RUNTIMECTL_POSTGRES_DSN = pg.dsn;
    }

    // The database alone, as status --dsn reads it: its personas, no state directory.
    const fleet = await verify(made, ['--dsn', pg.dsn], {});
    assert.equal(fleet.status, 0, findings(fleet.report).join('\n'));
    assert.deepEqual(fleet.report.personas.map((p) => [p.id, p.checks.map((c) => `${c.name} ${c.status}`)]), [[id, ['events ok', 'trace ok', 'persistence ok', 'ledger absent', 'proposals ok']]]);
    assert.ok(!JSON.stringify(fleet.report).includes('rtc-app-secret'), 'the password is never printed');
    const typo = await runCli(['verify', '--dsn', pg.dsn, '--persona', 'vp-postgrex'], { env: {} });
    assert.equal(typo.status, 1);
    assert.match(typo.stderr, /^runtimectl: RTC_ERR_PERSONA_NOT_FOUND: persona vp-postgrex \(did you mean "vp-postgres"\?\) has no state in postgres:\/\/runtimectl@localhost\/runtimectl\n$/);

    const p = `persona = '${id}'`;
    const damages: { name: string; sql: string; undo: string; finding: RegExp }[] = [];
    // The kernel's tables are in runtimectl_kernel, a plugin's (trace, proposals, ledger) in runtimectl.
    const schemaOf = (table: string) => (['events', 'event_segments', 'history_documents'].includes(table) ? 'runtimectl_kernel' : 'runtimectl');
    const swap = (table: string, key: string, column: string, where: string, from: string, to: string) => {
      const [row] = rows(`SELECT ${key} AS k, ${column} AS v FROM ${schemaOf(table)}.${table} WHERE ${p} AND ${where}`);
      assert.ok(row, `${table} has the row to damage`);
      return {
        sql: `UPDATE ${schemaOf(table)}.${table} SET ${column} = replace(${column}, ${lit(from)}, ${lit(to)}) WHERE ${p} AND ${key} = ${lit(String(row.k))}`,
        undo: `UPDATE ${schemaOf(table)}.${table} SET ${column} = ${lit(String(row.v))} WHERE ${p} AND ${key} = ${lit(String(row.k))}`,
      };
    };
    const lit = (s: string) => `'${s.replace(/'/g, "''")}'`;
    const lastSeq = Number(rows(`SELECT max(seq)::int AS n FROM runtimectl_kernel.events WHERE ${p}`)[0]!.n);
    const segment = rows(`SELECT encode(data, 'base64') AS data FROM runtimectl_kernel.event_segments WHERE ${p} AND segment = 1`)[0]!.data as string;
    const checkpoint = rows(`SELECT content FROM runtimectl_kernel.history_documents WHERE ${p} AND name = 'checkpoint'`)[0]!.content as string;
    const lastTrace = rows(`SELECT seq::int AS seq, line FROM runtimectl.trace_records WHERE ${p} ORDER BY seq DESC LIMIT 1`)[0]!;
    damages.push(
      { name: 'an edited event row', ...swap('events', 'seq', 'payload', `seq = ${lastSeq}`, '"cycle":', '"cycle":1'), finding: /^events: error: .* \(seq \d+\): RTC_ERR_EVENTS_\w+: / },
      { name: 'a truncated event row', sql: `UPDATE runtimectl_kernel.events SET payload = substr(payload, 1, 40) WHERE ${p} AND seq = ${lastSeq}`, undo: swap('events', 'seq', 'payload', `seq = ${lastSeq}`, 'x', 'x').undo, finding: /^events: error: .* \(seq \d+\): RTC_ERR_EVENTS_\w+: / },
      { name: 'a missing sealed segment', sql: `UPDATE runtimectl_kernel.event_segments SET segment = 99 WHERE ${p} AND segment = 1`, undo: `UPDATE runtimectl_kernel.event_segments SET segment = 1 WHERE ${p} AND segment = 99`, finding: /^events: error: .*: RTC_ERR_HISTORY_SEGMENT: sealed segment 1 is missing/ },
      {
        name: 'an edited sealed segment',
        sql: `UPDATE runtimectl_kernel.event_segments SET data = decode(${lit(gzipSync(Buffer.from(gunzipSync(Buffer.from(segment, 'base64')).toString('utf8').replace('"persona_start"', '"persona_stop"'))).toString('base64'))}, 'base64') WHERE ${p} AND segment = 1`,
        undo: `UPDATE runtimectl_kernel.event_segments SET data = decode(${lit(segment)}, 'base64') WHERE ${p} AND segment = 1`,
        finding: /^events: error: .*event_segments\(vp-postgres\)\/1: RTC_ERR_HISTORY_SEGMENT: its bytes do not hash to the digest recorded/,
      },
      { name: 'a missing checkpoint', sql: `DELETE FROM runtimectl_kernel.history_documents WHERE ${p} AND name = 'checkpoint'`, undo: `INSERT INTO runtimectl_kernel.history_documents (persona, name, content) VALUES ('${id}', 'checkpoint', ${lit(checkpoint)})`, finding: /^events: error: .*: RTC_ERR_HISTORY_CHECKPOINT: missing, though \d+ segment\(s\) are sealed/ },
      { name: 'a broken trace record', ...swap('trace_records', 'seq', 'line', `seq = ${lastTrace.seq}`, '"cycle":', '"cycle":1'), finding: /^trace: error: .*: RTC_ERR_REPLAY_RECORDING: .*the record's content hashes to/ },
      { name: 'a removed trace record', sql: `DELETE FROM runtimectl.trace_records WHERE ${p} AND seq = ${lastTrace.seq}`, undo: `INSERT INTO runtimectl.trace_records (persona, seq, line) VALUES ('${id}', ${lastTrace.seq}, ${lit(String(lastTrace.line))})`, finding: /^trace: error: .* \(seq \d+\): RTC_ERR_REPLAY_RECORDING: cycle 7: its trace record [0-9a-f]{16}… is not in the trace/ },
      { name: 'a tampered proposal log', ...swap('proposals', 'seq', 'line', 'seq = 1', 'a fact worth keeping', 'a fact worth changing'), finding: /^proposals: error: .*: RTC_ERR_REVIEW_\w+: / },
    );
    // The ledger: the rows the postgres backend keeps.
    const ledgerRows = rows(`SELECT seq::int AS seq FROM runtimectl.ledger_changes WHERE ${p} AND record LIKE '%"state":"proposed"%' ORDER BY seq LIMIT 1`);
    assert.equal(ledgerRows.length, 1, 'the ledger is rows');
    {
      damages.push({ name: 'a tampered ledger', ...swap('ledger_changes', 'seq', 'record', `seq = ${ledgerRows[0]!.seq}`, '"state":"proposed"', '"state":"accepted"'), finding: /^ledger: error: .*: RTC_ERR_LEDGER_CORRUPT: task T-0001: / });
    }
    for (const damage of damages) {
      pg.admin(damage.sql);
      try {
        const out = await verify(made, ['--full', '--state-dir', made.state, '--plugins-dir', made.plugins]);
        const all = findings(out.report);
        assert.equal(out.status, 1, `${damage.name}: verify fails (${all.join('; ')})`);
        assert.ok(all.some((f) => damage.finding.test(f)), `${damage.name}: expected ${damage.finding} among:\n${all.join('\n')}`);
      } finally {
        pg.admin(damage.undo);
      }
      const again = await verify(made, ['--full', '--state-dir', made.state, '--plugins-dir', made.plugins]);
      assert.equal(again.status, 0, `${damage.name} put back: ${findings(again.report).join('\n')}`);
    }
    await assertEachDamageCaught(made, [BUNDLE_CHANGED]);
  });
});
