import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { budgeted, cycleEvents, fakeTime, packet, profile, run, tempDir } from './helpers.ts';

test('a profile naming an unknown executor does not start: one line names the persona, file and field; the others run', async () => {
  const dir = tempDir();
  const stateDir = path.join(dir, 'state');
  const broken = budgeted(dir, 'ada', 'executor.nope');
  const fine = budgeted(dir, 'bo', 'executor.orchestra');
  packet(stateDir, 'ada', 'q.md', '# Q\n');
  packet(stateDir, 'bo', 'q.md', '# Q\n');
  const [b, a] = await run([broken, fine], { stateDir, cycles: 2, ...fakeTime() }).then((runs) => [runs.find((r) => r.persona_id === 'bo'), runs.find((r) => r.persona_id === 'ada')]);
  assert.deepEqual(a!.reports, []);
  assert.deepEqual(a!.refused, [`persona ada: ${path.join(dir, 'ada.yaml')}: executor.plugin: plugin executor.nope is not installed (executor plugins: executor.claude, executor.codex, executor.command, executor.none, executor.orchestra)`]);
  assert.equal(cycleEvents(stateDir, 'ada').length, 0, 'a refused persona writes no cycle');
  assert.equal(b!.reports[0]!.outcome, 'executed');
});

test('an unknown budget policy, or a plugin of the wrong kind in a slot, is refused at start naming the field', async () => {
  const dir = tempDir();
  const stateDir = path.join(dir, 'state');
  const noPolicy = profile(dir, 'ada', `runtime: agent-ada
budget: { policy: budget.missing, daily_tokens: 1000 }
bindings: [ledger]`);
  const wrongKind = profile(dir, 'bo', `runtime: agent-bo
executor: { plugin: budget.voi-tiers }
bindings: [ledger]`);
  const wrongPhase = profile(dir, 'cy', `runtime: agent-cy
phase: executor.none`);
  const runs = await run([noPolicy, wrongKind, wrongPhase], { stateDir, ...fakeTime() });
  const refused = (id: string) => runs.find((r) => r.persona_id === id)!.refused;
  assert.deepEqual(refused('ada'), [`persona ada: ${path.join(dir, 'ada.yaml')}: budget.policy: plugin budget.missing is not installed (budget-policy plugins: budget.voi-tiers)`]);
  assert.deepEqual(refused('bo'), [`persona bo: ${path.join(dir, 'bo.yaml')}: executor.plugin: plugin budget.voi-tiers is a budget-policy plugin, not an executor plugin`]);
  assert.deepEqual(refused('cy'), [`persona cy: ${path.join(dir, 'cy.yaml')}: phase: plugin executor.none is an executor plugin, not a phase-selector plugin`]);
});

test('a skill that fails to load is refused with its reason in every cycle event; the other skills are selected', async () => {
  const dir = tempDir();
  const stateDir = path.join(dir, 'state');
  const skillsDir = path.join(dir, 'skills');
  for (const [folder, text] of [
    ['good-skill', '---\nname: good-skill\ndescription: A skill that loads.\n---\n# Good\n'],
    ['broken-skill', '---\nname: another-name\ndescription: The name does not match the folder.\n---\n'],
  ]) {
    mkdirSync(path.join(skillsDir, 'shared', folder!), { recursive: true });
    writeFileSync(path.join(skillsDir, 'shared', folder!, 'SKILL.md'), text!);
  }
  const p = profile(dir, 'ada', 'runtime: agent-ada\nskills: [shared/*]');
  await run([p], { stateDir, skillsDir, cycles: 2, ...fakeTime() });
  for (const e of cycleEvents(stateDir, 'ada')) {
    assert.deepEqual(e.skills.selected, ['shared/good-skill']);
    assert.deepEqual(e.skills.unmatched_patterns, []);
    assert.equal(e.skills.refused.length, 1);
    assert.equal(e.skills.refused[0].skill, 'broken-skill');
    assert.match(e.skills.refused[0].reason, /^name: /);
  }
  // A name that matches no skill cannot work: the persona does not start, and a refused skill says why.
  const q = profile(dir, 'bo', 'runtime: agent-bo\nskills: [shared/*, broken-skill, good-skil]');
  const [r] = await run([q], { stateDir, skillsDir, ...fakeTime() });
  assert.equal(r!.refused?.length, 2, String(r!.refused));
  assert.match(r!.refused![0]!, new RegExp(`^persona bo: ${path.join(dir, 'bo.yaml').replace(/[/.]/g, '\\$&')}: skills\\[1\\]: "broken-skill" the skill was refused \\(.*name`));
  assert.equal(r!.refused![1], `persona bo: ${path.join(dir, 'bo.yaml')}: skills[2]: "good-skil" matches no skill (did you mean "good-skill"?)`);
  // A glob that matches nothing is no typo (a persona may have no skills of its own yet): it starts, and each cycle says so.
  const g = profile(dir, 'cy', 'runtime: agent-cy\nskills: [shared/*, persona/cy/*]');
  const [started] = await run([g], { stateDir, skillsDir, ...fakeTime() });
  assert.equal(started!.refused, undefined);
  assert.deepEqual(cycleEvents(stateDir, 'cy')[0]!.skills.unmatched_patterns, ['persona/cy/*']);
});

