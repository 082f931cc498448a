import assert from 'node:assert/strict';
import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { replayPersona } from '../../features/science-loop/preset.ts';
import { copyPlugins } from '../support/plugins.ts';
import { CACHE_DIR, cycleEvents, fakeTime, packet, run, tempDir } from '../../features/science-loop/test/helpers.ts';
import { runCli } from '../support/cli.ts';
import { editLine, patrolPersona, traceFile } from './helpers.ts';

/** One recorded state directory shared by the read-only tests below (3 cycles of `rex`). */
const recorded = tempDir('rtc-replay-');
const STATE = path.join(recorded, 'state');
// a work packet before each cycle: every cycle runs the executor (a command, env and file effects)
// a long first packet: its prompt is over the inline limit and goes to a blob
packet(STATE, 'rex', 'question-1.md', `# Question 1\n${'Background on the assay. '.repeat(300)}\n`);
await run([patrolPersona(recorded, 'rex')], {
  stateDir: STATE,
  cycles: 3,
  everySeconds: 3600,
  ...fakeTime(),
  onCycle: (r) => packet(STATE, 'rex', `question-${r.cycle + 1}.md`, `# Question ${r.cycle + 1}\n`),
});

/** A copy of the recorded state for a test that damages it. */
function copyOfState(): string {
  const dir = path.join(tempDir('rtc-replay-copy-'), 'state');
  cpSync(STATE, dir, { recursive: true });
  return dir;
}

