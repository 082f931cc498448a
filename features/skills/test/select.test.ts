/** Selecting skills by name and glob, and the repo layout of shared and persona skills. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadSkillCatalog } from '../catalog.ts';
import { REPO_SKILLS_DIR, skillRootsForDir, skillRootsForPersona } from '../layout.ts';
import { selectSkills, unmatchedPatterns } from '../select.ts';

function layout(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'rtc-'));
  const skills: Record<string, string[]> = {
    shared: ['budget-tiers', 'budget-reserve', 'reviewer-handoff'],
    'persona/jerome': ['kinase-triage', 'budget-jerome'],
    'persona/karl': ['falsification'],
  };
  for (const [where, names] of Object.entries(skills)) {
    for (const name of names) {
      fs.mkdirSync(path.join(root, where, name), { recursive: true });
      fs.writeFileSync(path.join(root, where, name, 'SKILL.md'), `---\nname: ${name}\ndescription: ${name}.\n---\n`);
    }
  }
  return root;
}

test('the layout yields a shared root and one root per persona', () => {
  const root = layout();
  assert.deepEqual(skillRootsForDir(root), [
    { dir: path.join(root, 'shared'), scope: 'shared' },
    { dir: path.join(root, 'persona', 'jerome'), scope: 'persona', persona: 'jerome' },
    { dir: path.join(root, 'persona', 'karl'), scope: 'persona', persona: 'karl' },
  ]);
  assert.deepEqual(
    skillRootsForPersona(root, 'karl').map((r) => r.persona ?? r.scope),
    ['shared', 'karl'],
  );
  const flat = fs.mkdtempSync(path.join(os.tmpdir(), 'rtc-'));
  assert.deepEqual(skillRootsForDir(flat), [{ dir: flat, scope: 'shared' }]);
});

test('selection by scope glob, persona glob, name glob and exact name', async () => {
  const catalog = await loadSkillCatalog(skillRootsForDir(layout()));
  const ids = (patterns: string[]) => selectSkills(catalog, patterns).map((s) => s.id);
  assert.deepEqual(ids(['shared/*']), ['shared/budget-reserve', 'shared/budget-tiers', 'shared/reviewer-handoff']);
  assert.deepEqual(ids(['persona/jerome/*']), ['persona/jerome/budget-jerome', 'persona/jerome/kinase-triage']);
  assert.deepEqual(ids(['budget-*']), ['shared/budget-reserve', 'shared/budget-tiers', 'persona/jerome/budget-jerome']);
  assert.deepEqual(ids(['falsification']), ['persona/karl/falsification']);
  assert.deepEqual(ids(['persona/*']), [], '* stays within one segment');
  assert.equal(ids(['persona/**']).length, 3);
  assert.deepEqual(ids(['shared/*', 'shared/budget-tiers', 'budget-t?ers']).length, 3, 'each skill once');
  assert.deepEqual(ids(['budget.tiers']), [], 'dots are literal');
  assert.deepEqual(unmatchedPatterns(catalog, ['shared/*', 'persona/nobody/*', 'typo-skill']), ['persona/nobody/*', 'typo-skill']);
});

test("the repo's own shared skills load cleanly and are selectable", async () => {
  const catalog = await loadSkillCatalog(skillRootsForDir(REPO_SKILLS_DIR));
  assert.deepEqual(catalog.refused, []);
  const shared = selectSkills(catalog, ['shared/*']).map((s) => s.name);
  for (const name of ['value-of-information-budgeting', 'read-only-planning', 'reviewer-handoff']) assert.ok(shared.includes(name), name);
  for (const skill of catalog.skills) assert.deepEqual(skill.warnings, [], skill.id);
  const voi = await catalog.activate('value-of-information-budgeting');
  for (const field of ['decision', 'uncertainty', 'cheaper alternatives', 'expected cost', 'stop condition', 'reserve']) {
    assert.ok(voi.body.toLowerCase().includes(field), `the budgeting skill asks for ${field}`);
  }
  assert.match(await catalog.reference('value-of-information-budgeting', 'references/decision-record.md'), /stop_condition/);
});
