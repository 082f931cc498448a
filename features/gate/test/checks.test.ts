/**
 * Gate checks are plugins: a check dropped into a plugin folder is run by a profile that
 * lists it, in its own isolate with the grant the profile gives it, and its raw output,
 * manifest digest, bundle digest and grant are in the evidence. A check that breaks (throws,
 * answers outside the contract, reaches beyond its grant) is unavailable and internal: the
 * verdict is incomplete, never accepted, even where the profile tolerates the check missing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { assertCompletePackage, check, cli, DRAFTS, gate, REPO, tempDir } from './helpers.ts';

/** A plugin folder `gate-check-<name>/` with a manifest and a module, in a fresh plugins folder. */
function dropCheck(name: string, mod: string, manifest: { permissions?: string; bindings?: string; reads?: string } = {}): string {
  const plugins = tempDir();
  const dir = path.join(plugins, `gate-check-${name}`);
  fs.mkdirSync(dir);
  fs.writeFileSync(
    path.join(dir, 'plugin.yaml'),
    [
      `id: gate-check.${name}`,
      'version: 0.1.0',
      'kind: gate-check',
      'entry: mod.ts',
      `description: A check a reviewer added (${name}).`,
      'sandbox: trusted',
      `permissions: ${manifest.permissions ?? '{}'}`,
      `bindings: ${manifest.bindings ?? '[]'}`,
      'exports: [check]',
      `gate_check: { reads: ${manifest.reads ?? '[]'} }`,
      '',
    ].join('\n'),
  );
  fs.writeFileSync(path.join(dir, 'mod.ts'), mod);
  return plugins;
}

/** A profile file of one's own, outside policies/gates. */
function profileFile(name: string, checks: string, extra = ''): string {
  const file = path.join(tempDir(), `${name}.yaml`);
  fs.writeFileSync(
    file,
    `name: ${name}
description: A reviewer's own profile.
sandbox: community-draft
checks:
${checks}
${extra}ceiling: { read: ["\${plugin}", "\${scratch}"], write: ["\${scratch}"] }
draft: { max_files: 50, max_file_bytes: 65536, max_total_bytes: 262144, max_tests: 4, max_scratch_bytes: 65536 }
`,
  );
  return file;
}

const LINE_COUNT = `
// A reviewer's check: SKILL.md bodies over 40 lines are too long to review.
export async function check(input) {
  const text = await Deno.readTextFile(input.draft.root + '/SKILL.md');
  const lines = text.split('\\n').length;
  const output = { lines, limit: 40, skill: input.earlier['skill-manifest']?.status ?? null };
  if (lines > 40) return { status: 'failed', reason: 'SKILL.md has ' + lines + ' lines, over 40', output };
  return { status: 'passed', reason: 'SKILL.md has ' + lines + ' lines', output, not_evaluated: ['whether the lines say anything useful'] };
}
`;

test('a check dropped into a plugin folder runs when a profile lists it, with its grant and raw output in the evidence', async () => {
  const plugins = dropCheck('line-count', LINE_COUNT, { permissions: '{ read: ["${draft}"] }', reads: '[skill-manifest]' });
  const profile = profileFile(
    'reviewer',
    `  - snapshot
  - { check: skill-manifest, allow: { read: ["\${draft}"] }, bindings: [gate.manifest] }
  - { check: line-count, allow: { read: ["\${draft}"] } }
`,
  );
  const { report, out } = await gate(profile, path.join(DRAFTS, 'no-tests'), ['--plugins-dir', plugins]);
  assert.equal(report.verdict, 'accepted');
  const added = check(report, 'line-count');
  assert.equal(added.status, 'passed');
  assert.match(added.reason, /^SKILL\.md has \d+ lines$/);
  assert.ok(report.limitations.some((l) => l.check === 'line-count' && l.reason === 'whether the lines say anything useful'));
  const manifest = assertCompletePackage(out, report);
  const record = manifest.gate.checks.find((c: { name: string }) => c.name === 'line-count');
  assert.equal(record.plugin, 'gate-check.line-count');
  assert.equal(record.dir, path.join(plugins, 'gate-check-line-count'));
  assert.match(record.bundle_sha256, /^sha256:[0-9a-f]{64}$/);
  assert.deepEqual(record.grant, { allow: { read: ['${draft}'] }, bindings: [] });
  assert.deepEqual(record.reads, ['skill-manifest']);
  const raw = JSON.parse(fs.readFileSync(path.join(out, added.output), 'utf8'));
  assert.equal(raw.output.skill, 'passed', 'it was given the result of the check it reads');
  assert.ok(raw.check_audit.some((e: { op: string; decision: string }) => e.op === 'fs.readTextFile' && e.decision === 'granted'), "the check's own reads are audited");

  // The same check on a long SKILL.md rejects the draft, with its reason.
  const long = path.join(tempDir(), 'long-skill');
  fs.mkdirSync(long);
  fs.writeFileSync(path.join(long, 'SKILL.md'), `---\nname: long-skill\ndescription: Too long.\n---\n${'line\n'.repeat(60)}`);
  const rejected = await gate(profile, long, ['--plugins-dir', plugins]);
  assert.equal(rejected.report.verdict, 'rejected');
  assert.match(check(rejected.report, 'line-count').reason, /SKILL\.md has 6\d lines, over 40/);

  // RUNTIMECTL_PLUGIN_PATH finds it too.
  const viaEnv = await gate(profile, path.join(DRAFTS, 'no-tests'), [], { RUNTIMECTL_PLUGIN_PATH: plugins });
  assert.equal(check(viaEnv.report, 'line-count').status, 'passed');
});