test('each cycle event carries its trace hash, and the trace line holds every plugin call with its effects', () => {
  const cycles = cycleEvents(STATE, 'rex');
  assert.equal(cycles.length, 3);
  const lines = readFileSync(traceFile(STATE, 'rex'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(lines.length, 3);
  for (const [i, c] of cycles.entries()) {
    assert.equal(c.trace.hash, lines[i].hash);
    assert.ok(c.trace.calls >= 2, `cycle ${i + 1} called the executor and the budget policy`);
  }
  const ops = new Set(lines.flatMap((l) => l.calls.flatMap((call: { effects: { op: string }[] }) => call.effects.map((e) => e.op))));
  for (const op of ['run.output', 'fs.writeFile', 'fs.mkdir']) assert.ok(ops.has(op), `a cycle recorded ${op} (have ${[...ops].join(', ')})`);
  // a large effect text (the prompt the executor writes) is stored by digest, not inline
  assert.match(readFileSync(traceFile(STATE, 'rex'), 'utf8'), /"(args|answer)":\{"blob":"sha256:[0-9a-f]{64}","bytes":\d+\}/);
  // no host path in a hashed payload: the state directory is written as a placeholder
  assert.ok(!readFileSync(traceFile(STATE, 'rex'), 'utf8').includes(STATE));
});

test('runtimectl replay --all: every recorded cycle matches, with the counts of cycles, calls and effects', async () => {
  const r = await runCli(['replay', '--state-dir', STATE, '--all', '--json']);
  assert.equal(r.status, 0, r.stdout + r.stderr);
  const doc = JSON.parse(r.stdout);
  assert.equal(doc.ok, true);
  const rex = doc.personas[0];
  assert.equal(rex.persona, 'rex');
  assert.equal(rex.cycles, 3);
  assert.ok(rex.calls >= 6);
  assert.ok(rex.effects >= 10, `effects: ${rex.effects}`);
  assert.deepEqual(rex.changed_bundles, []);
  const text = await runCli(['replay', '--state-dir', STATE]);
  assert.equal(text.status, 0);
  assert.match(text.stdout, /^rex: 3 cycles, \d+ plugin calls, \d+ effects replayed: identical$/m);
});

test('replay performs no effect: the state directory is byte-for-byte the same afterwards', async () => {
  const state = copyOfState();
  const snapshot = (dir: string): Record<string, string> => {
    const out: Record<string, string> = {};
    for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
      if (entry.isFile()) out[path.relative(dir, path.join(entry.parentPath, entry.name))] = readFileSync(path.join(entry.parentPath, entry.name)).toString('base64');
    }
    return out;
  };
  const before = snapshot(state);
  const r = await runCli(['replay', '--state-dir', state, '--persona', 'rex']);
  assert.equal(r.status, 0, r.stdout);
  assert.deepEqual(snapshot(state), before);
});

test('--cycle N replays the cycles since its plugins last started fresh as warm-up, and checks N', async () => {
  const report = await replayPersona({ stateDir: STATE, personaId: 'rex', cycle: 3, cacheDir: CACHE_DIR });
  assert.equal(report.ok, true);
  assert.equal(report.cycles, 1);
  assert.equal(report.warmup_cycles, 2, 'the isolates were built in cycle 1 and kept: cycles 1 and 2 rebuild their state');
  const r = await runCli(['replay', '--state-dir', STATE, '--persona', 'rex', '--cycle', '3']);
  assert.match(r.stdout, /rex: 1 cycle \(after 2 warm-up cycles\)/);
});

test('a plugin changed since the recording is reported before replay; the recorded bundle is what replays', async () => {
  const plugins = path.join(tempDir('rtc-replay-plugins-'), 'plugins');
  copyPlugins(plugins);
  const entry = path.join(plugins, 'executor-codex', 'mod.ts');
  writeFileSync(entry, `${readFileSync(entry, 'utf8')}\nexport const upgraded = Deno.env.get('HOME');\n`);
  const notices: string[] = [];
  const report = await replayPersona({ stateDir: STATE, personaId: 'rex', pluginsDir: plugins, cacheDir: CACHE_DIR, onNotice: (l) => notices.push(l) });
  assert.equal(report.ok, true);
  assert.equal(report.changed_bundles.length, 1);
  assert.equal(report.changed_bundles[0]!.plugin, 'executor.codex');
  assert.match(notices[0]!, /^rex: plugin executor\.codex changed since the recording \(recorded bundle sha256:[0-9a-f]+…, installed sha256:[0-9a-f]+…\); replaying the recorded bundle$/);
});

test('replaying new code against the recording (--installed) names the first divergence: persona, cycle, call, effect, recorded and asked', async () => {
  const plugins = path.join(tempDir('rtc-replay-plugins-'), 'plugins');
  copyPlugins(plugins);
  const entry = path.join(plugins, 'budget-voi-tiers', 'mod.ts');
  // the new version reads the clock first thing in assess: an effect the recording does not have
  writeFileSync(entry, readFileSync(entry, 'utf8').replace(/export (async )?function assess\(([^)]*)\)([^{]*)\{/, (m) => `${m}\n  Date.now();`));
  const report = await replayPersona({ stateDir: STATE, personaId: 'rex', pluginsDir: plugins, cacheDir: CACHE_DIR, installed: true });
  assert.equal(report.ok, false);
  const d = report.divergence!;
  assert.equal(d.persona, 'rex');
  assert.equal(d.cycle, 1);
  assert.equal(d.plugin, 'budget.voi-tiers');
  assert.equal(d.method, 'assess');
  assert.equal(d.effect, 0);
  assert.equal(d.got, 'clock.now {}');
  assert.equal(d.kind, 'effect');
  assert.equal(d.code, 'RTC_ERR_REPLAY_DIVERGED');
  assert.match(d.message, /^rex cycle 1 call \d+ \(budget\.voi-tiers\.assess\): effect 0: /);
});

test('new code that makes the recorded effects but returns another result diverges with RTC_ERR_REPLAY_OUTPUT', async () => {
  const plugins = path.join(tempDir('rtc-replay-plugins-'), 'plugins');
  copyPlugins(plugins);
  const entry = path.join(plugins, 'budget-voi-tiers', 'mod.ts');
  // the same effects (none), another decision text
  const source = readFileSync(entry, 'utf8');
  const wrapped = source.replace('export function assess(input: AssessInput): Decision {', 'function assessAsRecorded(input: AssessInput): Decision {');
  assert.notEqual(wrapped, source, 'the plugin was edited');
  writeFileSync(entry, `${wrapped}\nexport function assess(input: AssessInput): Decision {\n  const d = assessAsRecorded(input);\n  return { ...d, decision: \`changed: \${d.decision}\` };\n}\n`);
  const report = await replayPersona({ stateDir: STATE, personaId: 'rex', pluginsDir: plugins, cacheDir: CACHE_DIR, installed: true });
  const d = report.divergence!;
  assert.equal(report.ok, false);
  assert.deepEqual([d.kind, d.code, d.plugin, d.method, d.effect], ['output', 'RTC_ERR_REPLAY_OUTPUT', 'budget.voi-tiers', 'assess', null]);
  assert.match(d.got, /"decision":"changed: /);
});

test('a recording with a missing blob is refused with the blob named; the files are left as they are', async () => {
  const state = copyOfState();
  const line = JSON.parse(readFileSync(traceFile(state, 'rex'), 'utf8').split('\n')[0]!);
  const blob = path.join(state, 'rex', 'trace', 'blobs', line.calls[0].bundle.slice('sha256:'.length));
  rmSync(blob);
  const before = readFileSync(traceFile(state, 'rex'));
  const r = await runCli(['replay', '--state-dir', state, '--persona', 'rex']);
  assert.equal(r.status, 1);
  assert.match(r.stdout, /^rex: error: RTC_ERR_REPLAY_RECORDING: trace\/blobs\/[0-9a-f]{64}: a recorded blob is missing \(ENOENT\)$/m);
  assert.deepEqual(readFileSync(traceFile(state, 'rex')), before);
});

test('an edited trace line is caught by its own hash, naming the file and line', async () => {
  const state = copyOfState();
  editLine(traceFile(state, 'rex'), 1, (l) => l.replace('"method":"describe"', '"method":"describe "'));
  const r = await runCli(['replay', '--state-dir', state, '--persona', 'rex', '--json']);
  assert.equal(r.status, 1);
  const doc = JSON.parse(r.stdout);
  assert.match(doc.personas[0].error, /rex\/trace\/cycles\.jsonl:2: cycle 2: the record's content hashes to [0-9a-f]{64}, not its stored hash/);
});

test('bad requests get one line each: an unknown persona, a cycle not recorded, --cycle with --all', async () => {
  const unknown = await runCli(['replay', '--state-dir', STATE, '--persona', 'nobody']);
  assert.equal(unknown.status, 1);
  assert.match(unknown.stderr, /persona nobody has no folder in state directory/);
  const missing = await runCli(['replay', '--state-dir', STATE, '--persona', 'rex', '--cycle', '9']);
  assert.equal(missing.status, 1);
  assert.match(missing.stdout, /rex cycle 9: not replayable \(recorded cycles are 1\.\.3\)/);
  const both = await runCli(['replay', '--state-dir', STATE, '--persona', 'rex', '--cycle', '1', '--all']);
  assert.equal(both.status, 2);
  assert.match(both.stderr, /--cycle and --all are exclusive/);
});
