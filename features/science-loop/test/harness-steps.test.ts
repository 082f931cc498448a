/**
 * Harness steps that compose: a harness drops, reorders and adds steps (a step plugin, in its
 * own isolate, recorded), the review boundary is a step it may drop, and a harness whose
 * steps cannot work together is refused at start in one line naming the file and the field:
 * an unknown step, a step listed twice, a value read before any step produces it, a value two
 * steps produce, a step plugin naming a value nobody declares.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCli } from '../../../test/support/cli.ts';
import { openReviewQueue } from '../../review-queue/index.ts';
import { cli, OPERATORS, realEvidence } from '../../review-queue/test/helpers.ts';
import { cycleEvents, events, fakeEnv, fakeTime, packet, profile, run, tempDir } from './helpers.ts';

const REPO = path.resolve(import.meta.dirname, '..', '..', '..');
const PHASES = ['science_patrol', 'science_compute_patrol', 'governance_patrol'];

/** Writes a step plugin folder `<root>/<folder>`: its manifest (with its loop_step section) and module. */
function stepPlugin(root: string, folder: string, id: string, section: string, mod: string): void {
  const dir = path.join(root, folder);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'plugin.yaml'), `id: ${id}\nversion: 1.0.0\nkind: loop-step\nentry: mod.ts\ndescription: a test step\nexports: [run]\nloop_step:\n${section}`);
  writeFileSync(path.join(dir, 'mod.ts'), mod);
}

/** A harness folder with the shipped canonical harness and these others (`id` → its steps lines). */
function harnesses(dir: string, others: Record<string, string>): string {
  const root = path.join(dir, 'harnesses');
  mkdirSync(root, { recursive: true });
  writeFileSync(path.join(root, 'continuous-science-loop.yaml'), readFileSync(path.join(REPO, 'policies', 'harnesses', 'continuous-science-loop.yaml'), 'utf8'));
  for (const [id, body] of Object.entries(others)) writeFileSync(path.join(root, `${id}.yaml`), `id: ${id}\ndescription: a test harness\nruntime_kind: compatibility_harness\n${body}\n`);
  return root;
}

