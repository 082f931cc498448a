/**
 * Progressive disclosure and its boundary: bodies are read on activation (so an edit shows
 * up), references are read on demand, and no reference path reaches outside the skill
 * folder, whether by `..`, an absolute path or a symlink.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadSkillCatalog } from '../catalog.ts';

function skillsRoot() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'rtc-'));
  const dir = path.join(root, 'skills', 'demo');
  fs.mkdirSync(path.join(dir, 'references'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'SKILL.md'), '---\nname: demo\ndescription: Demo.\n---\n# Demo\nSee references/guide.md.\n');
  fs.writeFileSync(path.join(dir, 'references', 'guide.md'), 'the guide\n');
  fs.writeFileSync(path.join(root, 'secret.txt'), 'outside\n');
  return { root, skills: path.join(root, 'skills'), dir };
}

test('activate reads the body from disk each time and reports its current digest', async () => {
  const { skills, dir } = skillsRoot();
  const catalog = await loadSkillCatalog([{ dir: skills, scope: 'shared' }]);
  const first = await catalog.activate('demo');
  assert.equal(first.body, '# Demo\nSee references/guide.md.\n');
  assert.equal(first.digest, catalog.get('demo').digest);

  fs.writeFileSync(path.join(dir, 'SKILL.md'), '---\nname: demo\ndescription: Demo.\n---\n# Demo v2\n');
  const second = await catalog.activate('shared/demo');
  assert.equal(second.body, '# Demo v2\n');
  assert.notEqual(second.digest, catalog.get('demo').digest);

  fs.writeFileSync(path.join(dir, 'SKILL.md'), '---\nname: renamed\ndescription: Demo.\n---\n');
  await assert.rejects(catalog.activate('demo'), { code: 'RTC_ERR_SKILL_INVALID', message: /name: must equal the folder name/ });
});

test('references are read on demand, by relative path', async () => {
  const { skills } = skillsRoot();
  const catalog = await loadSkillCatalog([{ dir: skills, scope: 'shared' }]);
  assert.deepEqual(await catalog.listReferences('demo'), ['references/guide.md']);
  assert.equal(await catalog.reference('demo', 'references/guide.md'), 'the guide\n');
  assert.equal(await catalog.reference('demo', './references/../references/guide.md'), 'the guide\n');
});

test('paths that leave the skill folder are refused', async () => {
  const { skills, root } = skillsRoot();
  const catalog = await loadSkillCatalog([{ dir: skills, scope: 'shared' }]);
  for (const bad of ['../../secret.txt', '..', path.join(root, 'secret.txt'), '/etc/passwd', '']) {
    await assert.rejects(catalog.reference('demo', bad), { code: 'RTC_ERR_SKILL_REFERENCE_ESCAPE' }, JSON.stringify(bad));
  }
});

test('symlinks that resolve outside the skill folder are refused and not listed', async () => {
  const { skills, root, dir } = skillsRoot();
  fs.symlinkSync(path.join(root, 'secret.txt'), path.join(dir, 'leak.md'));
  fs.symlinkSync(root, path.join(dir, 'up'));
  fs.symlinkSync('references/guide.md', path.join(dir, 'alias.md'));
  const catalog = await loadSkillCatalog([{ dir: skills, scope: 'shared' }]);
  await assert.rejects(catalog.reference('demo', 'leak.md'), { code: 'RTC_ERR_SKILL_REFERENCE_ESCAPE', message: /symlink/ });
  await assert.rejects(catalog.reference('demo', 'up/secret.txt'), { code: 'RTC_ERR_SKILL_REFERENCE_ESCAPE' });
  assert.equal(await catalog.reference('demo', 'alias.md'), 'the guide\n', 'a link that stays inside is fine');
  assert.deepEqual(await catalog.listReferences('demo'), ['alias.md', 'references/guide.md']);
});

test('missing files, folders and oversized files are refused with their own codes', async () => {
  const { skills, dir } = skillsRoot();
  fs.writeFileSync(path.join(dir, 'big.md'), 'x'.repeat(2048));
  const catalog = await loadSkillCatalog([{ dir: skills, scope: 'shared' }], { maxReferenceBytes: 1024 });
  await assert.rejects(catalog.reference('demo', 'nope.md'), { code: 'RTC_ERR_SKILL_REFERENCE_NOT_FOUND' });
  await assert.rejects(catalog.reference('demo', 'references'), { code: 'RTC_ERR_SKILL_REFERENCE_NOT_FOUND' });
  await assert.rejects(catalog.reference('demo', 'big.md'), { code: 'RTC_ERR_SKILL_REFERENCE_TOO_LARGE', message: /2048 bytes/ });
  await assert.rejects(catalog.reference('nope', 'x.md'), { code: 'RTC_ERR_SKILL_UNKNOWN' });
});

test('a bare name in two scopes is ambiguous; the id picks one', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'rtc-'));
  for (const dir of ['shared/plan', 'persona/jerome/plan']) {
    fs.mkdirSync(path.join(root, dir), { recursive: true });
    fs.writeFileSync(path.join(root, dir, 'SKILL.md'), `---\nname: plan\ndescription: ${dir}.\n---\n${dir}\n`);
  }
  const catalog = await loadSkillCatalog([
    { dir: path.join(root, 'shared'), scope: 'shared' },
    { dir: path.join(root, 'persona/jerome'), scope: 'persona', persona: 'jerome' },
  ]);
  assert.throws(() => catalog.get('plan'), { code: 'RTC_ERR_SKILL_AMBIGUOUS' });
  assert.equal((await catalog.activate('persona/jerome/plan')).body, 'persona/jerome/plan\n');
  assert.equal(catalog.get('shared/plan').description, 'shared/plan.');
});
