/**
 * `runtimectl gate` on the fixture drafts (test/fixtures/drafts/README.md), in process
 * through main(): each hostile or broken draft is rejected with the reason in the failing
 * check, every run writes a complete evidence package whose digests match, and the kernel
 * carries on to evaluate the next draft (the good draft runs last, after all the others).
 * The drafts' tests are written as for `deno test` (Deno.test, ignore, per-test results).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { openReviewQueue } from '../../review-queue/index.ts';
import { assertCompletePackage, check, cli, copyDraft, DRAFTS, gate, REPO, skillMd, tempDir, writeDraft } from './helpers.ts';

/** The drafts' Deno.test cases need the kernel's deno test runner (features/gate/draft-tests.ts). */

/** How many test files the tests check ran: the draft was evaluated past an earlier failure. */
function testRuns(out: string, report: Parameters<typeof check>[0]): number {
  return JSON.parse(fs.readFileSync(path.join(out, check(report, 'tests').output), 'utf8')).output.runs.length;
}

test('a malformed SKILL.md fails skill-manifest with the field and the reason; the package is complete', async () => {
  const { report, out, status } = await gate('community-draft', path.join(DRAFTS, 'malformed-skill'));
  assert.equal(report.verdict, 'rejected');
  assert.equal(status, 1);
  const failed = check(report, 'skill-manifest');
  assert.equal(failed.status, 'failed');
  assert.match(failed.reason, /SKILL\.md: author: is not an Agent Skills front matter field/);
  assert.ok(testRuns(out, report) > 0, 'the rest of the draft is still evaluated');
  const manifest = assertCompletePackage(out, report);
  assert.equal(manifest.proposal, 'none: the verdict is rejected');
});

test('a plugin.yaml asking for network access beyond the ceiling is rejected by the permissions check', async () => {
  const { report, out } = await gate('community-draft', path.join(DRAFTS, 'net-request'));
  assert.equal(report.verdict, 'rejected');
  const failed = check(report, 'permissions');
  assert.equal(failed.status, 'failed');
  assert.match(failed.reason, /asks for net:api\.example\.com beyond the "community-draft" gate ceiling/);
  assertCompletePackage(out, report);
});

test('a test that never ends is stopped by the CPU limit: tests and resource-limits fail', async () => {
  const { report, out } = await gate('community-draft', path.join(DRAFTS, 'loop-forever'));
  assert.equal(report.verdict, 'rejected');
  assert.match(check(report, 'tests').reason, /tests\/loop_test\.ts: exit 1 \(RTC_ERR_SANDBOX_CPU: CPU time limit of 1000 ms exceeded\)/);
  assert.equal(check(report, 'determinism').status, 'passed', 'a run ended on a limit ends on it again');
  const limits = check(report, 'resource-limits');
  assert.equal(limits.status, 'failed');
  assert.match(limits.reason, /RTC_ERR_SANDBOX_CPU/);
  assertCompletePackage(out, report);
});

test('a test that floods output is cut at the cap: tests and resource-limits fail, the evidence holds at most the cap', async () => {
  const { report, out } = await gate('community-draft', path.join(DRAFTS, 'flood-output'));
  assert.equal(report.verdict, 'rejected');
  assert.match(check(report, 'resource-limits').reason, /RTC_ERR_SANDBOX_OUTPUT: output cap of 65536 bytes exceeded/);
  const manifest = assertCompletePackage(out, report);
  const tests = JSON.parse(fs.readFileSync(path.join(out, check(report, 'tests').output), 'utf8'));
  assert.ok(tests.output.runs[0].stdout.length <= manifest.gate.limits.outputBytes);
});

