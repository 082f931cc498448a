/**
 * `runtimectl proposals list|show|start-review|accept|reject|submit`, run in-process:
 * the operator's entrypoint, with one-line errors and non-zero exits for an unknown id, an
 * expired proposal and a second decision, and a refused submission that is recorded.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cli, digestOf, logFile, recordTypes } from '../../review-queue/test/helpers.ts';

/** Evidence that can be checked: a file in the persona folder, with its digest. */
const EVIDENCE_ARG = `brain/artifacts/cycle-3.md@${digestOf('cycle 3')}`;

/** A state directory holding persona alpha's folder (a proposal goes to a persona that exists) and the evidence file. */
function stateDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rtc-'));
  fs.mkdirSync(path.join(dir, 'alpha', 'brain', 'artifacts'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'alpha', 'brain', 'artifacts', 'cycle-3.md'), 'cycle 3');
  return dir;
}

async function submit(state: string, text: string, now: number, extra: string[] = []) {
  return cli(['proposals', 'submit', '--persona', 'alpha', '--kind', 'memory-promotion', '--text', text, '--evidence', EVIDENCE_ARG, '--now', String(now), '--state-dir', state, ...extra]);
}

function oneLineError(result: { status: number; stdout: string; stderr: string }, status: number, code: string): void {
  assert.equal(result.status, status, result.stderr);
  assert.equal(result.stdout, '');
  assert.match(result.stderr, new RegExp(`^runtimectl: ${code}: [^\\n]+\\n$`));
}

