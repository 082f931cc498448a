/**
 * Malformed skills are refused one by one, each with a one-line reason naming the file and
 * the field, and the well-formed skill beside them still loads.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadSkillCatalog, type SkillRefusal } from '../catalog.ts';

const FIXTURES = path.resolve(import.meta.dirname, '../../../test/fixtures/skills/malformed');

const EXPECTED: Record<string, { field: string; reason: RegExp }> = {
  Bad_Name: { field: 'name', reason: /may contain only letters, digits \(of any script\) and "-"/ },
  'name-mismatch': { field: 'name', reason: /must equal the folder name "name-mismatch" \(got "other-name"\)/ },
  'unknown-key': { field: 'version', reason: /not an Agent Skills front matter field/ },
  'long-description': { field: 'description', reason: /at most 1024 characters/ },
  'no-front-matter': { field: '(front matter)', reason: /must start with a "---" line/ },
  'bad-yaml': { field: '(front matter)', reason: /invalid YAML at line 3/ },
  'double--hyphen': { field: 'name', reason: /must not contain "--"/ },
  'missing-description': { field: 'description', reason: /is required/ },
  'metadata-not-strings': { field: 'metadata.version', reason: /must be a string/ },
  'no-skill-file': { field: '(file)', reason: /needs a SKILL\.md/ },
};

async function load() {
  return loadSkillCatalog([{ dir: FIXTURES, scope: 'shared' }], { displayRoot: path.resolve(import.meta.dirname, '../../..') });
}

test('the well-formed skill loads; every malformed one is refused', async () => {
  const catalog = await load();
  assert.deepEqual(
    catalog.skills.map((s) => s.id),
    ['shared/good-skill'],
  );
  assert.deepEqual(catalog.refused.map((r) => r.folder).sort(), Object.keys(EXPECTED).sort());
});

for (const [folder, want] of Object.entries(EXPECTED)) {
  test(`${folder} is refused naming the file and the field`, async () => {
    const refusal = (await load()).refused.find((r) => r.folder === folder) as SkillRefusal;
    assert.equal(refusal.field, want.field);
    assert.match(refusal.reason, want.reason);
    assert.equal(refusal.message, `test/fixtures/skills/malformed/${folder}/SKILL.md: ${want.field}: ${refusal.reason}`);
    assert.ok(!refusal.message.includes('\n'), 'one line');
  });
}

test('a front matter that is never closed is refused', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'rtc-'));
  fs.mkdirSync(path.join(root, 'unclosed'));
  fs.writeFileSync(path.join(root, 'unclosed', 'SKILL.md'), '---\nname: unclosed\ndescription: no end\n# Body\n');
  const catalog = await loadSkillCatalog([{ dir: root, scope: 'shared' }]);
  assert.equal(catalog.refused[0]?.field, '(front matter)');
  assert.match(catalog.refused[0]?.reason ?? '', /not closed/);
});

test('a body of 500 lines or more loads with a warning, not a refusal', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'rtc-'));
  fs.mkdirSync(path.join(root, 'long-body'));
  const body = Array.from({ length: 600 }, (_, i) => `line ${i}`).join('\n');
  fs.writeFileSync(path.join(root, 'long-body', 'SKILL.md'), `---\nname: long-body\ndescription: Long.\n---\n${body}\n`);
  const catalog = await loadSkillCatalog([{ dir: root, scope: 'shared' }]);
  assert.equal(catalog.refused.length, 0);
  assert.equal(catalog.skills[0]?.bodyLines, 600);
  assert.match(catalog.skills[0]?.warnings[0] ?? '', /600 lines; under 500 is advised/);
});

test('optional fields are kept; allowed-tools is split on spaces; CRLF files parse', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'rtc-'));
  fs.mkdirSync(path.join(root, 'full'));
  const text = [
    '---',
    'name: full',
    'description: Uses every optional field.',
    'license: Apache-2.0',
    'compatibility: Needs git.',
    'metadata:',
    '  author: someone',
    '  version: "1.0"',
    'allowed-tools: Bash(git:*)  Read',
    '---',
    'Body.',
    '',
  ].join('\r\n');
  fs.writeFileSync(path.join(root, 'full', 'SKILL.md'), text);
  const catalog = await loadSkillCatalog([{ dir: root, scope: 'shared' }]);
  const skill = catalog.get('full');
  assert.equal(skill.license, 'Apache-2.0');
  assert.equal(skill.compatibility, 'Needs git.');
  assert.deepEqual(skill.metadata, { author: 'someone', version: '1.0' });
  assert.deepEqual(skill.allowedTools, ['Bash(git:*)', 'Read']);
  assert.equal((await catalog.activate('full')).body.trim(), 'Body.');
});

test('the same skill id from two roots: the second is refused as a duplicate', async () => {
  const a = fs.mkdtempSync(path.join(os.tmpdir(), 'rtc-'));
  const b = fs.mkdtempSync(path.join(os.tmpdir(), 'rtc-'));
  for (const root of [a, b]) {
    fs.mkdirSync(path.join(root, 'twin'));
    fs.writeFileSync(path.join(root, 'twin', 'SKILL.md'), '---\nname: twin\ndescription: Twin.\n---\n');
  }
  const catalog = await loadSkillCatalog([
    { dir: a, scope: 'shared' },
    { dir: b, scope: 'shared' },
  ]);
  assert.equal(catalog.skills.length, 1);
  assert.equal(catalog.refused[0]?.field, 'name');
  assert.match(catalog.refused[0]?.reason ?? '', /duplicates shared\/twin/);
});

test('a missing root is empty; a persona root without a persona id is a programming error', async () => {
  const catalog = await loadSkillCatalog([{ dir: path.join(os.tmpdir(), 'rtc-no-such-dir-x'), scope: 'shared' }]);
  assert.equal(catalog.skills.length + catalog.refused.length, 0);
  await assert.rejects(loadSkillCatalog([{ dir: FIXTURES, scope: 'persona' }]), { code: 'RTC_ERR_SKILL_INVALID' });
});
