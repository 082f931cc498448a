import assert from 'node:assert/strict';
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { PLUGINS_DIR } from '../../../kernel/plugins/registry.ts';
import { budgeted, cycleEvents, fakeTime, packet, profile, run, tempDir } from './helpers.ts';

test('a profile naming an unknown executor: each cycle records why, the persona carries on, the others are untouched', async () => {
  const dir = tempDir();
  const stateDir = path.join(dir, 'state');
  const broken = budgeted(dir, 'ada', 'executor.nope');
  const fine = budgeted(dir, 'bo', 'executor.orchestra');
  packet(stateDir, 'ada', 'q.md', '# Q\n');
  packet(stateDir, 'bo', 'q.md', '# Q\n');
  const [a, b] = await run([broken, fine], { stateDir, cycles: 2, ...fakeTime() });
  assert.equal(a!.stopped, undefined);
  assert.deepEqual(a!.reports.map((r) => r.outcome), ['failed', 'failed']);
  assert.match(a!.reports[0]!.defer_reason ?? '', /^executor executor\.nope: RTC_ERR_PLUGIN_UNKNOWN: plugin executor\.nope is not installed \(have: .*executor\.codex/);
  const [e1] = cycleEvents(stateDir, 'ada');
  const smoke = e1!.probes.find((p: { probe: string }) => p.probe === 'startup_smoke');
  assert.equal(smoke.action, 'failed');
  assert.match(smoke.reason, /RTC_ERR_PLUGIN_UNKNOWN.*\(retried next cycle\)$/);
  assert.equal(b!.reports[0]!.outcome, 'executed');
});

test('an unknown budget policy, or a plugin of the wrong kind, fails the cycle with the reason', async () => {
  const dir = tempDir();
  const stateDir = path.join(dir, 'state');
  const noPolicy = profile(dir, 'ada', `runtime: agent-ada
budget: { policy: budget.missing, daily_tokens: 1000 }
bindings: [ledger]`);
  const wrongKind = profile(dir, 'bo', `runtime: agent-bo
executor: { plugin: budget.voi-tiers }
bindings: [ledger]`);
  packet(stateDir, 'ada', 'q.md', '# Q\n');
  packet(stateDir, 'bo', 'q.md', '# Q\n');
  const [a, b] = await run([noPolicy, wrongKind], { stateDir, ...fakeTime() });
  assert.match(a!.reports[0]!.defer_reason ?? '', /^budget policy budget\.missing: RTC_ERR_PLUGIN_UNKNOWN: plugin budget\.missing is not installed/);
  assert.equal(b!.reports[0]!.defer_reason, 'executor budget.voi-tiers: RTC_ERR_PLUGIN_UNKNOWN: plugin budget.voi-tiers is a budget-policy plugin, not an executor');
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
  const p = profile(dir, 'ada', 'runtime: agent-ada\nskills: [shared/*, persona/ada/*]');
  await run([p], { stateDir, skillsDir, cycles: 2, ...fakeTime() });
  for (const e of cycleEvents(stateDir, 'ada')) {
    assert.deepEqual(e.skills.selected, ['shared/good-skill']);
    assert.deepEqual(e.skills.unmatched_patterns, ['persona/ada/*']);
    assert.equal(e.skills.refused.length, 1);
    assert.equal(e.skills.refused[0].skill, 'broken-skill');
    assert.match(e.skills.refused[0].reason, /^name: /);
  }
});

test('an executor that returns a value outside the contract fails the cycle with the field named; the kernel writes its manifest', async () => {
  const dir = tempDir();
  const stateDir = path.join(dir, 'state');
  const pluginsDir = path.join(dir, 'plugins');
  cpSync(PLUGINS_DIR, pluginsDir, { recursive: true });
  mkdirSync(path.join(pluginsDir, 'executor-liar'));
  writeFileSync(
    path.join(pluginsDir, 'executor-liar', 'plugin.yaml'),
    'id: executor.liar\nversion: 1.0.0\nkind: executor\nentry: mod.ts\ndescription: returns nonsense\nexports: [describe, run]\n',
  );
  writeFileSync(path.join(pluginsDir, 'executor-liar', 'mod.ts'), 'export function describe() { return { spends_tokens: false }; }\nexport function run() { return { status: "great", usage: { total_tokens: -5 } }; }\n');
  packet(stateDir, 'ada', 'q.md', '# Q\n');
  const [r] = await run([budgeted(dir, 'ada', 'executor.liar')], { stateDir, pluginsDir, ...fakeTime() });
  const report = r!.reports[0]!;
  assert.equal(report.outcome, 'failed');
  assert.match(report.defer_reason ?? '', /^executor executor\.liar: RTC_ERR_EXECUTOR_RESULT: plugin executor\.liar: run\(\) returned a bad value at status: /);
  assert.equal(report.act.session?.manifest_path, 'ada/brain/sessions/c000001-liar/manifest.json');
});

test('an executor plugin that runs past its CPU limit fails the cycle; the next cycle gets a fresh isolate', async () => {
  const dir = tempDir();
  const stateDir = path.join(dir, 'state');
  const pluginsDir = path.join(dir, 'plugins');
  cpSync(PLUGINS_DIR, pluginsDir, { recursive: true });
  mkdirSync(path.join(pluginsDir, 'executor-spin'));
  writeFileSync(path.join(pluginsDir, 'executor-spin', 'plugin.yaml'), 'id: executor.spin\nversion: 1.0.0\nkind: executor\nentry: mod.ts\ndescription: spins\nexports: [describe, run]\n');
  writeFileSync(path.join(pluginsDir, 'executor-spin', 'mod.ts'), 'export function describe() { return { spends_tokens: false }; }\nexport function run() { for (;;) {} }\n');
  const p = profile(dir, 'ada', `runtime: agent-ada
executor: { plugin: executor.spin }
budget: { daily_tokens: 1000, cpu_seconds_per_cycle: 0.2 }`);
  packet(stateDir, 'ada', 'q.md', '# Q\n');
  const [r] = await run([p], { stateDir, pluginsDir, cycles: 2, ...fakeTime() });
  for (const report of r!.reports) {
    assert.equal(report.outcome, 'failed');
    assert.match(report.defer_reason ?? '', /RTC_ERR_SANDBOX_CPU: CPU time limit of 200 ms exceeded/);
  }
});
