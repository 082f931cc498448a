/**
 * Composition from manifests alone: a persona whose profile selects a tool plugin and an
 * executor from an operator's own plugin folder (outside the checkout), a non-default phase
 * selector and the sqlite backend runs, is recorded and replays identically; an environment
 * override of the executor runs it with its own config; and every start-time refusal is one
 * line naming the persona, the file and the field, never a failed cycle later.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCli } from '../../../test/support/cli.ts';
import { budgeted, cycleEvents, fakeTime, packet, profile, run, tempDir, FAKE_BIN } from './helpers.ts';

/** Writes a plugin folder `<root>/<folder>` with its manifest and module. */
function plugin(root: string, folder: string, manifest: string, mod: string): string {
  const dir = path.join(root, folder);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'plugin.yaml'), manifest);
  writeFileSync(path.join(dir, 'mod.ts'), mod);
  return dir;
}

/** An operator's plugin folder: a tool, an executor that calls it, and a phase selector. */
function outsidePlugins(dir: string): string {
  const root = path.join(dir, 'operator-plugins');
  plugin(
    root,
    'tool-words',
    `id: tool.words
version: 1.0.0
kind: tool
entry: mod.ts
description: Counts words.
exports: [count]
tools:
  - export: count
    description: How many words a text has.
    input_schema: { type: object, properties: { text: { type: string } }, required: [text], additionalProperties: false }
`,
    `export function count(args: { text: string }) { return { words: args.text.split(/\\s+/).filter(Boolean).length }; }\n`,
  );
  plugin(
    root,
    'executor-toolcaller',
    `id: executor.toolcaller
version: 1.0.0
kind: executor
entry: mod.ts
description: Calls the persona's tools for each piece of work.
bindings: [tools]
exports: [describe, run]
`,
    `declare const Runtimectl: { bindings: { tools: { list(): Promise<{ name: string }[]>; call(name: string, args: unknown): Promise<{ words: number }> } } };
export function describe() { return { spends_tokens: false }; }
export async function run(input: { work: { key: string; title: string }[] }) {
  const tools = await Runtimectl.bindings.tools.list();
  const counted = await Runtimectl.bindings.tools.call('tool.words.count', { text: input.work.map((w) => w.title).join(' ') });
  let refused = '';
  try { await Runtimectl.bindings.tools.call('tool.words.count', { text: 7 }); } catch (e) { refused = (e as { code?: string }).code + ': ' + (e as Error).message; /* the kernel's code is the error's data */ }
  return { status: 'ok', last_message: \`tools \${tools.map((t) => t.name).join(',')}; \${counted.words} words; bad args: \${refused}\`, work_done: input.work.map((w) => w.key) };
}
`,
  );
  plugin(
    root,
    'phase-reverse',
    `id: phase.reverse
version: 1.0.0
kind: phase-selector
entry: mod.ts
description: The profile's phases in reverse order, one per cycle.
exports: [pick]
`,
    `export function pick(input: { cycle: number; phases: string[] }) { const p = input.phases; return { phase: p[p.length - 1 - ((input.cycle - 1) % p.length)] }; }\n`,
  );
  return root;
}

const COMPOSED = `runtime: agent-ada
tools: [tool.words]
executor: { plugin: executor.toolcaller }
phase: phase.reverse
phases: [science_patrol, science_compute_patrol, governance_patrol]
persistence: persistence.sqlite
cadence: { cycle_seconds: 3600, periodic_seconds: 60 }
budget: { daily_tokens: 1000, config: { min_expected_improvement: 0 } }
bindings: [ledger, events, memory]`;

