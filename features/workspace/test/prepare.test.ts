/**
 * prepareWorkspace: the spec's layout, the recorded skill catalog and resources, local
 * resource links, idempotence, updates, and refusal of unsafe ids and bad resources.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadSkillCatalog } from '../../skills/catalog.ts';
import { REPO_SKILLS_DIR, skillRootsForDir } from '../../skills/layout.ts';
import { selectSkills } from '../../skills/select.ts';
import { prepareWorkspace, type PrepareWorkspaceInput } from '../prepare.ts';

function setup() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'rtc-'));
  const repo = path.join(root, 'src', 'scidex-agents');
  const tool = path.join(root, 'src', 'rdkit-tool');
  fs.mkdirSync(repo, { recursive: true });
  fs.mkdirSync(tool, { recursive: true });
  return { root, repo, tool, stateDir: path.join(root, 'state') };
}

async function repoCatalog() {
  return loadSkillCatalog(skillRootsForDir(REPO_SKILLS_DIR));
}

test('creates the standard layout with manifests, readme and links', async () => {
  const { repo, stateDir } = setup();
  const skillCatalog = await repoCatalog();
  const ws = prepareWorkspace({
    agentId: 'persona-kris-ganjam',
    workspaceId: 'demo-kris',
    resources: ['artifact:hypothesis:example'],
    localResources: [`repo:agents=${repo}`],
    stateDir,
    skillCatalog,
  });
  assert.equal(ws.dir, path.join(stateDir, 'workspaces', 'demo-kris'));
  assert.equal(ws.created, true);
  assert.deepEqual(fs.readdirSync(ws.dir).sort(), [
    'artifacts', 'logs', 'manifests', 'repos', 'results', 'scratch', 'state', 'tools', 'workspace-readme.md',
  ]);
  assert.deepEqual(fs.readdirSync(path.join(ws.dir, 'manifests')).sort(), ['skill-catalog.json', 'workspace.json']);

  const link = path.join(ws.dir, 'repos', 'agents');
  assert.ok(fs.lstatSync(link).isSymbolicLink());
  assert.equal(fs.readlinkSync(link), repo);

  const manifest = JSON.parse(fs.readFileSync(ws.manifestFile, 'utf8'));
  assert.equal(manifest.agent_id, 'persona-kris-ganjam');
  assert.equal(manifest.workspace_id, 'demo-kris');
  assert.deepEqual(manifest.resources, [{ ref: 'artifact:hypothesis:example', kind: 'artifact' }]);
  assert.deepEqual(manifest.local_resources, [{ kind: 'repo', name: 'agents', link: 'repos/agents', target: repo }]);
  assert.doesNotMatch(JSON.stringify(manifest), /20\d\d-\d\d-\d\dT/, 'no wall-clock time');

  const catalogText = fs.readFileSync(ws.skillCatalogFile, 'utf8');
  assert.equal(manifest.skill_catalog.digest, `sha256:${createHash('sha256').update(catalogText).digest('hex')}`);
  const catalog = JSON.parse(catalogText);
  assert.equal(catalog.skills.length, skillCatalog.skills.length);
  const voi = catalog.skills.find((s: { name: string }) => s.name === 'value-of-information-budgeting');
  assert.equal(voi.scope, 'shared');
  assert.equal(voi.digest, `sha256:${createHash('sha256').update(fs.readFileSync(path.join(REPO_SKILLS_DIR, 'shared/value-of-information-budgeting/SKILL.md'))).digest('hex')}`);
  assert.ok(!catalogText.includes('# Value-of-information budgeting'), 'no bodies');
  assert.ok(!catalogText.includes(REPO_SKILLS_DIR), 'no host paths');

  const readme = fs.readFileSync(path.join(ws.dir, 'workspace-readme.md'), 'utf8');
  assert.match(readme, /# Workspace demo-kris/);
  assert.match(readme, /`repos\/agents` -> /);
});

test('running again with the same inputs changes nothing, byte for byte', async () => {
  const { repo, stateDir } = setup();
  const input: PrepareWorkspaceInput = {
    agentId: 'a1', workspaceId: 'w1', resources: ['artifact:x', 'dataset:y'], localResources: [`repo:agents=${repo}`], stateDir,
    skillCatalog: await repoCatalog(),
  };
  const first = prepareWorkspace(input);
  const bytes = fs.readFileSync(first.manifestFile);
  const mtime = fs.statSync(first.manifestFile).mtimeMs;
  const again = prepareWorkspace({ ...input, resources: ['dataset:y', 'artifact:x', 'artifact:x'] });
  assert.equal(again.created, false);
  assert.deepEqual(again.changes, []);
  assert.deepEqual(fs.readFileSync(again.manifestFile), bytes);
  assert.equal(fs.statSync(again.manifestFile).mtimeMs, mtime, 'not even rewritten');
});

test('different inputs update the manifest, relink, and remove links no longer asked for', async () => {
  const { repo, tool, root, stateDir } = setup();
  const base = { agentId: 'a1', workspaceId: 'w1', stateDir };
  prepareWorkspace({ ...base, localResources: [`repo:agents=${repo}`, `tool:rdkit=${tool}`] });
  const other = path.join(root, 'src', 'other');
  fs.mkdirSync(other);
  const ws = prepareWorkspace({ ...base, resources: ['artifact:new'], localResources: [`repo:agents=${other}`] });
  assert.deepEqual(ws.changes.sort(), ['manifests/workspace.json', 'repos/agents', 'tools/rdkit', 'workspace-readme.md']);
  assert.equal(fs.readlinkSync(path.join(ws.dir, 'repos', 'agents')), other);
  assert.equal(fs.existsSync(path.join(ws.dir, 'tools', 'rdkit')), false);
  assert.deepEqual(ws.manifest.resources, [{ ref: 'artifact:new', kind: 'artifact' }]);
  assert.ok(fs.existsSync(tool), 'the linked folder itself is untouched');
});

test('the visible catalog can be a selection; refusals are recorded with their reason', async () => {
  const { stateDir } = setup();
  const fixtures = await loadSkillCatalog([{ dir: path.resolve(import.meta.dirname, '../../../test/fixtures/skills/malformed'), scope: 'shared' }]);
  const ws = prepareWorkspace({ agentId: 'a', workspaceId: 'w', stateDir, skillCatalog: fixtures });
  const record = JSON.parse(fs.readFileSync(ws.skillCatalogFile, 'utf8'));
  assert.deepEqual(record.skills.map((s: { id: string }) => s.id), ['shared/good-skill']);
  assert.ok(record.refused.some((r: { folder: string; field: string }) => r.folder === 'unknown-key' && r.field === 'version'));

  const repo = await repoCatalog();
  const selected = prepareWorkspace({ agentId: 'a', workspaceId: 'w2', stateDir, skillCatalog: selectSkills(repo, ['reviewer-*']) });
  assert.deepEqual(selected.manifest.skill_catalog.skills, 1);
});

test('local resources: a missing path, an unknown kind and a malformed spec are refused before anything is written', () => {
  const { root, stateDir } = setup();
  const base = { agentId: 'a', workspaceId: 'w', stateDir };
  assert.throws(() => prepareWorkspace({ ...base, localResources: [`repo:gone=${path.join(root, 'nope')}`] }), {
    code: 'RTC_ERR_WORKSPACE_RESOURCE_NOT_FOUND',
    message: /repo:gone=.*nope does not exist/,
  });
  assert.throws(() => prepareWorkspace({ ...base, localResources: [`dataset:d=${root}`] }), {
    code: 'RTC_ERR_WORKSPACE_RESOURCE_INVALID',
    message: /kind "dataset" is not one of repo, artifact, tool/,
  });
  for (const bad of ['repo-no-colon', 'repo:noequals', `repo:../x=${root}`, `repo:=${root}`, 'repo:x=']) {
    assert.throws(() => prepareWorkspace({ ...base, localResources: [bad] }), { code: 'RTC_ERR_WORKSPACE_RESOURCE_INVALID' }, bad);
  }
  assert.throws(() => prepareWorkspace({ ...base, resources: ['no kind'] }), { code: 'RTC_ERR_WORKSPACE_RESOURCE_INVALID' });
  assert.throws(() => prepareWorkspace({ ...base, localResources: [`repo:a=${root}`, `repo:a=${root}/src`] }), {
    code: 'RTC_ERR_WORKSPACE_RESOURCE_INVALID',
  }, 'the same link to two places');
  assert.equal(fs.existsSync(stateDir), false);
});

test('a relative local path resolves against cwd; kinds map to their folders', () => {
  const { root, stateDir } = setup();
  const ws = prepareWorkspace({
    agentId: 'a', workspaceId: 'w', stateDir, cwd: root,
    localResources: ['repo:r=src/scidex-agents', 'artifact:paper=src', { kind: 'tool', name: 'rdkit', path: 'src/rdkit-tool' }],
  });
  assert.equal(fs.readlinkSync(path.join(ws.dir, 'repos', 'r')), path.join(root, 'src', 'scidex-agents'));
  assert.equal(fs.readlinkSync(path.join(ws.dir, 'artifacts', 'paper')), path.join(root, 'src'));
  assert.equal(fs.readlinkSync(path.join(ws.dir, 'tools', 'rdkit')), path.join(root, 'src', 'rdkit-tool'));
});

test('unsafe agent and workspace ids are refused', () => {
  const { stateDir } = setup();
  for (const id of ['', '..', '../x', 'a/b', 'a\\b', '.hidden', 'a..b', 'has space', 'x'.repeat(129)]) {
    assert.throws(() => prepareWorkspace({ agentId: 'ok', workspaceId: id, stateDir }), { code: 'RTC_ERR_WORKSPACE_ID_INVALID' }, `workspace ${id}`);
    assert.throws(() => prepareWorkspace({ agentId: id, workspaceId: 'ok', stateDir }), { code: 'RTC_ERR_WORKSPACE_ID_INVALID' }, `agent ${id}`);
  }
  assert.equal(fs.existsSync(stateDir), false);
});

test('a real file or folder where a link goes is never replaced', () => {
  const { repo, stateDir } = setup();
  const ws = prepareWorkspace({ agentId: 'a', workspaceId: 'w', stateDir });
  fs.mkdirSync(path.join(ws.dir, 'repos', 'agents'));
  fs.writeFileSync(path.join(ws.dir, 'repos', 'agents', 'work.txt'), 'mine');
  assert.throws(() => prepareWorkspace({ agentId: 'a', workspaceId: 'w', stateDir, localResources: [`repo:agents=${repo}`] }), {
    code: 'RTC_ERR_WORKSPACE_CONFLICT',
  });
  assert.equal(fs.readFileSync(path.join(ws.dir, 'repos', 'agents', 'work.txt'), 'utf8'), 'mine');
});