test('a check reaching beyond its grant is refused by the broker: unavailable and internal, so the verdict is incomplete', async () => {
  const plugins = dropCheck(
    'nosy',
    `export async function check(input) {
  const passwd = await Deno.readTextFile('/etc/passwd');
  return { status: 'passed', reason: 'read ' + passwd.length + ' bytes', output: {} };
}
`,
    { permissions: '{ read: ["${draft}"] }' },
  );
  const profile = profileFile('nosy', '  - snapshot\n  - { check: nosy, allow: { read: ["${draft}"] } }\n', 'may_be_unavailable: [nosy]\n');
  const { report, status } = await gate(profile, path.join(DRAFTS, 'no-tests'), ['--plugins-dir', plugins]);
  assert.equal(report.verdict, 'incomplete', 'a broken check is never tolerated as a limitation');
  assert.equal(status, 3);
  const nosy = check(report, 'nosy');
  assert.equal(nosy.status, 'unavailable');
  assert.equal(nosy.internal, true);
  assert.match(nosy.reason, /NotCapable: Requires read access to "\/etc\/passwd"/);
});

test('a check answering outside the gate-check contract is unavailable and internal, naming the field', async () => {
  const plugins = dropCheck('sloppy', "export function check() { return { status: 'fine', reason: 'all good', output: {} }; }\n");
  const profile = profileFile('sloppy', '  - snapshot\n  - sloppy\n');
  const { report } = await gate(profile, path.join(DRAFTS, 'no-tests'), ['--plugins-dir', plugins]);
  assert.equal(report.verdict, 'incomplete');
  const sloppy = check(report, 'sloppy');
  assert.equal(sloppy.internal, true);
  assert.match(sloppy.reason, /RTC_ERR_GATE_CHECK_RESULT: gate-check\.sloppy returned a bad value at status: /);
});

test('a check using a binding its manifest does not declare gets NotCapable, however the profile is written', async () => {
  const plugins = dropCheck(
    'sneaky',
    `export async function check(input) {
  const built = await Runtimectl.bindings.gate.build.bundle('SKILL.md', 'module');
  return { status: 'passed', reason: JSON.stringify(built), output: {} };
}
`,
  );
  const profile = profileFile('sneaky', '  - snapshot\n  - { check: sneaky, bindings: [gate.build] }\n');
  const { report } = await gate(profile, path.join(DRAFTS, 'no-tests'), ['--plugins-dir', plugins]);
  assert.equal(report.verdict, 'incomplete');
  assert.match(check(report, 'sneaky').reason, /NotCapable: Requires the "gate\.build" binding: plugin gate-check\.sneaky does not declare it/);
});

test('an id in two plugin folders is refused in both, and a profile naming it cannot start (exit 2, one line)', async () => {
  const plugins = dropCheck('snapshot', "export function check() { return { status: 'passed', reason: 'shadowed', output: {} }; }\n");
  const out = path.join(tempDir(), 'evidence');
  const result = await cli(['gate', '--profile', 'community-draft', '--target', path.join(DRAFTS, 'no-tests'), '--out', out, '--plugins-dir', plugins], REPO);
  assert.equal(result.status, 2);
  assert.match(result.stderr, /^runtimectl: RTC_ERR_GATE_CHECK_UNKNOWN: policies\/gates\/community-draft\.yaml: checks\[0\]: the gate-check plugin "gate-check\.snapshot" was refused: plugins\/gate-check-snapshot\/plugin\.yaml: id: "gate-check\.snapshot" is also the id of \/.*\/gate-check-snapshot; plugin ids must be unique across the plugin search path\n$/);
  assert.equal(fs.existsSync(out), false, 'nothing was written');
});

test('a --plugins-dir that does not exist is one line, and the gate writes nothing', async () => {
  const out = path.join(tempDir(), 'evidence');
  const result = await cli(['gate', '--profile', 'community-draft', '--target', path.join(DRAFTS, 'no-tests'), '--out', out, '--plugins-dir', '/nonexistent/plugins'], REPO);
  assert.equal(result.status, 2);
  assert.equal(result.stderr, 'runtimectl: RTC_ERR_CLI_FILE_NOT_FOUND: plugin folder /nonexistent/plugins does not exist or is not a folder (from --plugins-dir)\n');
  assert.equal(fs.existsSync(out), false);
});
