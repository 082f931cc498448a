import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chooseExecutor } from '../executors/choice.ts';
import { listPersonaIds, resolvePersonas } from '../../profiles/load.ts';
import { personaProfileSchema } from '../../../kernel/personas/profile-schema.ts';
import { HarnessCatalog } from '../../profiles/harness-catalog.ts';
import { scanRegistry } from '../../plugin-search/scan.ts';

const HARNESSES = new HarnessCatalog();

test('every plugin a shipped profile names is installed, with the right kind', () => {
  const directory = scanRegistry();
  for (const { profile } of resolvePersonas(listPersonaIds())) {
    const choice = chooseExecutor(profile, { budget: {} }, HARNESSES.forProfile(profile).manifest);
    assert.equal(directory.find(choice.plugin, 'executor').manifest.kind, 'executor');
    assert.equal(directory.find(profile.budget.policy, 'budget-policy').manifest.kind, 'budget-policy');
    assert.equal(directory.find(profile.phase, 'phase-selector').manifest.kind, 'phase-selector');
  }
});

test('executor defaults follow the harness manifest, never the persona id; the profile and then the env override them', () => {
  const canonical = personaProfileSchema.parse({ id: 'minimax', runtime: 'agent-minimax' });
  const harness = personaProfileSchema.parse({ id: 'jerome', runtime: 'rosalind' });
  const choose = (profile: typeof canonical, env: Parameters<typeof chooseExecutor>[1]) => chooseExecutor(profile, env, HARNESSES.forProfile(profile).manifest);
  assert.deepEqual(choose(canonical, { budget: {} }), { plugin: 'executor.orchestra', enabled: true, plugin_source: 'runtime_default', enabled_source: 'runtime_default' });
  assert.deepEqual(choose(harness, { budget: {} }), { plugin: 'executor.none', enabled: false, plugin_source: 'runtime_default', enabled_source: 'runtime_default' });
  // The codex and claude compatibility targets are manifests too: their executor, off.
  assert.deepEqual(choose(personaProfileSchema.parse({ id: 'x', runtime: 'codex' }), { budget: {} }), { plugin: 'executor.codex', enabled: false, plugin_source: 'runtime_default', enabled_source: 'runtime_default' });
  assert.deepEqual(choose(personaProfileSchema.parse({ id: 'x', runtime: 'agent-x', harness: 'claude' }), { budget: {} }), { plugin: 'executor.claude', enabled: false, plugin_source: 'runtime_default', enabled_source: 'runtime_default' });
  const configured = personaProfileSchema.parse({ id: 'x', runtime: 'operon', executor: { plugin: 'executor.claude', enabled: true } });
  assert.deepEqual(choose(configured, { budget: {} }), { plugin: 'executor.claude', enabled: true, plugin_source: 'profile', enabled_source: 'profile' });
  assert.deepEqual(choose(configured, { budget: {}, executorPlugin: 'executor.codex', executorEnabled: false }), {
    plugin: 'executor.codex',
    enabled: false,
    plugin_source: 'env',
    enabled_source: 'env',
  });
});