test('submit, list, show, accept, reject: the operator round trip, text and --json', async () => {
  const state = stateDir();
  const first = await submit(state, 'Small diffs review faster.', 1_000);
  assert.equal(first.status, 0, first.stderr);
  assert.match(first.stdout, /^P-alpha-1: pending \(expires 1970-01-08T00:00:01\.000Z; policy: default\)\n$/);
  await submit(state, 'A second thought.', 1_001);

  const list = await cli(['proposals', 'list', '--state-dir', state, '--now', '2000']);
  assert.equal(list.status, 0);
  assert.match(list.stdout, /^P-alpha-1  pending +memory-promotion  operator  Small diffs review faster\.\nP-alpha-2 .*\n2 proposal\(s\) for persona alpha\n$/);

  const accepted = await cli(['proposals', 'accept', 'P-alpha-1', '--by', 'alice', '--reason', 'seen twice', '--now', '3000', '--state-dir', state]);
  assert.equal(accepted.status, 0, accepted.stderr);
  assert.match(accepted.stdout, /^P-alpha-1: pending → accepted by alice \(signed, key sha256:[0-9a-f]{16}…\); it takes effect at the persona's next cycle boundary, if its kernel trusts this key \(a running kernel re-reads its operators\.json there; "proposals show P-alpha-1" says whether it was applied or held, and why\)\n$/);

  const rejected = await cli(['proposals', 'reject', 'P-alpha-2', '--by', 'bob', '--reason', 'vague', '--now', '3001', '--state-dir', state, '--json']);
  assert.equal(rejected.status, 0, rejected.stderr);
  const doc = JSON.parse(rejected.stdout) as { proposal: { state: string; decision: { by: string; reason: string } }; events: { type: string }[] };
  assert.equal(doc.proposal.state, 'rejected');
  assert.deepEqual(doc.proposal.decision.by, 'bob');
  assert.deepEqual(doc.events.map((e) => e.type), ['proposal_state']);

  const show = await cli(['proposals', 'show', 'P-alpha-1', '--state-dir', state, '--now', '4000']);
  assert.equal(show.status, 0);
  assert.match(show.stdout, /^P-alpha-1  memory-promotion  accepted \(takes effect next cycle\)\n/);
  assert.match(show.stdout, /pending → accepted by alice \(signed, key sha256:[0-9a-f]{16}…\): seen twice/);
  assert.match(show.stdout, /brain\/artifacts\/cycle-3\.md  sha256:/);

  const json = await cli(['proposals', 'list', '--persona', 'alpha', '--state', 'rejected', '--json'], { env: { SCIDEX_AGENT_STATE_DIR: state } });
  assert.equal(json.status, 0, json.stderr);
  assert.deepEqual((JSON.parse(json.stdout) as { proposals: { id: string }[] }).proposals.map((p) => p.id), ['P-alpha-2']);
});

test('unknown id, expired proposal, already decided: one line on stderr and exit status 1, nothing rewritten', async () => {
  const state = stateDir();
  await submit(state, 'one', 0);
  await submit(state, 'two', 1);
  await cli(['proposals', 'accept', 'P-alpha-2', '--by', 'alice', '--now', '10', '--state-dir', state]);
  const dir = path.join(state, 'alpha');
  const start = fs.readFileSync(logFile(dir));

  oneLineError(await cli(['proposals', 'accept', 'P-alpha-9', '--by', 'alice', '--now', '20', '--state-dir', state]), 1, 'RTC_ERR_REVIEW_NOT_FOUND');
  oneLineError(await cli(['proposals', 'show', 'nonsense', '--state-dir', state]), 1, 'RTC_ERR_REVIEW_NOT_FOUND');
  oneLineError(await cli(['proposals', 'show', 'P-alpha-1', '--persona', 'beta', '--state-dir', state]), 1, 'RTC_ERR_REVIEW_NOT_FOUND');
  oneLineError(await cli(['proposals', 'reject', 'P-alpha-2', '--by', 'bob', '--reason', 'late', '--now', '20', '--state-dir', state]), 1, 'RTC_ERR_REVIEW_DECIDED');
  const before = fs.readFileSync(logFile(dir));
  assert.deepEqual(before, start, 'refused decisions write nothing');
  // A week and a bit later P-alpha-1 is past its expiry: the accept records the expiry and fails.
  const late = String(8 * 86_400_000);
  oneLineError(await cli(['proposals', 'accept', 'P-alpha-1', '--by', 'alice', '--now', late, '--state-dir', state]), 1, 'RTC_ERR_REVIEW_EXPIRED');
  assert.deepEqual(recordTypes(dir).slice(-1), ['proposal_state']);
  assert.deepEqual(fs.readFileSync(logFile(dir)).subarray(0, before.length), before);
  oneLineError(await cli(['proposals', 'accept', 'P-alpha-1', '--by', 'alice', '--now', late, '--state-dir', state]), 1, 'RTC_ERR_REVIEW_EXPIRED');

  oneLineError(await cli(['proposals', 'reject', 'P-alpha-1', '--by', 'bob', '--state-dir', state]), 2, 'RTC_ERR_CLI_USAGE');
  // Without --by the decision is recorded under the credential's name (here: expired all the same).
  oneLineError(await cli(['proposals', 'accept', 'P-alpha-1', '--state-dir', state]), 1, 'RTC_ERR_REVIEW_EXPIRED');
  oneLineError(await cli(['proposals', 'accept', '--state-dir', state, '--by', 'x']), 2, 'RTC_ERR_CLI_USAGE');
  oneLineError(await cli(['proposals', 'frobnicate']), 2, 'RTC_ERR_CLI_USAGE');
  oneLineError(await cli(['proposals', 'list', '--state-dir', path.join(state, 'missing')]), 1, 'RTC_ERR_CLI_FILE_NOT_FOUND');
});

test('a submission past the backpressure policy exits 1 with one line, and the refusal and alert are recorded', async () => {
  const state = stateDir();
  const policy = path.join(state, 'policy.yaml');
  fs.writeFileSync(policy, 'max_pending: 1\nrate_limit: { count: 5, per_seconds: 60 }\nexpire_after_seconds: 600\n');
  assert.equal((await submit(state, 'one', 1, ['--policy', policy])).status, 0);
  const refused = await submit(state, 'two', 2, ['--policy', policy]);
  oneLineError(refused, 1, 'RTC_ERR_REVIEW_BACKPRESSURE');
  assert.match(refused.stderr, /refused \(max_pending\)/);
  assert.match(refused.stderr, /refusal and operator alert recorded at seq 2-3$/m);
  // The same proposer refused again for the same reason, nothing changed since: answered, not written again (a flood costs two records).
  const json = await submit(state, 'three', 3, ['--policy', policy, '--json']);
  assert.equal(json.status, 1);
  const again = JSON.parse(json.stdout) as { status: string; refusal: { recorded: boolean; refusal_seq: number } };
  assert.equal(again.status, 'refused');
  assert.deepEqual([again.refusal.recorded, again.refusal.refusal_seq], [false, 2]);
  const text = await submit(state, 'four', 4, ['--policy', policy]);
  oneLineError(text, 1, 'RTC_ERR_REVIEW_BACKPRESSURE');
  assert.match(text.stderr, /the same refusal was recorded at seq 2-3 and is not written again/);
  assert.deepEqual(recordTypes(path.join(state, 'alpha')), ['proposal_submitted', 'proposal_refused', 'operator_alert']);

  fs.writeFileSync(policy, 'max_pending: 0\n');
  const bad = await submit(state, 'four', 4, ['--policy', policy]);
  oneLineError(bad, 1, 'RTC_ERR_MANIFEST_INVALID');
  assert.match(bad.stderr, /policy\.yaml: max_pending: /);
});

test('submit covers every kind: a plugin change stores its content by digest, a skill draft names its gate package', async () => {
  const state = stateDir();
  const content = path.join(state, 'manifest.yaml');
  fs.writeFileSync(content, 'id: executor.codex\n');
  const plugin = await cli(['proposals', 'submit', '--persona', 'alpha', '--kind', 'plugin-change', '--path', 'plugins/executor-codex/manifest.yaml', '--content-file', content, '--evidence', EVIDENCE_ARG, '--now', '1', '--state-dir', state, '--json']);
  assert.equal(plugin.status, 0, plugin.stderr);
  const proposal = (JSON.parse(plugin.stdout) as { proposal: { content: { content_digest: string } } }).proposal;
  assert.equal(proposal.content.content_digest, digestOf('id: executor.codex\n'));
  assert.equal(fs.readFileSync(path.join(state, 'alpha', 'review', 'blobs', proposal.content.content_digest.slice(7)), 'utf8'), 'id: executor.codex\n');

  fs.mkdirSync(path.join(state, 'alpha', 'gates'));
  fs.writeFileSync(path.join(state, 'alpha', 'gates', 'triage.json'), 'pkg');
  const skill = await cli(['proposals', 'submit', '--persona', 'alpha', '--kind', 'skill-draft', '--skill', 'persona/alpha/triage', '--package', `gates/triage.json@${digestOf('pkg')}`, '--evidence', EVIDENCE_ARG, '--now', '2', '--state-dir', state]);
  assert.equal(skill.status, 0, skill.stderr);
  assert.match(skill.stdout, /^P-alpha-2: pending/);

  oneLineError(await cli(['proposals', 'submit', '--persona', 'alpha', '--kind', 'memory-promotion', '--text', 'x', '--evidence', 'no-digest', '--state-dir', state]), 2, 'RTC_ERR_CLI_USAGE');
  oneLineError(await cli(['proposals', 'submit', '--persona', 'alpha', '--kind', 'memory-promotion', '--text', 'x', '--evidence', 'ref@md5:1', '--state-dir', state]), 1, 'RTC_ERR_REVIEW_INVALID');
  oneLineError(await cli(['proposals', 'submit', '--persona', 'alpha', '--kind', 'wish', '--evidence', EVIDENCE_ARG, '--state-dir', state]), 2, 'RTC_ERR_CLI_USAGE');
});

test('submit resolves evidence only inside the persona: absolute, "..", links out and /proc get one refusal whether or not the target exists (issue 27 item 9f)', async () => {
  const state = stateDir();
  const outside = path.join(state, 'outside.txt');
  fs.writeFileSync(outside, 'not the persona\'s');
  const artifacts = path.join(state, 'alpha', 'brain', 'artifacts');
  fs.symlinkSync(outside, path.join(artifacts, 'link-out'));
  fs.symlinkSync(path.join(state, 'gone.txt'), path.join(artifacts, 'link-nowhere'));
  fs.symlinkSync('/proc/self/environ', path.join(artifacts, 'link-proc'));
  fs.symlinkSync(state, path.join(artifacts, 'up'));
  const digest = digestOf('not the persona\'s');
  const refs = [outside, path.join(state, 'gone.txt'), '/etc/passwd', '/etc/nothing-here', '/proc/self/environ', '/proc/self/nope', '../outside.txt', '../gone.txt', 'brain/../../outside.txt', 'brain/artifacts/link-out', 'brain/artifacts/link-nowhere', 'brain/artifacts/link-proc', 'brain/artifacts/up/outside.txt', 'brain/artifacts/up/gone.txt', 'workspace:../../../../../outside.txt'];
  const lines = new Set<string>();
  for (const ref of refs) {
    for (const flag of ['--evidence', '--package']) {
      const args = flag === '--evidence' ? ['--kind', 'memory-promotion', '--text', 'x', '--evidence', `${ref}@${digest}`] : ['--kind', 'skill-draft', '--skill', 'persona/alpha/x', '--package', `${ref}@${digest}`, '--evidence', EVIDENCE_ARG];
      const out = await cli(['proposals', 'submit', '--persona', 'alpha', ...args, '--state-dir', state]);
      oneLineError(out, 1, 'RTC_ERR_REVIEW_EVIDENCE');
      // The line without the ref: the same for every one of them.
      lines.add(out.stderr.replace(JSON.stringify(ref), 'REF'));
    }
  }
  assert.deepEqual([...lines].map((l) => l.replace(/--package|--evidence/, 'FLAG')).filter((l, i, all) => all.indexOf(l) === i), [
    'runtimectl: RTC_ERR_REVIEW_EVIDENCE: FLAG REF is not a file or event of the persona (evidence is a path relative to the persona folder without "..", workspace:PATH in its workspace, or events#SEQ)\n',
  ]);
  assert.equal(fs.existsSync(logFile(path.join(state, 'alpha'))), false, 'nothing was recorded');
  // The persona's own file, named relative to its folder, is fine.
  assert.equal((await submit(state, 'fine', 1)).status, 0);
});
