/**
 * Issue 24 item 7: after the gate accepts a skill draft, the next step is a command the gate
 * prints: `skills install PACKAGE --digest D`, which installs the skill from the verified
 * evidence package, and refuses a rejected, incomplete or tampered package in one line.
 * Real gate runs over the repository's draft fixtures, through the CLI.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runCli } from '../../../test/support/cli.ts';
import { tempDir } from '../../science-loop/test/helpers.ts';

const REPO = path.resolve(import.meta.dirname, '..', '..', '..');
const DRAFTS = path.join(REPO, 'test', 'fixtures', 'drafts');

async function gate(dir: string, profile: string, draft: string, env: NodeJS.ProcessEnv = {}): Promise<{ out: string; stdout: string; digest: string }> {
  const out = path.join(dir, `evidence-${draft}-${profile}`);
  const r = await runCli(['gate', '--profile', profile, '--target', path.join(DRAFTS, draft), '--out', out], { cwd: dir, env: { PATH: process.env.PATH, ...env } });
  const digest = /^evidence: \S+ (sha256:[0-9a-f]{64})$/m.exec(r.stdout)?.[1];
  assert.ok(digest, r.stdout + r.stderr);
  return { out, stdout: r.stdout, digest };
}

function oneLine(r: { status: number; stderr: string }, pattern: RegExp, what: string): void {
  assert.equal(r.status, 1, `${what}: ${r.stderr}`);
  assert.equal(r.stderr.trimEnd().split('\n').length, 1, `${what}: ${r.stderr}`);
  assert.match(r.stderr, pattern, what);
}

test('the gate names the next step, and it installs the accepted skill from its verified package; again is "already installed"', async () => {
  const dir = tempDir('rtc-skill-install-');
  const accepted = await gate(dir, 'community-draft', 'good-draft');
  const next = /^next: install it: runtimectl (skills install .+)$/m.exec(accepted.stdout)?.[1];
  assert.ok(next, accepted.stdout);
  const skills = path.join(dir, 'skills');
  // The printed command, run as printed (with the skills folder named).
  const argv = [...next.split(' '), '--dir', skills];
  const installed = await runCli(argv, { cwd: dir, env: {} });
  assert.equal(installed.status, 0, installed.stderr);
  assert.match(installed.stdout, /^installed: skill shared\/good-draft in skills\/shared\/good-draft \(\d+ file\(s\), from the evidence sha256:/);
  assert.match(installed.stdout, /next: select it in the persona's profile \(skills: \[good-draft\]\), run with --skills-dir skills/);
  // The installed files are the package's snapshot, byte for byte; nothing half-made is left.
  const source = path.join(accepted.out, 'source', 'good-draft');
  const walk = (root: string, rel = ''): string[] => readdirSync(path.join(root, rel), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(root, path.join(rel, e.name)) : [path.join(rel, e.name)])).sort();
  assert.deepEqual(walk(path.join(skills, 'shared', 'good-draft')), walk(source));
  for (const f of walk(source)) assert.deepEqual(readFileSync(path.join(skills, 'shared', 'good-draft', f)), readFileSync(path.join(source, f)), f);
  assert.deepEqual(readdirSync(path.join(skills, 'shared')), ['good-draft']);
  const listed = await runCli(['skills', 'list', '--dir', skills], { cwd: dir, env: {} });
  assert.match(listed.stdout, /^shared\/good-draft /m);
  const again = await runCli(argv, { cwd: dir, env: {} });
  assert.equal(again.status, 0, again.stderr);
  assert.match(again.stdout, /^already installed: skill shared\/good-draft/);
  // As a persona's own skill.
  const own = await runCli([...argv, '--persona', 'ada', '--json'], { cwd: dir, env: {} });
  assert.equal(own.status, 0, own.stderr);
  assert.equal(JSON.parse(own.stdout).id, 'persona/ada/good-draft');

  // Tampered: a source file changed after the gate ran; nothing is written.
  const tampered = path.join(dir, 'tampered');
  cpSync(accepted.out, tampered, { recursive: true, verbatimSymlinks: true });
  writeFileSync(path.join(tampered, 'source', 'good-draft', 'mod.ts'), '// not what was evaluated\n');
  const other = path.join(dir, 'other-skills');
  oneLine(await runCli(['skills', 'install', tampered, '--digest', accepted.digest, '--dir', other], { cwd: dir, env: {} }), /^runtimectl: RTC_ERR_SKILL_INSTALL: \S+tampered: the evidence package does not verify: source\/good-draft\/mod\.ts: the file does not match its recorded sha256.*; nothing was installed\n$/, 'tampered file');
  assert.equal(existsSync(other), false);
  // The manifest edited (its verdict or anything else): not the digest the gate printed.
  const edited = path.join(dir, 'edited');
  cpSync(accepted.out, edited, { recursive: true, verbatimSymlinks: true });
  writeFileSync(path.join(edited, 'manifest.json'), readFileSync(path.join(edited, 'manifest.json'), 'utf8').replace('"created_at": "', '"created_at": "1'));
  oneLine(await runCli(['skills', 'install', edited, '--digest', accepted.digest, '--dir', other], { cwd: dir, env: {} }), /its manifest is not the one the proposal recorded/, 'edited manifest');
  const usage = await runCli(['skills', 'install', accepted.out, '--dir', other], { cwd: dir, env: {} });
  assert.equal(usage.status, 2);
  assert.match(usage.stderr, /--digest sha256:HEX is required/);
  // Another skill of that name already there: left alone.
  mkdirSync(path.join(other, 'shared', 'good-draft'), { recursive: true });
  writeFileSync(path.join(other, 'shared', 'good-draft', 'SKILL.md'), '---\nname: good-draft\ndescription: mine\n---\n');
  oneLine(await runCli(['skills', 'install', accepted.out, '--digest', accepted.digest, '--dir', other], { cwd: dir, env: {} }), /a skill good-draft with other files is already installed there; remove it first/, 'occupied');
  assert.equal(readFileSync(path.join(other, 'shared', 'good-draft', 'SKILL.md'), 'utf8'), '---\nname: good-draft\ndescription: mine\n---\n');
});

test('a rejected or an incomplete verdict is refused in one line, naming why, and nothing is written', async () => {
  const dir = tempDir('rtc-skill-refuse-');
  const [rejected, incomplete] = await Promise.all([gate(dir, 'community-draft', 'malformed-skill'), gate(dir, 'full', 'good-draft', { RUNTIMECTL_DENO: 'none' })]);
  assert.doesNotMatch(rejected.stdout, /^next: /m, 'no next step for a rejected draft');
  const skills = path.join(dir, 'skills');
  oneLine(await runCli(['skills', 'install', rejected.out, '--digest', rejected.digest, '--dir', skills], { cwd: dir, env: {} }), /RTC_ERR_SKILL_INSTALL: \S+: the gate's verdict is rejected \(checks failed: [a-z-, ]*skill-manifest[a-z-, ]*\); only an accepted draft is installed\n$/, 'rejected');
  oneLine(await runCli(['skills', 'install', incomplete.out, '--digest', incomplete.digest, '--dir', skills], { cwd: dir, env: {} }), /RTC_ERR_SKILL_INSTALL: \S+: the gate's verdict is incomplete \(required checks did not run: reference-runtime\); only an accepted draft is installed\n$/, 'incomplete');
  assert.equal(existsSync(skills), false);
});
