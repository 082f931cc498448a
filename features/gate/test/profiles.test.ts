/**
 * Gate profiles: the shipped ones, and the one-line refusals of broken ones (a check no
 * plugin provides, a check before one it reads, a grant smaller than a check's manifest asks).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ceilingFlags, beyondCeiling } from '../ceiling.ts';
import { listGateProfiles, loadGateProfile } from '../profiles.ts';
import { isKernelError } from '../../../kernel/errors.ts';
import { REPO, tempDir } from './helpers.ts';

test('the shipped profiles load: community-draft is tight, host may lack only reference-runtime, full may lack nothing', () => {
  assert.deepEqual(listGateProfiles(), ['community-draft', 'full', 'host']);
  const draft = loadGateProfile('community-draft');
  assert.equal(draft.sandbox.name, 'community-draft');
  assert.equal(draft.sandbox.tier, 'process');
  assert.equal(draft.sandbox.webAssembly, false);
  assert.deepEqual(Object.keys(draft.profile.ceiling).sort(), ['read', 'write'], 'no net, run or env');
  assert.deepEqual(draft.profile.ceiling.write, ['${scratch}']);
  assert.ok(draft.limits.memoryMb <= 32 && draft.limits.cpuMs <= 1000);
  assert.deepEqual(draft.profile.may_be_unavailable, []);
  assert.deepEqual(loadGateProfile('host').profile.may_be_unavailable, ['reference-runtime']);
  const full = loadGateProfile('full');
  assert.deepEqual(full.profile.may_be_unavailable, []);
  assert.ok(full.checks.some((c) => c.name === 'reference-runtime'));
  assert.deepEqual(draft.checks.map((c) => c.name), ['snapshot', 'skill-manifest', 'prose-risk', 'permissions', 'build', 'tests', 'determinism', 'resource-limits', 'denials']);
  for (const c of draft.checks) assert.equal(c.plugin.manifest.id, `gate-check.${c.name}`, 'each check is a plugin');
  const tests = draft.checks.find((c) => c.name === 'tests')!;
  assert.deepEqual(tests.entry.bindings, ['gate.sandbox'], 'the tests check alone may run the draft');
  assert.deepEqual(tests.reads, ['build']);
  assert.match(full.digest, /^sha256:[0-9a-f]{64}$/);
});

test('the ceiling becomes exactly the Deno flags a test runs with, and bounds what plugin.yaml may ask', () => {
  const { profile } = loadGateProfile('community-draft');
  const vars = { plugin: '/p/draft', scratch: '/p/scratch/t' };
  assert.deepEqual(ceilingFlags(profile.ceiling, '/p/draft', vars), ['--allow-read=/p/draft,/p/scratch/t', '--allow-write=/p/scratch/t']);
  assert.deepEqual(beyondCeiling({ read: ['${plugin}/data'] }, profile.ceiling, '/p/draft', vars), []);
  assert.deepEqual(beyondCeiling({ read: true, net: ['example.com'], write: ['/tmp'] }, profile.ceiling, '/p/draft', vars), ['read:*', 'write:/tmp', 'net:example.com']);
});

function refusal(yaml: string, name = 'broken', pluginDirs?: string[]): string {
  const dir = tempDir();
  fs.writeFileSync(path.join(dir, `${name}.yaml`), yaml);
  try {
    loadGateProfile(name, { dir, ...(pluginDirs ? { pluginDirs } : {}) });
  } catch (error) {
    assert.ok(isKernelError(error));
    return `${error.code}: ${error.message}`;
  }
  assert.fail('the profile loaded');
}

const BASE = `name: broken
description: a test profile
sandbox: community-draft
ceiling: { read: ["\${plugin}"] }
draft: { max_files: 10, max_file_bytes: 100, max_total_bytes: 1000, max_tests: 2, max_scratch_bytes: 100 }
`;
const BUILD = '{ check: build, allow: { read: ["${draft}"] }, bindings: [gate.build] }';
const SKILL = '{ check: skill-manifest, allow: { read: ["${draft}"] }, bindings: [gate.manifest] }';

test('a broken gate profile is refused with the file, the field and the reason', () => {
  assert.match(refusal(`${BASE}checks: [snapshot, ${SKILL}, { check: tests, bindings: [gate.sandbox] }, ${BUILD}]\n`), /RTC_ERR_GATE_CHECK_GRANT: .*broken\.yaml: checks\[2\]: "tests" reads the result of "build", which must come before it/);
  assert.match(refusal(`${BASE}checks: [snapshot, { check: tests, bindings: [gate.sandbox] }]\n`), /checks\[1\]: "tests" reads the result of "build", which this profile does not list/);
  assert.match(refusal(`${BASE}checks: [snapshot]\nmay_be_unavailable: [tests]\n`), /may_be_unavailable\[0\]: "tests" is not one of this profile's checks/);
  assert.match(refusal(`${BASE}checks: [snapshot, snapshot]\n`), /checks\[1\]: "snapshot" is listed twice/);
  assert.match(refusal(`${BASE}checks: [snapshot]\nlimits: { memoryMb: 512 }\n`), /limits\.memoryMb: 512 is above the sandbox profile "community-draft"'s 32/);
  assert.match(refusal(BASE.replace('ceiling: { read: ["${plugin}"] }', 'ceiling: { net: true }') + 'checks: [snapshot]\n'), /ceiling\.net: the sandbox profile "community-draft" grants no net access/);
  assert.match(refusal(BASE.replace('sandbox: community-draft', 'sandbox: default').replace('ceiling: { read: ["${plugin}"] }', 'ceiling: { run: [git] }') + 'checks: [snapshot]\n'), /ceiling\.run: a draft's subprocesses would write past the gate's scratch quota/);
  assert.match(refusal(`${BASE}checks: [snapshot]\nextra: 1\n`), /broken\.yaml: extra: unknown key/);
  assert.match(refusal(`${BASE}checks: [snapshot]\n`, 'other'), /other\.yaml: name: must equal the file name "other"/);
});

test('a profile naming a check no plugin provides is one line naming the file and the field', () => {
  const line = refusal(`${BASE}checks: [snapshot, fuzz]\n`);
  assert.match(line, /^RTC_ERR_GATE_CHECK_UNKNOWN: .*broken\.yaml: checks\[1\]: no gate-check plugin "gate-check\.fuzz" is installed \(looked in .*plugins; have: build, denials, .*, tests\)$/);
  assert.equal(line.split('\n').length, 1);
});

test('a profile must grant each check what its manifest asks: bindings and permissions', () => {
  assert.match(refusal(`${BASE}checks: [snapshot, { check: skill-manifest, allow: { read: ["\${draft}"] } }]\n`), /RTC_ERR_GATE_CHECK_GRANT: .*checks\[1\]\.bindings: gate-check\.skill-manifest declares gate\.manifest, which this profile does not grant it/);
  assert.match(refusal(`${BASE}checks: [snapshot, { check: skill-manifest, bindings: [gate.manifest] }]\n`), /checks\[1\]\.allow: gate-check\.skill-manifest asks for read:\/nonexistent\/runtimectl-gate-draft, which this profile does not allow it/);
  assert.match(refusal(`${BASE}checks: [snapshot, { check: tests, bindings: [ledger] }]\n`), /checks\[1\]\.bindings\[0\]: /);
});

test('a refused check plugin is named as refused, with its own manifest error', () => {
  const plugins = tempDir();
  fs.mkdirSync(path.join(plugins, 'gate-check-broken'));
  fs.writeFileSync(path.join(plugins, 'gate-check-broken', 'plugin.yaml'), 'id: gate-check.broken\nversion: 1.0.0\nkind: gate-check\nentry: mod.ts\ndescription: x\nexports: [nope]\n');
  fs.writeFileSync(path.join(plugins, 'gate-check-broken', 'mod.ts'), 'export const nope = 1;\n');
  const line = refusal(`${BASE}checks: [snapshot, broken]\n`, 'broken', [path.join(REPO, 'plugins'), plugins]);
  assert.match(line, /checks\[1\]: the gate-check plugin "gate-check\.broken" was refused: .*exports: a gate-check plugin exports "check"/);
});
