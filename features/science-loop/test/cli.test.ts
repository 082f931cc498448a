import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { main } from '../../../cli/main.ts';
import type { CliIo } from '../../command/command.ts';
import { verifyEventLog } from '../../../kernel/events/verify.ts';
import { personaPaths, workspaceDir } from '../../persona-layout/layout.ts';
import { cycleEvents, fakeEnv, packet, tempDir } from './helpers.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..', '..');

async function cli(argv: string[], cwd: string, env: Record<string, string> = fakeEnv()): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { stdout: (t) => out.push(t), stderr: (t) => err.push(t), cwd, env };
  const code = await main(argv, io);
  return { code, out: out.join(''), err: err.join('') };
}

function writeProfile(dir: string, id: string, body: string): string {
  const file = path.join(dir, `${id}.yaml`);
  writeFileSync(file, `id: ${id}\n${body}`);
  return file;
}

test('run --persona ... --cycles N prints one line per cycle; the state dir comes from the flag, else SCIDEX_AGENT_STATE_DIR', async () => {
  const dir = tempDir();
  writeProfile(dir, 'ada', 'runtime: agent-ada\nbudget: { daily_tokens: 1000 }\nallow: { read: ["${state}"], write: ["${state}"], env: [ORCHESTRA_DB, ORCHESTRA_DB_PATH] }\nbindings: [ledger]\n');
  writeProfile(dir, 'bo', 'runtime: operon\n');
  packet(path.join(dir, 'from-env'), 'ada', 'q.md', '# First question\n');
  const r = await cli(['run', '--persona', 'ada.yaml', 'bo.yaml', '--cycles', '2', '--every', '0'], dir, fakeEnv({ SCIDEX_AGENT_STATE_DIR: 'from-env' }));
  assert.equal(r.err, '');
  assert.equal(r.code, 0);
  const lines = r.out.trim().split('\n').sort();
  assert.equal(lines.length, 4);
  assert.match(lines[0]!, /^ada #1 science_patrol executed: executor\.orchestra ran c000001-orchestra: created T-0001 "Work packet: First question"/);
  assert.match(lines[1]!, /^ada #2 science_compute_patrol idle: nothing to do/);
  assert.match(lines[2]!, /^bo #1 science_patrol deferred: executor executor\.none is disabled/);
  assert.equal(cycleEvents(path.join(dir, 'from-env'), 'ada').length, 2);

  const flagged = await cli(['run', '--persona', 'bo.yaml', '--cycles', '1', '--state-dir', 'flagged'], dir, fakeEnv({ SCIDEX_AGENT_STATE_DIR: 'from-env' }));
  assert.equal(flagged.code, 0);
  assert.ok(existsSync(path.join(dir, 'flagged', 'bo', 'logs', 'events.jsonl')));
  const fallback = await cli(['run', '--persona', 'bo.yaml', '--cycles', '1'], dir);
  assert.equal(fallback.code, 0);
  assert.ok(existsSync(path.join(dir, 'state', 'bo', 'logs', 'events.jsonl')), './state by default');
});

test('run refuses bad command lines and unknown personas with one line', async () => {
  const dir = tempDir();
  assert.deepEqual(await cli(['run'], dir), { code: 2, out: '', err: 'runtimectl: RTC_ERR_CLI_USAGE: name at least one persona: --persona ID_OR_FILE (see "runtimectl run --help")\n' });
  assert.equal((await cli(['run', '--persona', 'jerome', '--cycles', '0'], dir)).err, 'runtimectl: RTC_ERR_CLI_USAGE: --cycles 0: must be a whole number above zero\n');
  const unknown = await cli(['run', '--persona', 'nobody', '--cycles', '1'], dir);
  assert.equal(unknown.code, 1);
  assert.match(unknown.err, /^runtimectl: RTC_ERR_PERSONA_NOT_FOUND: --persona nobody: no profile nobody\.yaml in .* \(have: hypatia, jerome, mendel, minimax, operon, rosalind\)\n$/);
  const bad = writeProfile(dir, 'bad', 'runtime: agent-bad\nphases: []\n');
  assert.match((await cli(['run', '--persona', bad, '--cycles', '1'], dir)).err, /^runtimectl: RTC_ERR_MANIFEST_INVALID: bad\.yaml: phases: /);
});

test('status prints one row per persona with its last cycle, phase, budget posture, executor and last defer reason', async () => {
  const dir = tempDir();
  writeProfile(dir, 'ada', 'runtime: agent-ada\nexecutor: { plugin: executor.codex }\nbudget: { daily_tokens: 90000, max_autonomous_sessions_per_day: 3 }\nallow: { read: ["${state}"], write: ["${state}"], run: [codex], net: [api.openai.com] }\n');
  writeProfile(dir, 'bo', 'runtime: agent-bo\nexecutor: { plugin: executor.claude }\nwallet: { monthly_token_budget: 3000 }\n');
  packet(path.join(dir, 's'), 'ada', 'q.md', '# Q\n');
  packet(path.join(dir, 's'), 'bo', 'q.md', '# Q\n');
  assert.equal((await cli(['run', '--persona', 'ada.yaml', 'bo.yaml', '--cycles', '2', '--every', '0', '--state-dir', 's'], dir)).code, 0);

  const text = await cli(['status', '--state-dir', 's'], dir);
  assert.equal(text.code, 0);
  const [header, ada, bo] = text.out.trimEnd().split('\n');
  assert.match(header!, /^PERSONA\s+LAST CYCLE\s+PHASE\s+OUTCOME\s+BUDGET \(24 h\)\s+TOKENS\/H\s+EXECUTOR\s+REVIEW\s+LAST DEFER REASON$/);
  assert.match(ada!, /^ada\s+#2 \S+Z\s+science_compute_patrol\s+idle\s+1500\/90000 \(profile\), 1\/3 sessions\s+63\s+executor\.codex\s+-\s+#2 nothing to do/);
  assert.match(bo!, /^bo\s+#2 \S+Z\s+science_compute_patrol\s+deferred\s+read-only \(wallet_advisory\)\s+0\s+executor\.claude\s+-\s+#2 no daily token budget/);

  const json = JSON.parse((await cli(['status', '--state-dir', 's', '--json'], dir)).out);
  assert.equal(json.state_dir, path.join(dir, 's'));
  const row = json.personas[0];
  assert.equal(row.persona_id, 'ada');
  assert.deepEqual(row.budget, { source: 'profile', token_budget: 90000, tokens_used_24h: 1500, tokens_remaining_24h: 88500, sessions_24h: 1, max_autonomous_sessions_per_day: 3, read_only: false });
  assert.deepEqual(row.executor, { plugin: 'executor.codex', enabled: true, ran: false, status: null });
  assert.equal(row.last_cycle.phase, 'science_compute_patrol');
  mkdirSync(path.join(dir, 'empty'));
  assert.equal((await cli(['status', '--state-dir', 'empty'], dir)).out, `no persona has run under ${path.join(dir, 'empty')}\n`);
  // A state directory that does not exist is an error, as for activity and verify (issue 12 item 19).
  const missing = await cli(['status', '--state-dir', 'nope'], dir);
  assert.equal(missing.code, 1);
  assert.match(missing.err, /^runtimectl: RTC_ERR_CLI_FILE_NOT_FOUND: state directory nope does not exist/);
});

test('run --demo: the example personas on their embedded profiles, three cycles, and a summary of what each did and why', async () => {
  const dir = tempDir();
  const r = await cli(['run', '--demo', '--state-dir', 'demo'], dir);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /^runtimectl demo: hypatia \(agent-hypatia\), jerome \(agent-jerome\), mendel \(agent-mendel\)\n/);
  const summary = r.out.slice(r.out.indexOf('Summary: what each persona did and why'));
  assert.match(summary, /jerome \(agent-jerome, canonical\): executor executor\.orchestra enabled \(runtime default\)/);
  assert.match(summary, /created T-0001 "Work packet: Which assay best separates hypothesis A from hypothesis B\?"/);
  assert.match(summary, /why: tier \d \([^)]+\) -> execute: /);
  assert.match(summary, /mendel .*\n  budget: no daily token budget \(wallet 3000000\/month is advisory only\): read-only/);
  assert.match(summary, /not launched: token-spending executors are off for this run \(--no-spend\)/);
  assert.match(summary, /Inspect: runtimectl status --state-dir /);
  for (const id of ['hypatia', 'jerome', 'mendel']) assert.equal(cycleEvents(path.join(dir, 'demo'), id).length, 3);
});

test('a first SIGINT during a cycle: the cycle finishes, logs are flushed, the exit status is 0', async () => {
  const dir = tempDir();
  const file = writeProfile(dir, 'ada', 'runtime: agent-ada\nexecutor: { plugin: executor.codex, config: { args: ["--fake-sleep=1"] } }\nbudget: { daily_tokens: 100000 }\nallow: { read: ["${state}"], write: ["${state}"], run: [codex], net: [api.openai.com] }\n');
  const stateDir = path.join(dir, 'state');
  packet(stateDir, 'ada', 'q.md', '# Q\n');
  const child = spawn(process.execPath, ['--no-node-snapshot', path.join(ROOT, 'bin', 'runtimectl.js'), 'run', '--persona', file, '--state-dir', stateDir], {
    env: { ...fakeEnv() },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d));
  child.stderr.on('data', (d: Buffer) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  // The fake codex writes its prompt before it sleeps: the cycle is in progress.
  const started = path.join(workspaceDir(personaPaths(stateDir, 'ada')), 'fake-codex-prompt.txt');
  while (!existsSync(started)) await new Promise((r) => setTimeout(r, 20));
  child.kill('SIGINT');
  assert.equal(await exited, 0, err);
  assert.match(err, /SIGINT: finishing the current cycle, then stopping/);
  assert.match(out, /^ada #1 science_patrol executed: executor\.codex ran c000001-codex, 1500 tokens/);
  const log = verifyEventLog(path.join(stateDir, 'ada', 'logs', 'events.jsonl'));
  assert.equal(log.ok, true);
  assert.equal(cycleEvents(stateDir, 'ada').length, 1);
  assert.equal(JSON.parse(readFileSync(path.join(stateDir, 'ada', 'brain', 'memory', 'brain.json'), 'utf8')).cycles, 1);
});

test('run --cycles N says when it waits for the cadence (a line, or a {"type":"wait"} object with --json); no wait after the last cycle', async () => {
  const dir = tempDir();
  writeProfile(dir, 'slow', 'runtime: operon\ncadence: { cycle_seconds: 1 }\n');
  const lines = await cli(['run', '--persona', 'slow.yaml', '--cycles', '2', '--state-dir', 'state'], dir);
  assert.equal(lines.code, 0, lines.err);
  const out = lines.out.trim().split('\n');
  assert.equal(out.length, 3, lines.out);
  assert.match(out[1]!, /^slow: next cycle \(#2\) in 1 s, at \d\d:\d\d:\d\d UTC \(its profile's cadence\.cycle_seconds: 1; --every S overrides it\)$/);
  const json = await cli(['run', '--persona', 'slow.yaml', '--cycles', '2', '--state-dir', 'state', '--json'], dir);
  const objects = json.out.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.deepEqual(objects.map((o) => o.type), ['cycle', 'wait', 'cycle', 'run_end']);
  const wait = objects[1]!;
  assert.deepEqual({ ...wait, next_at: 'x' }, { type: 'wait', persona_id: 'slow', next_cycle: 4, seconds: 1, next_at: 'x', source: 'cadence' });
  const due = Date.parse(String(wait.next_at));
  assert.ok(Math.abs(due - Date.now()) < 60_000, 'next_at is an ISO time about a second on');
});