test('a persona composed from its profile alone: an outside tool and executor, a non-default phase selector, sqlite; replay is identical', async () => {
  const dir = tempDir();
  const stateDir = path.join(dir, 'state');
  const plugins = outsidePlugins(dir);
  const ada = profile(dir, 'ada', COMPOSED);
  packet(stateDir, 'ada', 'q.md', '# Which assay separates A from B\n');
  const [r] = await run([ada], { stateDir, pluginPath: [plugins], cycles: 3, everySeconds: 3600, ...fakeTime() });
  assert.equal(r!.refused, undefined, String(r!.refused));
  assert.deepEqual(
    r!.reports.map((c) => c.phase),
    ['governance_patrol', 'science_compute_patrol', 'science_patrol'],
    'the selector the profile names picked each phase',
  );
  for (const c of r!.reports) assert.equal(c.outcome, 'executed', c.defer_reason ?? '');
  const offered = ((r!.reports[0]!.payload.work as { offered: { title: string }[] }).offered).map((w) => w.title).join(' ');
  const words = offered.split(/\s+/).filter(Boolean).length;
  assert.equal(r!.reports[0]!.act.last_message, `tools tool.words.count; ${words} words; bad args: RTC_ERR_TOOL_ARGS: tool tool.words.count: text: Invalid input: expected string, received number`);

  // sqlite holds the state, and the state directory records it for tools that read it without the profile
  assert.ok(existsSync(path.join(stateDir, 'ada', 'persistence.db')));
  assert.ok(!existsSync(path.join(stateDir, 'ada', 'logs', 'events.jsonl')));
  assert.match(readFileSync(path.join(stateDir, 'ada', 'persistence.yaml'), 'utf8'), /^backend: sqlite$/m);

  // every plugin call (the tool's inside the executor's) is in the cycle's trace; the call refused
  // for its arguments ran no tool code (the executor's tape holds the refusal)
  const trace = readFileSync(path.join(stateDir, 'ada', 'trace', 'cycles.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { calls: { plugin: string; method: string }[] });
  assert.deepEqual(trace[0]!.calls.map((c) => `${c.plugin}.${c.method}`).sort(), ['budget.voi-tiers.assess', 'executor.toolcaller.describe', 'executor.toolcaller.describe', 'executor.toolcaller.run', 'phase.reverse.pick', 'tool.words.count'].sort());

  // replay with the same plugin folder: every cycle matches; without it, the missing plugin is named
  const replayed = await runCli(['replay', '--state-dir', stateDir, '--persona', 'ada', '--plugins-dir', plugins, '--json']);
  assert.equal(replayed.status, 0, replayed.stdout + replayed.stderr);
  const report = JSON.parse(replayed.stdout) as { ok: boolean; personas: { cycles: number; calls: number; divergence: unknown }[] };
  assert.equal(report.ok, true);
  assert.equal(report.personas[0]!.cycles, 3);
  assert.equal(report.personas[0]!.divergence, null);
  const viaEnv = await runCli(['replay', '--state-dir', stateDir, '--persona', 'ada'], { env: { RUNTIMECTL_PLUGIN_PATH: plugins } });
  assert.equal(viaEnv.status, 0, viaEnv.stdout + viaEnv.stderr);
  const without = await runCli(['replay', '--state-dir', stateDir, '--persona', 'ada']);
  assert.equal(without.status, 1);
  assert.match(without.stdout, /plugin (executor\.toolcaller|phase\.reverse|tool\.words) is not installed/);

  // status and verify find the sqlite state without the profile
  const status = await runCli(['status', '--state-dir', stateDir, '--json']);
  assert.equal(status.status, 0, status.stderr);
});

test('an environment override of the executor runs it with its own config, never the profile executor\'s', async () => {
  const dir = tempDir();
  const stateDir = path.join(dir, 'state');
  const env = { PATH: `${FAKE_BIN}:/usr/bin:/bin`, HOME: dir, SCIDEX_AGENT_CONTINUOUS_EXECUTOR: 'codex' };
  const body = (config: string) => `runtime: agent-x
executor:
  plugin: executor.command
${config}
budget: { daily_tokens: 200000, max_tokens_per_session: 50000, wall_seconds_per_cycle: 20 }
allow: { read: ["\${state}"], write: ["\${state}"], run: [codex, sh], net: [api.openai.com], env: [ORCHESTRA_DB, ORCHESTRA_DB_PATH] }
bindings: [ledger, events, memory]`;
  // keyed: codex has its own entry, which makes the fake codex exit 3
  const keyed = profile(dir, 'ada', body(`  config:
    executor.command: { command: ./worker.sh }
    executor.codex: { args: ["--fake-exit=3"] }`));
  // the older flat form belongs to executor.command alone: codex runs with its defaults
  const flat = profile(dir, 'bo', body('  config: { command: ./worker.sh }'));
  packet(stateDir, 'ada', 'q.md', '# Q\n');
  packet(stateDir, 'bo', 'q.md', '# Q\n');
  const runs = await run([keyed, flat], { stateDir, env, ...fakeTime() });
  const ada = runs.find((x) => x.persona_id === 'ada')!.reports[0]!;
  const bo = runs.find((x) => x.persona_id === 'bo')!.reports[0]!;
  assert.equal(ada.executor, 'executor.codex');
  assert.match(ada.defer_reason ?? '', /^codex exited with status 3/);
  assert.equal(bo.executor, 'executor.codex');
  assert.equal(bo.outcome, 'executed', bo.defer_reason ?? '');
  assert.ok(!JSON.stringify(cycleEvents(stateDir, 'bo')).includes('worker.sh'), 'the command executor\'s config reached nothing');
});

test('every start-time refusal is one line naming persona, file and field; the others start; run exits 1', async () => {
  const dir = tempDir();
  const stateDir = path.join(dir, 'state');
  const plugins = outsidePlugins(dir);
  // an executor whose manifest lists an export the module lacks
  plugin(plugins, 'executor-liar', 'id: executor.liar\nversion: 1.0.0\nkind: executor\nentry: mod.ts\ndescription: lists run, exports only describe\nexports: [describe, run]\n', 'export function describe() { return { spends_tokens: false }; }\n');
  // a tool plugin that declares no tools
  plugin(plugins, 'tool-empty', 'id: tool.empty\nversion: 1.0.0\nkind: tool\nentry: mod.ts\ndescription: offers nothing\nexports: [x]\n', 'export function x() { return 1; }\n');
  const harnesses = path.join(dir, 'harnesses');
  mkdirSync(harnesses);
  writeFileSync(path.join(harnesses, 'odd.yaml'), 'id: odd\ndescription: a step nobody provides\nruntime_kind: canonical\nsteps: [brain, dance, decide, record]\n');
  writeFileSync(path.join(harnesses, 'continuous-science-loop.yaml'), readFileSync(path.join(import.meta.dirname, '..', '..', '..', 'policies', 'harnesses', 'continuous-science-loop.yaml'), 'utf8'));
  const file = (id: string) => path.join(dir, `${id}.yaml`);
  const cases: [string, string, string][] = [
    ['missing', 'runtime: agent-x\nexecutor: { plugin: executor.nope }', 'executor.plugin: plugin executor.nope is not installed'],
    ['wrongkind', 'runtime: agent-x\nbudget: { policy: tool.words }', 'budget.policy: plugin tool.words is a tool plugin, not a budget-policy plugin'],
    ['wrongphase', 'runtime: agent-x\nphase: executor.none', 'phase: plugin executor.none is an executor plugin, not a phase-selector plugin'],
    ['wrongtool', 'runtime: agent-x\ntools: [phase.reverse]', 'tools[0]: plugin phase.reverse is a phase-selector plugin, not a tool plugin'],
    ['wrongexec', 'runtime: agent-x\nexecutor: { plugin: gate-check.prose-risk }', 'executor.plugin: plugin gate-check.prose-risk is a gate-check plugin, not an executor plugin'],
    ['noexport', 'runtime: agent-x\nexecutor: { plugin: executor.liar }', `${path.join(plugins, 'executor-liar', 'plugin.yaml')}: exports: "run" is not exported by mod.ts (its bundle exports: describe); named by the persona's executor.plugin`],
    ['notool', 'runtime: agent-x\ntools: [tool.missing]', 'tools[0]: plugin tool.missing is not installed (tool plugins: tool.empty, tool.skill-stats, tool.words)'],
    ['emptytool', 'runtime: agent-x\ntools: [tool.empty]', 'tools[0]: tool plugin tool.empty offers no tools'],
    ['noskill', 'runtime: agent-x\nskills: [nonesuch]', 'skills[0]: "nonesuch" matches no skill'],
    ['nophase', 'runtime: agent-x\nphase: phase.nope', 'phase: plugin phase.nope is not installed (phase-selector plugins: phase.reverse, phase.round-robin)'],
    ['noharness', 'runtime: agent-x\nharness: nope', 'harness: no harness "nope"'],
    ['nostep', 'runtime: agent-x\nharness: odd', `${path.join(harnesses, 'odd.yaml')}: steps[1]: unknown step "dance"`],
    ['nobackend', 'runtime: agent-x\npersistence: persistence.cassandra', 'persistence: plugin persistence.cassandra is not installed'],
    // An installed backend that cannot open (postgres with no database named) is refused at start too, never a failed cycle.
    ['nodsn', 'runtime: agent-x\npersistence: persistence.postgres', 'keeps its state in Postgres, but no database is named: set RUNTIMECTL_POSTGRES_DSN'],
  ];
  const personas = cases.map(([id, body]) => profile(dir, id, body));
  const fine = profile(dir, 'fine', 'runtime: agent-fine');
  const runs = await run([...personas, fine], { stateDir, pluginPath: [plugins], harnessesDir: harnesses, ...fakeTime() });
  for (const [id, , expected] of cases) {
    const r = runs.find((x) => x.persona_id === id)!;
    assert.equal(r.reports.length, 0, `${id} ran no cycle`);
    assert.equal(r.refused?.length, 1, `${id}: ${r.refused?.join(' | ')}`);
    assert.ok(r.refused![0]!.startsWith(`persona ${id}: `), r.refused![0]);
    assert.ok(r.refused![0]!.includes(expected), `${id}: ${r.refused![0]} lacks: ${expected}`);
    const where = expected.startsWith('/') ? '' : `${file(id)}: `;
    assert.ok(r.refused![0]!.startsWith(`persona ${id}: ${where}`), `${id} names its file: ${r.refused![0]}`);
    assert.equal(cycleEvents(stateDir, id).length, 0);
  }
  assert.equal(runs.find((x) => x.persona_id === 'fine')!.reports.length, 1, 'the persona that can start, runs');

  // The CLI: one line per problem on stderr, the good persona's cycle on stdout, exit 1.
  const cli = await runCli(['run', '--persona', file('missing'), file('fine'), '--cycles', '1', '--every', '0', '--state-dir', path.join(dir, 'state2'), '--plugins-dir', plugins], { env: { PATH: process.env.PATH ?? '' } });
  assert.equal(cli.status, 1);
  assert.deepEqual(cli.stderr.trim().split('\n'), [`runtimectl: RTC_ERR_PERSONA_START: persona missing: ${file('missing')}: executor.plugin: plugin executor.nope is not installed (executor plugins: executor.claude, executor.codex, executor.command, executor.liar, executor.none, executor.orchestra, executor.toolcaller)`]);
  assert.match(cli.stdout, /^fine #1 /m);
});

test('an environment override naming a missing executor, or a plugin of another kind, is refused at start naming the variable', async () => {
  const dir = tempDir();
  const zed = profile(dir, 'zed', 'runtime: agent-zed');
  for (const [value, reason] of [
    ['nope', 'plugin executor.nope is not installed (executor plugins: '],
    ['phase.round-robin', 'plugin phase.round-robin is a phase-selector plugin, not an executor plugin'],
  ] as const) {
    const [r] = await run([zed], { stateDir: path.join(dir, `state-${value}`), env: { PATH: process.env.PATH ?? '', SCIDEX_AGENT_CONTINUOUS_EXECUTOR: value }, ...fakeTime() });
    assert.equal(r!.reports.length, 0, 'no cycle ran');
    assert.equal(r!.refused?.length, 1, String(r!.refused));
    assert.ok(r!.refused![0]!.startsWith(`persona zed: environment: SCIDEX_AGENT_CONTINUOUS_EXECUTOR: ${reason}`), r!.refused![0]);
  }
});

test('two plugins with one id in two search-path folders: both are refused, naming both folders; a persona naming it does not start', async () => {
  const dir = tempDir();
  const a = path.join(dir, 'a');
  const b = path.join(dir, 'b');
  for (const root of [a, b]) plugin(root, 'phase-twin', 'id: phase.twin\nversion: 1.0.0\nkind: phase-selector\nentry: mod.ts\ndescription: twin\nexports: [pick]\n', 'export function pick(i: { phases: string[] }) { return { phase: i.phases[0] }; }\n');
  const twin = profile(dir, 'ada', 'runtime: agent-ada\nphase: phase.twin');
  const [r] = await run([twin], { stateDir: path.join(dir, 'state'), pluginPath: [a, b], ...fakeTime() });
  assert.equal(r!.refused?.length, 1);
  assert.match(r!.refused![0]!, new RegExp(`^persona ada: .*ada\\.yaml: phase: ${path.join(a, 'phase-twin', 'plugin.yaml').replace(/[/.]/g, '\\$&')}: id: "phase\\.twin" is also the id of ${path.join(b, 'phase-twin').replace(/[/.]/g, '\\$&')}; plugin ids must be unique across the plugin search path$`));
  const listed = await runCli(['plugins', 'list'], { env: { RUNTIMECTL_PLUGIN_PATH: `${a}:${b}` } });
  assert.equal(listed.status, 1);
  assert.match(listed.stderr, /RTC_ERR_PLUGIN_DUPLICATE: .*phase-twin\/plugin\.yaml: id: "phase\.twin" is also the id of /);
  const folder = await runCli(['plugins', 'list', '--plugins-dir', a, '--json']);
  const entry = (JSON.parse(folder.stdout) as { plugins: { id: string; source: string }[] }).plugins.find((p) => p.id === 'phase.twin')!;
  assert.equal(entry.source, a, 'plugins list names the folder a plugin comes from');
});

test('a persona whose profile names another backend than the one holding its state is refused with how to move it', async () => {
  const dir = tempDir();
  const stateDir = path.join(dir, 'state');
  const jsonl = profile(dir, 'ada', 'runtime: agent-ada');
  await run([jsonl], { stateDir, ...fakeTime() });
  const sqlite = profile(dir, 'ada', 'runtime: agent-ada\npersistence: persistence.sqlite');
  const [r] = await run([sqlite], { stateDir, ...fakeTime() });
  assert.deepEqual(r!.refused, [
    `persona ada: ${path.join(dir, 'ada.yaml')}: persistence: the profile names persistence.sqlite, but this persona's state is in persistence.jsonl-fs (its state directory); move it first with "runtimectl persistence export --persona ada --to sqlite --switch" (persona stopped), or name persistence.jsonl-fs`,
  ]);
  // after the move the profile's choice opens the moved state
  const moved = await runCli(['persistence', 'export', '--persona', 'ada', '--to', 'sqlite', '--switch', '--state-dir', stateDir]);
  assert.equal(moved.status, 0, moved.stderr);
  const [again] = await run([sqlite], { stateDir, ...fakeTime() });
  assert.equal(again!.refused, undefined, String(again!.refused));
  assert.equal(again!.reports[0]!.cycle, 2, 'the moved chain continues');
});

test('skills from outside the checkout: RUNTIMECTL_SKILLS_PATH and --skills-dir add folders to the built-in skills', async () => {
  const dir = tempDir();
  const mine = path.join(dir, 'my-skills');
  mkdirSync(path.join(mine, 'field-notes'), { recursive: true });
  writeFileSync(path.join(mine, 'field-notes', 'SKILL.md'), '---\nname: field-notes\ndescription: How to keep field notes.\n---\n# Field notes\n');
  writeFileSync(path.join(dir, 'ada.yaml'), 'id: ada\nruntime: agent-ada\nskills: [value-of-information-budgeting, field-notes]\n');
  const args = ['run', '--persona', path.join(dir, 'ada.yaml'), '--cycles', '1', '--state-dir', path.join(dir, 'state'), '--json'];
  const without = await runCli(args, { env: { PATH: process.env.PATH ?? '' } });
  assert.equal(without.status, 1);
  assert.match(without.stderr, /persona ada: .*ada\.yaml: skills\[1\]: "field-notes" matches no skill/);
  for (const env of [{ RUNTIMECTL_SKILLS_PATH: mine }, {}]) {
    const r = await runCli(env.RUNTIMECTL_SKILLS_PATH ? args : [...args, '--skills-dir', mine], { env: { PATH: process.env.PATH ?? '', ...env } });
    assert.equal(r.status, 0, r.stderr);
  }
  const selected = cycleEvents(path.join(dir, 'state'), 'ada').map((e) => e.skills.selected);
  assert.deepEqual(selected, [['shared/value-of-information-budgeting', 'shared/field-notes'], ['shared/value-of-information-budgeting', 'shared/field-notes']]);
});

test('run exits 1 when every cycle of a persona failed, and names the persona', async () => {
  const dir = tempDir();
  const plugins = path.join(dir, 'plugins');
  plugin(plugins, 'executor-broken', 'id: executor.broken\nversion: 1.0.0\nkind: executor\nentry: mod.ts\ndescription: always fails\nexports: [describe, run]\n', 'export function describe() { return { spends_tokens: false }; }\nexport function run() { return { status: "failed", reason: "nothing works" }; }\n');
  writeFileSync(path.join(dir, 'ada.yaml'), 'id: ada\nruntime: agent-ada\nexecutor: { plugin: executor.broken }\ncadence: { periodic_seconds: 1 }\nbudget: { daily_tokens: 1000, config: { min_expected_improvement: 0 } }\nbindings: [ledger]\n');
  const args = ['run', '--persona', path.join(dir, 'ada.yaml'), '--cycles', '2', '--every', '2', '--state-dir', path.join(dir, 'state'), '--plugins-dir', plugins];
  const r = await runCli(args, { env: { PATH: process.env.PATH ?? '' } });
  assert.equal(r.status, 1, r.stdout + r.stderr);
  assert.match(r.stdout, /^ada #1 \S+ failed: nothing works$/m);
  assert.match(r.stderr, /^runtimectl: persona ada: every cycle failed \(last: nothing works\)$/m);
});
