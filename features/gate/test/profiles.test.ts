/** Gate profiles: the shipped ones, and the one-line refusals of broken ones. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ceilingFlags, beyondCeiling } from '../ceiling.ts';
import { listGateProfiles, loadGateProfile } from '../profiles.ts';
import { isKernelError } from '../../../kernel/errors.ts';
import { tempDir } from './helpers.ts';

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
  assert.ok(full.profile.checks.includes('reference-runtime'));
  assert.match(full.digest, /^sha256:[0-9a-f]{64}$/);
});

test('the ceiling becomes exactly the Deno flags a test runs with, and bounds what plugin.yaml may ask', () => {
  const { profile } = loadGateProfile('community-draft');
  const vars = { plugin: '/p/draft', scratch: '/p/scratch/t' };
  assert.deepEqual(ceilingFlags(profile.ceiling, '/p/draft', vars), ['--allow-read=/p/draft,/p/scratch/t', '--allow-write=/p/scratch/t']);
  assert.deepEqual(beyondCeiling({ read: ['${plugin}/data'] }, profile.ceiling, '/p/draft', vars), []);
  assert.deepEqual(beyondCeiling({ read: true, net: ['example.com'], write: ['/tmp'] }, profile.ceiling, '/p/draft', vars), ['read:*', 'write:/tmp', 'net:example.com']);
});

function refusal(yaml: string, name = 'broken'): string {
  const dir = tempDir();
  fs.writeFileSync(path.join(dir, `${name}.yaml`), yaml);
  try {
    loadGateProfile(name, dir);
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

test('a broken gate profile is refused with the file, the field and the reason', () => {
  assert.match(refusal(`${BASE}checks: [snapshot, tests]\n`), /RTC_ERR_MANIFEST_INVALID: .*broken\.yaml: checks\[1\]: "tests" reads the result of "build", which must come before it/);
  assert.match(refusal(`${BASE}checks: [snapshot, fuzz]\n`), /broken\.yaml: checks\[1\]: /);
  assert.match(refusal(`${BASE}checks: [snapshot]\nmay_be_unavailable: [tests]\n`), /may_be_unavailable\[0\]: "tests" is not one of this profile's checks/);
  assert.match(refusal(`${BASE}checks: [snapshot, snapshot]\n`), /checks\[1\]: "snapshot" is listed twice/);
  assert.match(refusal(`${BASE}checks: [snapshot]\nlimits: { memoryMb: 512 }\n`), /limits\.memoryMb: 512 is above the sandbox profile "community-draft"'s 32/);
  assert.match(refusal(BASE.replace('ceiling: { read: ["${plugin}"] }', 'ceiling: { net: true }') + 'checks: [snapshot]\n'), /ceiling\.net: the sandbox profile "community-draft" grants no net access/);
  assert.match(refusal(`${BASE}checks: [snapshot]\nextra: 1\n`), /broken\.yaml: extra: unknown key/);
  assert.match(refusal(`${BASE}checks: [snapshot]\n`, 'other'), /other\.yaml: name: must equal the file name "other"/);
});