test('an executor that returns a value outside the contract fails the cycle with the field named; the kernel writes its manifest', async () => {
  const dir = tempDir();
  const stateDir = path.join(dir, 'state');
  // An operator's own plugin folder, outside the checkout (RUNTIMECTL_PLUGIN_PATH / --plugins-dir).
  const pluginsDir = path.join(dir, 'plugins');
  mkdirSync(path.join(pluginsDir, 'executor-liar'), { recursive: true });
  writeFileSync(
    path.join(pluginsDir, 'executor-liar', 'plugin.yaml'),
    'id: executor.liar\nversion: 1.0.0\nkind: executor\nentry: mod.ts\ndescription: returns nonsense\nexports: [describe, run]\n',
  );
  writeFileSync(path.join(pluginsDir, 'executor-liar', 'mod.ts'), 'export function describe() { return { spends_tokens: false }; }\nexport function run() { return { status: "great", usage: { total_tokens: -5 } }; }\n');
  packet(stateDir, 'ada', 'q.md', '# Q\n');
  const [r] = await run([budgeted(dir, 'ada', 'executor.liar')], { stateDir, pluginPath: [pluginsDir], ...fakeTime() });
  const report = r!.reports[0]!;
  assert.equal(report.outcome, 'failed');
  assert.match(report.defer_reason ?? '', /^executor executor\.liar: RTC_ERR_EXECUTOR_RESULT: plugin executor\.liar: run\(\) returned a bad value at status: /);
  assert.equal(report.act.session?.manifest_path, 'ada/brain/sessions/c000001-liar/manifest.json');
});

test('an executor plugin that runs past its CPU limit fails the cycle; the next cycle gets a fresh isolate', async () => {
  const dir = tempDir();
  const stateDir = path.join(dir, 'state');
  const pluginsDir = path.join(dir, 'plugins');
  mkdirSync(path.join(pluginsDir, 'executor-spin'), { recursive: true });
  writeFileSync(path.join(pluginsDir, 'executor-spin', 'plugin.yaml'), 'id: executor.spin\nversion: 1.0.0\nkind: executor\nentry: mod.ts\ndescription: spins\nexports: [describe, run]\n');
  writeFileSync(path.join(pluginsDir, 'executor-spin', 'mod.ts'), 'export function describe() { return { spends_tokens: false }; }\nexport function run() { for (;;) {} }\n');
  const p = profile(dir, 'ada', `runtime: agent-ada
executor: { plugin: executor.spin }
budget: { daily_tokens: 1000, cpu_seconds_per_cycle: 0.2 }`);
  packet(stateDir, 'ada', 'q.md', '# Q\n');
  const [r] = await run([p], { stateDir, pluginPath: [pluginsDir], cycles: 2, ...fakeTime() });
  for (const report of r!.reports) {
    assert.equal(report.outcome, 'failed');
    assert.match(report.defer_reason ?? '', /RTC_ERR_SANDBOX_CPU: CPU time limit of 200 ms exceeded/);
  }
});
