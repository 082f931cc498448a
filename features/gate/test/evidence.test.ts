/**
 * Evidence selection: `runtimectl evidence select` verifies a package before it selects it,
 * `runtimectl evidence verify` re-hashes what current.json selects and reports every file
 * that no longer matches. One real gate package is made once and copied for each case.
 */
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { verifyPackage } from '../evidence/verify.ts';
import { cli, DRAFTS, gate, tempDir, type GateJson } from './helpers.ts';

let original = '';
let report: GateJson;

before(async () => {
  // The fastest real package: a rejected draft (evidence of a rejection is evidence too).
  const run = await gate('community-draft', path.join(DRAFTS, 'malformed-skill'));
  original = run.out;
  report = run.report;
});

/** A fresh copy of the package in a new folder with a current.json beside it. */
function workspace(): { dir: string; pkg: string; current: string } {
  const dir = tempDir();
  const pkg = path.join(dir, 'evidence', 'malformed-1');
  fs.cpSync(original, pkg, { recursive: true, verbatimSymlinks: true });
  return { dir, pkg, current: path.join(dir, 'current.json') };
}

test('select verifies the package and records its path (relative to current.json) and manifest digest', async () => {
  const { dir, current } = workspace();
  const selected = await cli(['evidence', 'select', '--name', 'skill/malformed', '--package', 'evidence/malformed-1'], dir);
  assert.equal(selected.status, 0, selected.stderr);
  assert.match(selected.stdout, /^selected skill\/malformed: evidence\/malformed-1 sha256:[0-9a-f]{64} \(rejected\)$/m);
  const doc = JSON.parse(fs.readFileSync(current, 'utf8'));
  assert.deepEqual(doc, { selected: [{ name: 'skill/malformed', path: 'evidence/malformed-1', digest: report.manifest_digest }] });

  const verified = await cli(['evidence', 'verify'], dir);
  assert.equal(verified.status, 0, verified.stdout);
  assert.match(verified.stdout, /^ok    skill\/malformed evidence\/malformed-1 \(rejected\)/m);
  assert.match(verified.stdout, /1 of 1 evidence package\(s\) match/);

  // Selecting the same name again replaces the entry; another name adds one.
  assert.equal((await cli(['evidence', 'select', '--name', 'skill/malformed', '--package', 'evidence/malformed-1/manifest.json'], dir)).status, 0);
  assert.equal((await cli(['evidence', 'select', '--name', 'other', '--package', 'evidence/malformed-1', '--current', current], dir)).status, 0);
  assert.deepEqual(JSON.parse(fs.readFileSync(current, 'utf8')).selected.map((e: { name: string }) => e.name), ['skill/malformed', 'other']);
});

test('verify catches an edited check output, a deleted source copy and an added file, each by name (exit 1)', async () => {
  const { dir, pkg } = workspace();
  assert.equal((await cli(['evidence', 'select', '--name', 'm', '--package', pkg], dir)).status, 0);
  const output = report.checks.find((c) => c.name === 'skill-manifest')!.output;
  fs.writeFileSync(path.join(pkg, output), fs.readFileSync(path.join(pkg, output), 'utf8').replace('failed', 'passed'));
  fs.rmSync(path.join(pkg, 'source', 'malformed-skill', 'tests', 'ok_test.ts'));
  fs.writeFileSync(path.join(pkg, 'checks', '99-extra.json'), '{}');

  const result = await cli(['evidence', 'verify', '--json'], dir);
  assert.equal(result.status, 1);
  const doc = JSON.parse(result.stdout);
  assert.equal(doc.ok, false);
  const problems = doc.packages[0].problems.map((p: { kind: string; path: string }) => `${p.kind} ${p.path}`);
  assert.ok(problems.includes(`changed ${output}`), problems.join('\n'));
  assert.ok(problems.includes('missing source/malformed-skill/tests/ok_test.ts'), problems.join('\n'));
  assert.ok(problems.includes('unlisted checks/99-extra.json'), problems.join('\n'));

  const text = await cli(['evidence', 'verify', path.join(dir, 'current.json')], tempDir());
  assert.equal(text.status, 1);
  assert.match(text.stdout, new RegExp(`^FAIL  m .*: changed ${output.replace('.', '\\.')}: the file does not match its recorded sha256 \\(recorded sha256:`, 'm'));
  assert.match(text.stdout, /0 of 1 evidence package\(s\) match; 1 do not/);
});

test('verify catches a manifest that is not the one selected, even when the package is self-consistent', async () => {
  const { dir, pkg, current } = workspace();
  fs.writeFileSync(current, JSON.stringify({ selected: [{ name: 'm', path: 'evidence/malformed-1', digest: `sha256:${'0'.repeat(64)}` }] }));
  const result = await cli(['evidence', 'verify', '--json'], dir);
  assert.equal(result.status, 1);
  const [problem] = JSON.parse(result.stdout).packages[0].problems;
  assert.equal(problem.kind, 'manifest-changed');
  assert.equal(problem.actual, report.manifest_digest);
  assert.equal(verifyPackage(pkg).ok, true, 'the package itself still verifies');
});

test('select refuses a package that does not verify and leaves current.json as it was', async () => {
  const { dir, pkg, current } = workspace();
  fs.writeFileSync(current, '{"selected": []}\n');
  fs.appendFileSync(path.join(pkg, 'source', 'malformed-skill', 'SKILL.md'), 'edited\n');
  const result = await cli(['evidence', 'select', '--name', 'm', '--package', pkg], dir);
  assert.equal(result.status, 1);
  assert.match(result.stderr, /^runtimectl: RTC_ERR_EVIDENCE_MISMATCH: .*source\/malformed-skill\/SKILL\.md: the file does not match its recorded sha256 .*; not selected$/m);
  assert.equal(fs.readFileSync(current, 'utf8'), '{"selected": []}\n');
});