test('an escape attempt (Function constructor, /etc/passwd) finds no host and is listed by the denials check', async () => {
  const { report, out } = await gate('community-draft', path.join(DRAFTS, 'escape-attempt'));
  assert.equal(report.verdict, 'rejected');
  assert.equal(check(report, 'skill-manifest').status, 'passed');
  // The Function constructor's `process` is Deno's global, over the broker: its env is an env
  // attempt, refused as Deno refuses it, and in the evidence beside the read.
  assert.match(check(report, 'tests').reason, /escape_test\.ts: exit 1 \(NotCapable: Requires env access/);
  const denials = check(report, 'denials');
  assert.equal(denials.status, 'failed');
  assert.match(denials.reason, /read ×\d+ \[fs\.readTextFile \/etc\/passwd\]/);
  assert.match(denials.reason, /env ×\d+/);
  assertCompletePackage(out, report);
  const raw = JSON.parse(fs.readFileSync(path.join(out, denials.output), 'utf8'));
  assert.deepEqual(raw.output.denied[0], { test: 'tests/escape_test.ts', pass: 'pass-1', op: 'fs.readTextFile', permission: 'read', value: '/etc/passwd' });
  const passwd = fs.readFileSync('/etc/passwd', 'utf8').split('\n')[0]!;
  for (const c of report.checks) assert.ok(!fs.readFileSync(path.join(out, c.output), 'utf8').includes(passwd), `${c.output} holds nothing of /etc/passwd`);
});

test('a test that prints Math.random() fails the determinism check with the first differing byte', async () => {
  const { report, out } = await gate('community-draft', path.join(DRAFTS, 'nondeterministic'));
  assert.equal(report.verdict, 'rejected');
  const determinism = check(report, 'determinism');
  assert.equal(determinism.status, 'failed');
  assert.match(determinism.reason, /tests\/random_test\.ts: stdout differs from byte \d+/);
  const raw = JSON.parse(fs.readFileSync(path.join(out, determinism.output), 'utf8'));
  assert.ok(raw.output.comparisons[0].detail.first_difference, 'the first differing byte is shown');
  assertCompletePackage(out, report);
});

test('a symlink out of the draft folder fails the snapshot and is not copied', async () => {
  const draft = copyDraft('symlink-out');
  fs.symlinkSync('/etc', path.join(draft, 'etc'));
  const { report, out } = await gate('community-draft', draft);
  assert.equal(report.verdict, 'rejected');
  const snapshot = check(report, 'snapshot');
  assert.equal(snapshot.status, 'failed');
  assert.match(snapshot.reason, /etc: symlink-out \(symlink to "\/etc" leaves the draft folder/);
  const manifest = assertCompletePackage(out, report);
  assert.equal(fs.existsSync(path.join(out, 'source', 'symlink-out', 'etc')), false);
  assert.ok(!manifest.input.files.some((f: { path: string }) => f.path === 'etc'));
  assert.ok(testRuns(out, report) > 0, 'what was copied is still evaluated');
});

test('a file over the size cap fails the snapshot and is not copied', async () => {
  const draft = copyDraft('too-large');
  fs.writeFileSync(path.join(draft, 'big.bin'), Buffer.alloc(262_145, 1));
  const { report, out } = await gate('community-draft', draft);
  assert.equal(report.verdict, 'rejected');
  assert.match(check(report, 'snapshot').reason, /big\.bin: too-large \(262145 bytes, over the profile's cap of 262144\)/);
  assertCompletePackage(out, report);
  assert.equal(fs.existsSync(path.join(out, 'source', 'too-large', 'big.bin')), false);
});

test('an import reaching outside the draft fails the build before the file is read; its test does not run', async () => {
  const root = tempDir();
  fs.writeFileSync(path.join(root, 'secret.json'), '{"token": "hunter2-do-not-copy"}\n');
  const draft = path.join(root, 'import-escape');
  fs.mkdirSync(path.join(draft, 'tests'), { recursive: true });
  fs.writeFileSync(path.join(draft, 'SKILL.md'), '---\nname: import-escape\ndescription: Imports a file from outside its folder.\n---\n');
  // Absolute: the snapshot lives elsewhere, so only an absolute path still reaches the original.
  fs.writeFileSync(path.join(draft, 'tests', 'leak_test.ts'), `import secret from '${path.join(root, 'secret.json')}';\nDeno.test('leaks', () => console.log(secret));\n`);
  fs.writeFileSync(path.join(draft, 'tests', 'package_test.ts'), "import { z } from 'zod';\nDeno.test('z', () => console.log(typeof z));\n");
  const { report, out } = await gate('community-draft', draft);
  assert.equal(report.verdict, 'rejected');
  assert.match(check(report, 'build').reason, /tests\/leak_test\.ts: .*secret\.json leaves the draft folder/);
  assert.match(check(report, 'build').reason, /tests\/package_test\.ts: .*import "zod" is not a relative file import/);
  assert.match(check(report, 'tests').reason, /leak_test\.ts: not built/);
  assertCompletePackage(out, report);
  for (const file of fs.readdirSync(out, { recursive: true }) as string[]) {
    const full = path.join(out, file);
    if (fs.lstatSync(full).isFile()) assert.ok(!fs.readFileSync(full, 'utf8').includes('hunter2'), `${file} holds nothing read from outside`);
  }
});

test('a prose-only draft is accepted: the checks with nothing to evaluate are not-applicable, and the limitations say so', async () => {
  const { report, out, status } = await gate('community-draft', path.join(DRAFTS, 'no-tests'));
  assert.equal(report.verdict, 'accepted');
  assert.equal(status, 0);
  for (const name of ['build', 'tests', 'determinism', 'resource-limits', 'denials']) assert.equal(check(report, name).status, 'not-applicable', name);
  assert.match(check(report, 'tests').reason, /the draft has no code this gate runs: nothing to test/);
  for (const name of ['snapshot', 'skill-manifest', 'prose-risk', 'permissions']) assert.equal(check(report, name).status, 'passed', name);
  const kinds = report.limitations.map((l) => `${l.kind} ${l.check}`);
  assert.ok(kinds.includes('not-applicable tests'), kinds.join('\n'));
  assert.ok(kinds.includes('not-evaluated prose-risk'), 'the prose check says what it cannot establish');
  assert.ok(report.limitations.some((l) => l.check === 'gate' && /intent .* is not proven safe/.test(l.reason)));
  assertCompletePackage(out, report);
});

test('a draft with code and no tests fails the tests check with the next step', async () => {
  const draft = writeDraft('untested', { 'SKILL.md': skillMd('untested'), 'mod.ts': 'export const answer = 42;\n' });
  const { report } = await gate('community-draft', draft);
  assert.equal(report.verdict, 'rejected');
  assert.match(check(report, 'tests').reason, /the draft has code \(mod\.ts\) but no tests: add tests\/untested_test\.ts registering Deno\.test\(\.\.\.\)/);
});

test('a test file registering no Deno.test fails: zero executions are not a pass', async () => {
  const draft = writeDraft('empty-test', { 'SKILL.md': skillMd('empty-test'), 'tests/nothing_test.ts': "console.log('no tests here');\n" });
  const { report } = await gate('community-draft', draft);
  assert.equal(report.verdict, 'rejected');
  assert.match(check(report, 'tests').reason, /tests\/nothing_test\.ts: registers no Deno\.test\(\.\.\.\)/);
});

test('code in other languages is listed as not evaluated; the prose and the TypeScript still are', async () => {
  const draft = writeDraft('mixed', { 'SKILL.md': skillMd('mixed'), 'scripts/fetch.py': 'print("hi")\n', 'scripts/run': '#!/bin/sh\necho hi\n' });
  const { report } = await gate('community-draft', draft);
  assert.equal(report.verdict, 'accepted');
  const lines = report.limitations.filter((l) => l.check === 'build').map((l) => l.reason);
  assert.ok(lines.some((l) => /^scripts\/fetch\.py: Python code, which this gate does not run/.test(l)), lines.join('\n'));
  assert.ok(lines.some((l) => /^scripts\/run: a script \(#!\/bin\/sh\)/.test(l)), lines.join('\n'));
});

test('the gate refuses a non-empty --out, an unknown profile and a missing target with exit 2 and one line', async () => {
  const out = tempDir();
  fs.writeFileSync(path.join(out, 'keep.txt'), 'mine');
  const busy = await cli(['gate', '--profile', 'community-draft', '--target', path.join(DRAFTS, 'good-draft'), '--out', out], REPO);
  assert.equal(busy.status, 2);
  assert.match(busy.stderr, /^runtimectl: RTC_ERR_GATE_OUT_NOT_EMPTY: --out .* is not empty/);
  assert.deepEqual(fs.readdirSync(out), ['keep.txt']);

  const unknown = await cli(['gate', '--profile', 'nope', '--target', path.join(DRAFTS, 'good-draft'), '--out', path.join(out, 'x')], REPO);
  assert.equal(unknown.status, 2);
  assert.match(unknown.stderr, /RTC_ERR_GATE_PROFILE_UNKNOWN: no gate profile "nope" \(have: community-draft, full, host\)/);

  const missing = await cli(['gate', '--profile', 'host', '--target', path.join(DRAFTS, 'no-such-draft'), '--out', path.join(out, 'y')], REPO);
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /RTC_ERR_GATE_TARGET/);
  assert.equal(missing.stderr.split('\n').length, 2, 'one line');
});

test('host without Deno: accepted with reference-runtime published as a limitation; full without Deno: incomplete', async () => {
  const host = await gate('host', path.join(DRAFTS, 'good-draft'), [], { RUNTIMECTL_DENO: 'none' });
  assert.equal(host.report.verdict, 'accepted');
  const reference = check(host.report, 'reference-runtime');
  assert.equal(reference.status, 'unavailable');
  assert.equal(reference.required, false);
  assert.deepEqual(host.report.limitations.filter((l) => l.kind === 'unavailable').map((l) => l.check), ['reference-runtime']);
  assertCompletePackage(host.out, host.report);

  const full = await gate('full', path.join(DRAFTS, 'good-draft'), [], { RUNTIMECTL_DENO: 'none' });
  assert.equal(full.report.verdict, 'incomplete');
  assert.equal(full.status, 3);
  assert.equal(check(full.report, 'reference-runtime').required, true);
});

test('the good draft, after all the hostile ones in this process: accepted, proposed to the review queue, never enabled', async () => {
  const stateDir = tempDir();
  // The proposal goes to a persona that exists (a typo is refused, never a new persona folder).
  fs.mkdirSync(path.join(stateDir, 'gate-test'));
  const { report, out, status } = await gate('community-draft', path.join(DRAFTS, 'good-draft'), ['--persona', 'gate-test', '--state-dir', stateDir]);
  assert.equal(report.verdict, 'accepted');
  assert.equal(status, 0);
  for (const c of report.checks) assert.equal(c.status, 'passed', `${c.name}: ${c.reason}`);
  const manifest = assertCompletePackage(out, report);
  const tests = JSON.parse(fs.readFileSync(path.join(out, check(report, 'tests').output), 'utf8'));
  const count = tests.output.runs.find((r: { test: string }) => r.test === 'tests/count_test.ts');
  assert.deepEqual(count.tests.map((t: { name: string; result: string }) => [t.name, t.result]), [['the most frequent word comes first', 'ok'], ['ties are broken alphabetically', 'ok'], ['counts a book', 'ignored']]);
  assert.ok(!count.stdout.includes('countWords CLI'), "the module's import.meta.main part did not run when the test imported it");
  assert.ok(report.limitations.some((l) => l.check === 'tests' && l.reason === 'tests/count_test.ts: "counts a book" is ignored, so it was not run'));
  assert.match(manifest.proposal, /^submitted after this manifest was written to the review queue/);
  assert.equal(manifest.input.files.length, 6);
  assert.ok(manifest.files.some((f: { path: string }) => f.path.startsWith('build/bundles/')), 'the fresh bundles are part of the evidence');

  assert.equal(report.proposal.status, 'queued');
  const queued = openReviewQueue(path.join(stateDir, 'gate-test')).list();
  assert.equal(queued.length, 1);
  assert.equal(queued[0]!.kind, 'skill-draft');
  assert.equal(queued[0]!.state, 'pending', 'the gate proposes; an operator decides');
  assert.deepEqual(queued[0]!.evidence, [{ ref: path.join(out, 'manifest.json'), digest: report.manifest_digest }]);
});

test('host with the real Deno: the reference runtime agrees with the sandbox', { skip: !fs.existsSync(path.join(REPO, 'node_modules', '.bin', 'deno')) && 'no Deno here' }, async () => {
  const { report, out } = await gate('host', path.join(DRAFTS, 'good-draft'));
  assert.equal(report.verdict, 'accepted');
  assert.equal(check(report, 'reference-runtime').status, 'passed');
  assert.deepEqual(report.limitations.filter((l) => l.kind === 'unavailable'), []);
  assertCompletePackage(out, report);
});
