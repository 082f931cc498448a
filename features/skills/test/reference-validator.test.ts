/**
 * Skills from the ecosystem load as they load elsewhere: the cases of the Agent Skills
 * reference validator's own tests (agentskills/agentskills, skills-ref/tests/test_validator.py),
 * each as a skill folder read by this catalog, plus the reading rules the reference has and
 * this catalog once lacked (Unicode names after NFKC, plain scalars read as their text, a
 * digits-only name, a blank description refused). Where the reference and the specification
 * disagree, the specification's text is followed (features/skills/README.md): those cases
 * are at the end.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadSkillCatalog } from '../catalog.ts';

async function loadOne(folder: string, frontmatter: string): Promise<{ ok: true; skill: Awaited<ReturnType<typeof loadSkillCatalog>>['skills'][number] } | { ok: false; field: string; reason: string }> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'rtc-skills-ref-'));
  fs.mkdirSync(path.join(root, folder));
  fs.writeFileSync(path.join(root, folder, 'SKILL.md'), `---\n${frontmatter}\n---\n# Body\n`);
  const catalog = await loadSkillCatalog([{ dir: root, scope: 'shared' }]);
  const skill = catalog.skills[0];
  if (skill) return { ok: true, skill };
  const refusal = catalog.refused[0]!;
  return { ok: false, field: refusal.field, reason: refusal.reason };
}

const accepted: [string, string, string][] = [
  ['a valid skill', 'my-skill', 'name: my-skill\ndescription: A test skill'],
  ['every optional field', 'my-skill', 'name: my-skill\ndescription: A test skill\nlicense: MIT\nmetadata:\n  author: Test'],
  ['allowed-tools as a string', 'my-skill', 'name: my-skill\ndescription: A test skill\nallowed-tools: Bash(jq:*) Bash(git:*)'],
  ['allowed-tools as an inline list', 'my-skill', 'name: my-skill\ndescription: A test skill\nallowed-tools: [Read, Write, Edit, Bash]'],
  ['allowed-tools as a block list', 'my-skill', 'name: my-skill\ndescription: A test skill\nallowed-tools:\n  - Read\n  - Bash\n  - Grep'],
  ['a Chinese name', '技能', 'name: 技能\ndescription: A skill with Chinese name'],
  ['a Russian name with hyphens', 'мой-навык', 'name: мой-навык\ndescription: A skill with Russian name'],
  ['a Russian lowercase name', 'навык', 'name: навык\ndescription: A skill with Russian lowercase name'],
  ['compatibility', 'my-skill', 'name: my-skill\ndescription: A test skill\ncompatibility: Requires Python 3.11+'],
  ['a decomposed name in a composed folder (NFKC)', 'café', 'name: cafe\u0301\ndescription: A test skill'],
  ['a digits-only name', '2024', 'name: 2024\ndescription: A skill named by a year'],
  ['a plain number as the description', 'numbers', 'name: numbers\ndescription: 42'],
];

for (const [what, folder, fm] of accepted) {
  test(`reference case accepted: ${what}`, async () => {
    const got = await loadOne(folder, fm);
    assert.equal(got.ok, true, got.ok ? '' : `${got.field}: ${got.reason}`);
  });
}

const refused: [string, string, string, string, RegExp][] = [
  ['an uppercase name', 'MySkill', 'name: MySkill\ndescription: A test skill', 'name', /must be lowercase/],
  ['a name over 64 characters', 'a'.repeat(70), `name: ${'a'.repeat(70)}\ndescription: A test skill`, 'name', /at most 64 characters/],
  ['a leading hyphen', '-my-skill', 'name: -my-skill\ndescription: A test skill', 'name', /must not start or end with "-"/],
  ['consecutive hyphens', 'my--skill', 'name: my--skill\ndescription: A test skill', 'name', /must not contain "--"/],
  ['an underscore', 'my_skill', 'name: my_skill\ndescription: A test skill', 'name', /may contain only letters, digits/],
  ['a name unlike its folder', 'wrong-name', 'name: correct-name\ndescription: A test skill', 'name', /must equal the folder name/],
  ['an unknown field', 'my-skill', 'name: my-skill\ndescription: A test skill\nunknown_field: should not be here', 'unknown_field', /not an Agent Skills front matter field/],
  ['allowed-tools with a number in its list', 'my-skill', 'name: my-skill\ndescription: A test skill\nallowed-tools:\n  - Read\n  - 123', 'allowed-tools[1]', /list items must all be strings/],
  ['allowed-tools as a number', 'my-skill', 'name: my-skill\ndescription: A test skill\nallowed-tools: 123', 'allowed-tools', /a space-delimited string or a list of strings/],
  ['a Russian uppercase name', 'НАВЫК', 'name: НАВЫК\ndescription: A skill with Russian uppercase name', 'name', /must be lowercase/],
  ['a description over 1024 characters', 'my-skill', `name: my-skill\ndescription: ${'x'.repeat(1100)}`, 'description', /at most 1024 characters/],
  ['a compatibility over 500 characters', 'my-skill', `name: my-skill\ndescription: A test skill\ncompatibility: ${'x'.repeat(550)}`, 'compatibility', /at most 500 characters/],
  ['a description blank after trimming', 'blank', 'name: blank\ndescription: "   "', 'description', /must not be empty or blank/],
  ['an empty description', 'empty', 'name: empty\ndescription:', 'description', /must not be empty or blank/],
];

for (const [what, folder, fm, field, reason] of refused) {
  test(`reference case refused: ${what}`, async () => {
    const got = await loadOne(folder, fm);
    assert.equal(got.ok, false, `${what} should be refused`);
    if (got.ok) return;
    assert.equal(got.field, field);
    assert.match(got.reason, reason);
  });
}

test('plain scalars in metadata are read as the text they were written with', async () => {
  const got = await loadOne('versions', 'name: versions\ndescription: d\nmetadata:\n  version: 1.0\n  count: 3\n  enabled: true\n  hex: 0x1F\n  quoted: "2.10"\n  empty:');
  assert.equal(got.ok, true, got.ok ? '' : got.reason);
  if (got.ok) assert.deepEqual(got.skill.metadata, { version: '1.0', count: '3', enabled: 'true', hex: '0x1F', quoted: '2.10', empty: '' });
});

test('the name is kept NFKC-normalised; allowed-tools lists and strings give the same list', async () => {
  const composed = await loadOne('café', 'name: cafe\u0301\ndescription: d');
  assert.equal(composed.ok && composed.skill.name, 'café');
  assert.equal(composed.ok && composed.skill.id, 'shared/café');
  const list = await loadOne('tools', 'name: tools\ndescription: d\nallowed-tools: [Read, "Bash(git:*)"]');
  const text = await loadOne('tools', 'name: tools\ndescription: d\nallowed-tools: Read  Bash(git:*)');
  assert.deepEqual(list.ok && list.skill.allowedTools, ['Read', 'Bash(git:*)']);
  assert.deepEqual(text.ok && text.skill.allowedTools, ['Read', 'Bash(git:*)']);
});

// Where the specification's text differs from the reference, the specification is followed.
test('specification over reference: a name with surrounding spaces is refused (the reference strips them)', async () => {
  const got = await loadOne('my-skill', 'name: " my-skill"\ndescription: d');
  assert.equal(got.ok, false);
  if (!got.ok) assert.equal(got.field, 'name');
});

test('specification over reference: an empty compatibility is refused (1-500 characters if provided)', async () => {
  const got = await loadOne('my-skill', 'name: my-skill\ndescription: d\ncompatibility: ""');
  assert.equal(got.ok, false);
  if (!got.ok) assert.equal(got.field, 'compatibility');
});

test('specification over reference: a list or mapping in metadata is refused (string values), not stringified', async () => {
  const got = await loadOne('my-skill', 'name: my-skill\ndescription: d\nmetadata:\n  tags: {a: b}');
  assert.equal(got.ok, false);
  if (!got.ok) assert.equal(got.field, 'metadata.tags');
});

test('specification over reference: only SKILL.md is the skill file (the reference also takes skill.md)', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'rtc-skills-ref-'));
  fs.mkdirSync(path.join(root, 'lower'));
  fs.writeFileSync(path.join(root, 'lower', 'skill.md'), '---\nname: lower\ndescription: d\n---\n');
  const catalog = await loadSkillCatalog([{ dir: root, scope: 'shared' }]);
  // a case-insensitive file system finds SKILL.md as skill.md; only a case-sensitive one can refuse it
  const caseSensitive = !fs.existsSync(path.join(root, 'lower', 'SKILL.md'));
  if (caseSensitive) assert.equal(catalog.refused[0]?.field, '(file)');
});