test('a missing or malformed current.json is one line naming the file and the field', async () => {
  const dir = tempDir();
  const missing = await cli(['evidence', 'verify'], dir);
  assert.equal(missing.status, 1);
  assert.match(missing.stderr, /^runtimectl: RTC_ERR_EVIDENCE_NOT_FOUND: current\.json: no such file\n$/);
  // a file outside the folder the command runs in is named as given, absolute (not ../../…)
  const outside = await cli(['evidence', 'verify', '/nonexistent-rtc/current.json'], dir);
  assert.match(outside.stderr, /^runtimectl: RTC_ERR_EVIDENCE_NOT_FOUND: \/nonexistent-rtc\/current\.json: no such file\n$/);
  fs.writeFileSync(path.join(dir, 'current.json'), JSON.stringify({ selected: [{ name: 'a', path: 'x', digest: 'md5:1' }] }));
  const bad = await cli(['evidence', 'verify'], dir);
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /RTC_ERR_EVIDENCE_INVALID: current\.json: selected\[0\]\.digest: must be sha256:<64 lower-case hex digits>/);
  fs.writeFileSync(path.join(dir, 'current.json'), JSON.stringify({ selected: [{ name: 'a', path: 'gone', digest: report.manifest_digest }] }));
  const gone = await cli(['evidence', 'verify'], dir);
  assert.equal(gone.status, 1);
  assert.match(gone.stdout, /^FAIL  a gone: missing manifest\.json: the manifest is missing/m);
});

test('select warns before it selects an incomplete package, naming the checks that did not run', async () => {
  const run = await gate('full', path.join(DRAFTS, 'no-tests'), [], { RUNTIMECTL_DENO: 'none' });
  assert.equal(run.report.verdict, 'incomplete');
  const dir = tempDir();
  const result = await cli(['evidence', 'select', '--name', 'n', '--package', run.out, '--json'], dir);
  assert.equal(result.status, 0);
  assert.match(result.stderr, /^runtimectl: warning: .* is incomplete: reference-runtime \(no Deno on this host.*\); nothing vouches for what those checks cover\n$/);
  assert.equal(JSON.parse(result.stdout).warnings.length, 1);
  const rejected = await cli(['evidence', 'select', '--name', 'm', '--package', original], dir);
  assert.match(rejected.stderr, /^runtimectl: warning: .* is rejected: skill-manifest\b.*failed; selecting it records the rejection/);
});

test('a package written in evidence format 1 still verifies, by its own (line) input digest', async () => {
  const dir = tempDir();
  const pkg = path.join(dir, 'old');
  const text = '---\nname: old\ndescription: An old draft.\n---\n';
  const sha = (data: string) => `sha256:${createHash('sha256').update(data).digest('hex')}`;
  fs.mkdirSync(path.join(pkg, 'source', 'old'), { recursive: true });
  fs.mkdirSync(path.join(pkg, 'checks'));
  fs.writeFileSync(path.join(pkg, 'source', 'old', 'SKILL.md'), text);
  const checkText = '{"check":"snapshot","status":"passed"}\n';
  fs.writeFileSync(path.join(pkg, 'checks', '01-snapshot.json'), checkText);
  const files = [{ path: 'SKILL.md', type: 'file', bytes: text.length, sha256: sha(text) }];
  const manifest = {
    format: 'runtimectl-evidence/1',
    kind: 'gate',
    created_at: '2026-11-01T00:00:00.000Z',
    kernel: { version: '0.1.0' },
    input: { path: '/drafts/old', name: 'old', digest: sha(`${sha(text)} SKILL.md\n`), copy: 'source/old', files },
    gate: { profile: 'community-draft', file: 'policies/gates/community-draft.yaml', digest: sha('p'), sandbox: { name: 'community-draft', file: 'x', digest: sha('s') }, limits: { memoryMb: 32, cpuMs: 1000, wallMs: 5000, outputBytes: 65536, transferBytes: 1048576 }, checks: ['snapshot'], may_be_unavailable: [] },
    checks: [{ name: 'snapshot', status: 'passed', reason: 'ok', required: true, output: 'checks/01-snapshot.json', sha256: sha(checkText) }],
    limitations: [],
    verdict: 'accepted',
    exit_status: 0,
    proposal: 'review queue not available',
    files: [
      { path: 'checks/01-snapshot.json', type: 'file', bytes: checkText.length, sha256: sha(checkText) },
      { path: 'source/old/SKILL.md', type: 'file', bytes: text.length, sha256: sha(text) },
    ],
  };
  fs.writeFileSync(path.join(pkg, 'manifest.json'), JSON.stringify(manifest));
  const ok = verifyPackage(pkg);
  assert.deepEqual(ok.problems, []);
  assert.equal(ok.verdict, 'accepted');
  fs.writeFileSync(path.join(pkg, 'manifest.json'), JSON.stringify({ ...manifest, input: { ...manifest.input, digest: sha('forged') } }));
  assert.deepEqual(verifyPackage(pkg).problems.map((p) => p.kind), ['input-digest']);
  fs.writeFileSync(path.join(pkg, 'manifest.json'), JSON.stringify({ ...manifest, format: 'runtimectl-evidence/9' }));
  assert.match(verifyPackage(pkg).problems[0]!.detail, /^format: not one this kernel reads/);
});