test('the rosalind harness runs other steps than the canonical loop: no ledger step, its phase from a step plugin in its own isolate; replay is identical', async () => {
  const dir = tempDir();
  const stateDir = path.join(dir, 'state');
  const cy = profile(dir, 'cy', `runtime: rosalind\nphases: [${PHASES.join(', ')}]\nphase: phase.round-robin\ncadence: { cycle_seconds: 3600, periodic_seconds: 60 }`);
  packet(stateDir, 'cy', 'q.md', '# Is the effect real?\n');
  const [r] = await run([cy], { stateDir, cycles: 4, everySeconds: 3600, ...fakeTime() });
  assert.equal(r!.refused, undefined, String(r!.refused));
  const cycles = cycleEvents(stateDir, 'cy');
  assert.equal(cycles.length, 4);
  for (const e of cycles) {
    assert.deepEqual(e.steps, ['brain', 'usage', 'budget', 'skills', 'step.phase-least-recent', 'decide', 'record'], 'the steps the rosalind manifest names');
    assert.equal(e.harness, 'rosalind');
    assert.equal(e.runtime_kind, 'compatibility_harness');
    assert.equal('ledger' in e, false, 'no ledger step, no ledger field');
    assert.deepEqual(e.review, { applied: [], expired: [] }, 'the review boundary ran');
    assert.deepEqual(e.problems.filter((p: string) => p.startsWith('step ')), [], 'the step plugin answered within its contract');
  }
  // least recently worked in: each phase in turn from a fresh brain, then the first again
  assert.deepEqual(cycles.map((e) => e.phase), [...PHASES, PHASES[0]]);
  assert.deepEqual(r!.reports.map((c) => c.phase), [...PHASES, PHASES[0]], 'the report carries the plugin\'s phase too');
  // the phase selector the profile names was not called: the step plugin was, recorded in the trace
  const trace = readFileSync(path.join(stateDir, 'cy', 'trace', 'cycles.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { calls: { plugin: string; method: string }[] });
  for (const line of trace) {
    const calls = line.calls.map((c) => `${c.plugin}.${c.method}`);
    assert.ok(calls.includes('step.phase-least-recent.run'), calls.join(' '));
    assert.ok(!calls.includes('phase.round-robin.pick'), calls.join(' '));
  }
  assert.equal(events(stateDir, 'cy')[0]!.payload.harness, 'rosalind');

  const replayed = await runCli(['replay', '--state-dir', stateDir, '--persona', 'cy', '--json']);
  assert.equal(replayed.status, 0, replayed.stdout + replayed.stderr);
  const report = JSON.parse(replayed.stdout) as { ok: boolean; personas: { cycles: number; divergence: unknown }[] };
  assert.equal(report.ok, true);
  assert.equal(report.personas[0]!.cycles, 4);
  assert.equal(report.personas[0]!.divergence, null);
});

test('a harness reorders steps, adds an operator\'s step plugin and drops the review boundary: the plugin reads earlier values; a bad answer is a problem of the cycle, never a crash', async () => {
  const dir = tempDir();
  const stateDir = path.join(dir, 'state');
  const plugins = path.join(dir, 'plugins');
  stepPlugin(plugins, 'step-note', 'step.note', '  reads: [phase, posture]\n  uses: [review]\n  payload: [note]\n', `export function run(input: { cycle: number; values: { phase: string; posture: { read_only: boolean }; review?: { applied: string[] } } }) {
  const review = input.values.review ? \`review applied \${input.values.review.applied.length}\` : 'no review';
  return { payload: { note: \`cycle \${input.cycle}: \${input.values.phase}, read_only \${input.values.posture.read_only}, \${review}\` } };
}\n`);
  stepPlugin(plugins, 'step-liar', 'step.liar', '  produces: [phase]\n  payload: [phase]\n', `export function run() { return { values: { phase: 7 }, payload: { mood: 'odd' } }; }\n`);
  const root = harnesses(dir, {
    noted: 'boundary: []\nsteps: [skills, ledger, brain, usage, budget, phase, step.note, decide, record]',
    reviewed: 'steps: [brain, usage, budget, skills, ledger, phase, step.note, decide, record]',
    lying: 'steps: [brain, usage, budget, skills, step.liar, decide, record]',
  });
  const ada = profile(dir, 'ada', 'runtime: x-ada\nharness: noted');
  const bo = profile(dir, 'bo', 'runtime: x-bo\nharness: lying');
  const cy = profile(dir, 'cy', 'runtime: x-cy\nharness: reviewed');
  const [a, b, c] = await run([ada, bo, cy], { stateDir, pluginPath: [plugins], harnessesDir: root, ...fakeTime() });
  assert.equal(a!.refused, undefined, String(a!.refused));
  const [ea] = cycleEvents(stateDir, 'ada');
  assert.deepEqual(ea!.steps, ['skills', 'ledger', 'brain', 'usage', 'budget', 'phase', 'step.note', 'decide', 'record'], 'reordered as the manifest says');
  assert.equal(ea!.note, 'cycle 1: science_patrol, read_only true, no review');
  assert.deepEqual(ea!.review, { applied: [], expired: [] }, 'no boundary: nothing applied');
  assert.equal(ea!.outcome, 'deferred', ea!.problems.join(' | '));
  assert.equal(c!.refused, undefined, String(c!.refused));
  assert.equal(cycleEvents(stateDir, 'cy')[0]!.note, 'cycle 1: science_patrol, read_only true, review applied 0', 'the review boundary\'s value reaches a later step');

  assert.equal(b!.refused, undefined, String(b!.refused));
  const [eb] = cycleEvents(stateDir, 'bo');
  assert.equal(eb!.phase, undefined, 'the value outside its schema was not handed on');
  assert.equal(eb!.outcome, 'failed', 'decide found no phase');
  assert.ok(eb!.problems.some((p: string) => p.startsWith('step step.liar: produced "phase" outside its schema')), eb!.problems.join(' | '));
  assert.ok(eb!.problems.includes('step step.liar: added cycle event field "mood", which its manifest does not list in loop_step.payload'), eb!.problems.join(' | '));
  assert.equal('mood' in eb!, false);
});

test('a harness whose steps cannot work together is refused at start, in one line naming the file and the field', async () => {
  const dir = tempDir();
  const stateDir = path.join(dir, 'state');
  const plugins = path.join(dir, 'plugins');
  stepPlugin(plugins, 'step-moody', 'step.moody', '  reads: [mood]\n', 'export function run() { return {}; }\n');
  stepPlugin(plugins, 'step-reviewer', 'step.reviewer', '  reads: [review]\n', 'export function run() { return {}; }\n');
  const root = harnesses(dir, {
    unknown: 'steps: [brain, usage, budget, skills, ledger, phase, step.nope, decide, record]',
    twice: 'steps: [brain, usage, budget, phase, skills, phase, decide, record]',
    nophase: 'steps: [brain, usage, budget, skills, ledger, decide, record]',
    late: 'steps: [usage, budget, skills, ledger, phase, decide, brain, record]',
    double: `steps: [brain, usage, budget, skills, phase, step.phase-least-recent, decide, record]`,
    reviewstep: 'steps: [review, brain, usage, budget, skills, ledger, phase, decide, record]',
    badboundary: 'boundary: [review, audit]\nsteps: [brain, usage, budget, skills, ledger, phase, decide, record]',
    moody: 'steps: [brain, usage, budget, skills, ledger, phase, step.moody, decide, record]',
    noreview: 'boundary: []\nsteps: [brain, usage, budget, skills, ledger, phase, step.reviewer, decide, record]',
  });
  const file = (h: string) => path.join(root, `${h}.yaml`);
  const cases: [string, string][] = [
    ['unknown', `${file('unknown')}: steps[6]: step plugin: plugin step.nope is not installed (loop-step plugins: step.moody, step.phase-least-recent, step.reviewer)`],
    ['twice', `${file('twice')}: steps[5]: step "phase" is listed twice`],
    ['nophase', `${file('nophase')}: steps[5]: step "decide" reads "phase", which no earlier step produces (no step of this harness produces it)`],
    ['late', `${file('late')}: steps[5]: step "decide" reads "brain", which no earlier step produces (step "brain" produces it, after this one)`],
    ['double', `${file('double')}: steps[5]: step "step.phase-least-recent" produces "phase", which step "phase" (steps[4]) already produces; one step of a harness produces each value`],
    ['reviewstep', `${file('reviewstep')}: steps[0]: "review" is a boundary step: list it under boundary:`],
    ['badboundary', `${file('badboundary')}: boundary[1]: unknown boundary step "audit" (boundary steps: review)`],
    ['moody', `${path.join(plugins, 'step-moody', 'plugin.yaml')}: loop_step.reads[0]: no step value "mood" (values the steps provide: act, brain, ledger, phase, posture, review, skills, usage, work)`],
    ['noreview', `${file('noreview')}: steps[6]: step "step.reviewer" reads "review", which no earlier step produces (no step of this harness produces it)`],
  ];
  const personas = cases.map(([h]) => profile(dir, h, `runtime: x-${h}\nharness: ${h}`));
  const runs = await run(personas, { stateDir, pluginPath: [plugins], harnessesDir: root, ...fakeTime() });
  for (const [h, line] of cases) {
    const r = runs.find((x) => x.persona_id === h)!;
    assert.equal(r.reports.length, 0, `${h} ran no cycle`);
    assert.deepEqual(r.refused, [`persona ${h}: ${line}`], h);
  }
});

test('the review boundary is a step: a harness without it applies no accepted proposal; the same persona on a harness with it applies it once', async () => {
  const dir = tempDir('rtc-boundary-');
  const stateDir = path.join(dir, 'state');
  const root = harnesses(dir, { unreviewed: 'boundary: []\nsteps: [brain, usage, budget, skills, ledger, phase, decide, record]' });
  const env = fakeEnv(OPERATORS.alice!.env);
  const on = (harness: string) => profile(dir, 'dee', `runtime: agent-dee\nharness: ${harness}`);
  await run([on('unreviewed')], { stateDir, env, harnessesDir: root });
  const personaDir = path.join(stateDir, 'dee');
  openReviewQueue(personaDir).submit({ kind: 'memory-promotion', proposer: 'loop', evidence: realEvidence(personaDir, 'seen in cycle 1'), text: 'A ratified fact.' }, { now: Date.now() });
  const accepted = await cli(['proposals', 'accept', 'P-dee-1', '--by', 'alice', '--state-dir', stateDir]);
  assert.equal(accepted.status, 0, accepted.stderr);
  const longTerm = () => readFileSync(path.join(personaDir, 'brain', 'memory', 'long-term.md'), 'utf8');

  await run([on('unreviewed')], { stateDir, env, harnessesDir: root, cycles: 2 });
  assert.doesNotMatch(longTerm(), /A ratified fact\./, 'no boundary step: the accepted proposal waits');
  for (const e of cycleEvents(stateDir, 'dee').slice(1)) assert.deepEqual(e.review, { applied: [], expired: [] });

  await run([on('continuous-science-loop')], { stateDir, env, harnessesDir: root, cycles: 2 });
  assert.equal(longTerm().split('A ratified fact.').length, 2, 'applied exactly once, at the first boundary');
  assert.deepEqual(cycleEvents(stateDir, 'dee').slice(-2).map((e) => e.review.applied), [['P-dee-1'], []]);
});
