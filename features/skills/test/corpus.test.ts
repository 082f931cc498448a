/**
 * Every skill in the real anthropics/skills corpus (../shared/corpus/anthropic-skills/) loads
 * with its name and description; its body is available on activation and every file it
 * carries is available as a reference on demand.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { loadSkillCatalog } from '../catalog.ts';
import { sharedPath, skipWithoutShared } from '../../../test/support/outside-material.ts';

const CORPUS = sharedPath('corpus/anthropic-skills');
// Without ../shared beside the checkout every test here skips with this reason.
const skip = skipWithoutShared('corpus/anthropic-skills');
const FOLDERS = skip !== false ? [] : readdirSync(CORPUS, { withFileTypes: true })
  .filter((e) => e.isDirectory() && existsSync(path.join(CORPUS, e.name, 'SKILL.md')))
  .map((e) => e.name)
  .sort();

/** The front matter as an independent reader sees it: YAML between the first two `---` lines. */
function frontMatterOf(folder: string): { name: string; description: string } {
  const text = readFileSync(path.join(CORPUS, folder, 'SKILL.md'), 'utf8');
  const [, yamlText] = text.split(/^---\s*$/m);
  return parse(yamlText as string) as { name: string; description: string };
}

test('the corpus is present and holds several skills', { skip }, () => {
  assert.ok(FOLDERS.length >= 8, `expected the anthropic-skills corpus at ${CORPUS}`);
});

test('every corpus skill loads with its name and description, none refused', { skip }, async () => {
  const catalog = await loadSkillCatalog([{ dir: CORPUS, scope: 'shared' }]);
  assert.deepEqual(catalog.refused, []);
  assert.deepEqual(
    catalog.skills.map((s) => s.name),
    FOLDERS,
  );
  for (const skill of catalog.skills) {
    const fm = frontMatterOf(skill.name);
    assert.equal(skill.name, fm.name);
    assert.equal(skill.description, fm.description);
    assert.equal(skill.id, `shared/${skill.name}`);
    assert.match(skill.digest, /^sha256:[0-9a-f]{64}$/);
    assert.equal('body' in skill, false, 'the catalog keeps metadata only');
  }
});

test('activation returns each body: the text after the front matter, unchanged', { skip }, async () => {
  const catalog = await loadSkillCatalog([{ dir: CORPUS, scope: 'shared' }]);
  for (const skill of catalog.skills) {
    const { body, digest } = await catalog.activate(skill.name);
    const text = readFileSync(skill.file, 'utf8');
    assert.ok(body.trim().length > 0, `${skill.name} has a body`);
    assert.ok(text.endsWith(body), `${skill.name}: body is the tail of SKILL.md`);
    assert.ok(!body.includes(`name: ${skill.name}\n`), `${skill.name}: body holds no front matter`);
    assert.equal(digest, skill.digest);
  }
});

test('every file beside SKILL.md is listed and readable as a reference, byte for byte', { skip }, async () => {
  const catalog = await loadSkillCatalog([{ dir: CORPUS, scope: 'shared' }]);
  let total = 0;
  for (const skill of catalog.skills) {
    const listed = await catalog.listReferences(skill.name);
    const onDisk = (readdirSync(skill.dir, { recursive: true, withFileTypes: true }) as import('node:fs').Dirent[])
      .filter((e) => e.isFile())
      .map((e) => path.relative(skill.dir, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
      .filter((rel) => rel !== 'SKILL.md')
      .sort();
    assert.deepEqual(listed, onDisk, skill.name);
    for (const rel of listed) {
      assert.equal(await catalog.reference(skill.name, rel), readFileSync(path.join(skill.dir, rel), 'utf8'));
      total++;
    }
  }
  assert.ok(total > 20, 'the corpus carries many references');
  // The references the bodies point at by name are among them.
  assert.ok((await catalog.listReferences('mcp-builder')).includes('reference/evaluation.md'));
  assert.ok((await catalog.listReferences('skill-creator')).includes('agents/grader.md'));
});
