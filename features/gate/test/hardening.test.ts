/**
 * The gate's part of issue 12: a broken plugin.yaml (any parser failure) is reported the same
 * way by every check that reads it, never as "passed: no plugin.yaml" (item 15); a token a
 * draft's test prints leaves no copy in the evidence package (item 13); `--persona` with a
 * typo is refused before the gate runs and creates no persona folder (item 20).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { assertCompletePackage, check, cli, copyDraft, gate, REPO, tempDir } from './helpers.ts';

test('a plugin.yaml alias bomb: skill-manifest fails naming it, and permissions and build say they could not read it', async () => {
  const draft = copyDraft('good-draft');
  const bomb = ['a: &a ["x","x","x","x","x","x","x","x","x"]', ...'bcdefg'.split('').map((k, i) => `${k}: &${k} [${Array(9).fill(`*${'abcdefg'[i]}`).join(',')}]`)].join('\n');
  fs.writeFileSync(path.join(draft, 'plugin.yaml'), `${bomb}\n`);
  const { report, out } = await gate('community-draft', draft);
  assert.equal(report.verdict, 'rejected');
  const manifest = check(report, 'skill-manifest');
  assert.equal(manifest.status, 'failed');
  assert.match(manifest.reason, /plugin\.yaml: aliases expand beyond 100 references \(an alias bomb\?\); refused/);
  for (const name of ['permissions', 'build']) {
    const c = check(report, name);
    assert.equal(c.status, 'unavailable', `${name}: ${c.reason}`);
    assert.match(c.reason, /plugin\.yaml did not validate.*alias bomb/, name);
  }
  for (const c of report.checks) assert.doesNotMatch(c.reason, /no plugin\.yaml/, `${c.name} must not claim there is no plugin.yaml`);
  assertCompletePackage(out, report);
});

test("a token a draft's test prints is not in the evidence package", async () => {
  const draft = copyDraft('good-draft');
  const token = 'hf_QwErTyUiOpAsDfGhJkLzXcVbNm0123456789';
  const testFile = fs.readdirSync(path.join(draft, 'tests')).find((f) => f.endsWith('.ts'))!;
  fs.appendFileSync(path.join(draft, 'tests', testFile), `\nconsole.log("debug: token ${token}");\nconsole.error("Authorization: Bearer ${token}");\n`);
  const { report, out } = await gate('community-draft', draft);
  assert.equal(report.verdict, 'accepted', JSON.stringify(report.checks.filter((c) => c.status !== 'passed')));
  // The draft's own source is copied into the package as it is (it is the input under review);
  // what the gate wrote about the runs holds the token only as [REDACTED].
  const outputs = fs.readdirSync(path.join(out, 'checks')).map((f) => fs.readFileSync(path.join(out, 'checks', f), 'utf8')).join('\n');
  assert.ok(outputs.includes('debug: token [REDACTED]'), 'the run output is kept, scrubbed');
  assert.equal(outputs.includes(token), false);
  assertCompletePackage(out, report);
});

test('gate --persona with a typo is refused before the gate runs, with "did you mean", and creates nothing', async () => {
  const stateDir = tempDir();
  fs.mkdirSync(path.join(stateDir, 'curie'));
  const out = path.join(tempDir(), 'evidence');
  const typo = await cli(['gate', '--profile', 'community-draft', '--target', copyDraft('good-draft'), '--out', out, '--persona', 'curei', '--state-dir', stateDir], REPO);
  assert.equal(typo.status, 2, 'the gate could not start');
  assert.match(typo.stderr, /^runtimectl: RTC_ERR_PERSONA_NOT_FOUND: persona curei \(did you mean "curie"\?\) has no folder in state directory .* and no profile; nothing was created/);
  assert.equal(fs.existsSync(path.join(stateDir, 'curei')), false);
  assert.equal(fs.existsSync(out), false, 'no evidence either: the gate never ran');
});
