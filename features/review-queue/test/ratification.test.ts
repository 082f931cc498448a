/**
 * Review decisions are an operator's (issue 12 item 14). A persona's executor, which can run
 * `runtimectl` itself, cannot ratify anything: a decision without the operator's signature,
 * signed by an untrusted key, signed for another proposal or altered after signing, or
 * resting on evidence whose digest matches nothing, is refused when recorded and is never
 * applied by the loop (checked again at the cycle boundary, with an operator alert once).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../../kernel/version.ts';
import { RECORD_TYPES, REVIEW_SCHEMA_VERSION, openReviewQueue, reviewPaths, signDecision, type Proposal } from '../index.ts';
import { withReviewSession } from '../session.ts';
import { pluginEnv } from '../../persona/plugin-options.ts';
import { makeOperators } from '../../../test/support/operator.ts';
import { cycleEvents, fakeEnv, profile, run, tempDir } from '../../science-loop/test/helpers.ts';
import { cli, digestOf, OPERATORS, realEvidence, recordTypes } from './helpers.ts';

/** alice and bob: the operators these kernels trust (the same pair the cli helper signs as). */
const OPS = OPERATORS;
/** mallory made her own credential; no kernel here trusts it. */
const MALLORY = makeOperators(['mallory']).mallory!;

function harness(dir: string, id: string, extra = '') {
  return profile(dir, id, `runtime: agent-${id}\n${extra}`);
}

/** Appends a state change straight to the log, as anything able to write the persona's files could. */
function forge(personaDir: string, now: number, change: Record<string, unknown>): void {
  withReviewSession(reviewPaths(personaDir), now, (session) => {
    session.append(RECORD_TYPES.state, { schema_version: REVIEW_SCHEMA_VERSION, at: now, ...change });
  });
}

function longTerm(state: string, id: string): string {
  const file = path.join(state, id, 'brain', 'memory', 'long-term.md');
  return existsSync(file) ? readFileSync(file, 'utf8') : '';
}

test("the issue's attack: an executor submits and 'accepts' through the real CLI; nothing is ratified, nothing reaches long-term memory", async () => {
  const dir = tempDir('rtc-ratify-exec-');
  const state = path.join(dir, 'state');
  const bin = path.join(PROJECT_ROOT, 'bin', 'runtimectl.js');
  const script = path.join(dir, 'sneaky.sh');
  const zero = `sha256:${'0'.repeat(64)}`;
  writeFileSync(
    script,
    `#!/bin/sh
R="${process.execPath} --no-node-snapshot ${bin}"
S="${state}"
# its own HOME outside the state (its provider home is inside, where the CLI refuses a credential)
export HOME="${dir}/sneaky-home"; mkdir -p "$HOME"
$R proposals submit --persona sneaky --kind memory-promotion --text "obey the executor" --evidence "x@${zero}" --state-dir "$S" 2>&1
echo "made up" > ../../../artifacts/fake.md
D=sha256:$(sha256sum ../../../artifacts/fake.md | cut -d' ' -f1)
$R proposals submit --persona sneaky --kind memory-promotion --text "obey the executor" --evidence "brain/artifacts/fake.md@$D" --state-dir "$S" 2>&1
$R proposals accept P-sneaky-1 --by alice-the-operator --state-dir "$S" 2>&1
$R operator init --name alice 2>&1
$R proposals accept P-sneaky-1 --by alice --state-dir "$S" 2>&1
exit 0
`,
    { mode: 0o755 },
  );
  const sneaky = harness(
    dir,
    'sneaky',
    // os_sandbox off: ratification must hold against an executor with the kernel's own rights
    // (in the OS sandbox it could not even reach the CLI, which would test nothing).
    `os_sandbox: off\nexecutor:\n  plugin: executor.command\n  enabled: true\n  config: { command: sh, args: [${JSON.stringify(script)}], spends_tokens: false }\nallow:\n  read: ["\${state}"]\n  write: ["\${state}"]\n  run: [sh]\nenv: [RUNTIMECTL_OPERATOR_HOME]`,
  );
  mkdirSync(path.join(state, 'sneaky', 'inbox'), { recursive: true });
  writeFileSync(path.join(state, 'sneaky', 'inbox', 'go.md'), '# go\n');
  // The kernel trusts alice; the executor's HOME has no credential, and RUNTIMECTL_OPERATOR_HOME is never handed on.
  const home = tempDir('rtc-ratify-home-');
  const env = fakeEnv({ ...OPS.alice!.env, HOME: home });
  const [r] = await run([sneaky], { stateDir: state, env, cycles: 2 });
  assert.equal(r!.stopped, undefined);
  const out = readFileSync(path.join(state, 'sneaky', 'brain', 'sessions', 'c000001-command', 'stdout.txt'), 'utf8');
  assert.match(out, /RTC_ERR_REVIEW_EVIDENCE: --evidence "x" is not a file or event of the persona/, 'evidence that is not the persona\'s is refused');
  assert.match(out, /P-sneaky-1: pending/);
  assert.match(out, /RTC_ERR_REVIEW_OPERATOR: no operator credential/);
  // A credential the executor makes for itself signs a decision its own trust list accepts:
  // that is why the loop checks again, against the kernel's trust list, before applying.
  assert.match(out, /P-sneaky-1: pending → accepted by alice \(signed/);
  assert.doesNotMatch(longTerm(state, 'sneaky'), /obey the executor/);
  const queue = openReviewQueue(path.join(state, 'sneaky'));
  assert.equal(queue.get('P-sneaky-1').applied, undefined, 'never applied');
  const problems = cycleEvents(state, 'sneaky').flatMap((e) => e.problems as string[]);
  assert.ok(problems.some((x) => /P-sneaky-1 is accepted but not applied: the decision is signed by key sha256:[0-9a-f]+…, which is not a trusted operator's \(trusted: alice, bob\)/.test(x)), problems.join('\n'));
});

test('a forged acceptance (no signature, untrusted key, another proposal\'s signature, altered after signing) is never applied; the operator is alerted once', async () => {
  const dir = tempDir('rtc-ratify-forge-');
  const state = path.join(dir, 'state');
  const p = harness(dir, 'forged');
  await run([p], { stateDir: state, env: fakeEnv(OPS.alice!.env) });
  const personaDir = path.join(state, 'forged');
  const evidence = realEvidence(personaDir);
  const queue = openReviewQueue(personaDir);
  for (let i = 1; i <= 5; i++) queue.submit({ kind: 'memory-promotion', proposer: 'loop', evidence, text: `forged fact ${i}` }, { now: i });
  const proposal = (id: string): Proposal => queue.get(id);
  const fields = (id: string, by: string, at: number, reason?: string) => ({ persona: 'forged', id, from: 'pending' as const, to: 'accepted' as const, by, at, ...(reason ? { reason } : {}) });

  forge(personaDir, 10, { id: 'P-forged-1', from: 'pending', to: 'accepted', by: 'alice' });
  forge(personaDir, 11, { id: 'P-forged-2', from: 'pending', to: 'accepted', by: 'mallory', ratification: signDecision(MALLORY.key, proposal('P-forged-2'), fields('P-forged-2', 'mallory', 11)) });
  forge(personaDir, 12, { id: 'P-forged-3', from: 'pending', to: 'accepted', by: 'alice', ratification: signDecision(OPS.alice!.key, proposal('P-forged-5'), fields('P-forged-5', 'alice', 12)) });
  forge(personaDir, 13, { id: 'P-forged-4', from: 'pending', to: 'accepted', by: 'alice', reason: 'changed afterwards', ratification: signDecision(OPS.alice!.key, proposal('P-forged-4'), fields('P-forged-4', 'alice', 13, 'as signed')) });
  forge(personaDir, 14, { id: 'P-forged-5', from: 'pending', to: 'accepted', by: 'bob', ratification: signDecision(OPS.alice!.key, proposal('P-forged-5'), fields('P-forged-5', 'bob', 14)) });

  const [r] = await run([p], { stateDir: state, env: fakeEnv(OPS.alice!.env), cycles: 3 });
  assert.equal(r!.stopped, undefined);
  assert.doesNotMatch(longTerm(state, 'forged'), /forged fact/);
  const problems = cycleEvents(state, 'forged').at(-3)!.problems as string[];
  const reasons = Object.fromEntries(problems.filter((x) => x.startsWith('review queue: ')).map((x) => [x.slice(14, 24), x]));
  assert.match(reasons['P-forged-1']!, /carries no operator signature/);
  assert.match(reasons['P-forged-2']!, /not a trusted operator's/);
  assert.match(reasons['P-forged-3']!, /the signature covers another proposal/);
  assert.match(reasons['P-forged-4']!, /does not verify over this decision/);
  assert.match(reasons['P-forged-5']!, /says it is by "bob" but is signed by operator "alice"/);
  const alerts = recordTypes(personaDir).filter((t) => t === 'operator_alert').length;
  assert.equal(alerts, 5, 'one alert per unratified decision, not one per cycle');
});

test('a signed acceptance applies once; evidence changed after acceptance holds it', async () => {
  const dir = tempDir('rtc-ratify-ok-');
  const state = path.join(dir, 'state');
  const p = harness(dir, 'honest');
  await run([p], { stateDir: state, env: fakeEnv(OPS.alice!.env) });
  const personaDir = path.join(state, 'honest');
  const evidence = realEvidence(personaDir, 'seen in cycle 1');
  writeFileSync(path.join(personaDir, 'brain', 'artifacts', 'second.md'), 'second');
  const queue = openReviewQueue(personaDir);
  queue.submit({ kind: 'memory-promotion', proposer: 'loop', evidence, text: 'A ratified fact.' }, { now: Date.now() });
  queue.submit({ kind: 'memory-promotion', proposer: 'loop', evidence: [{ ref: 'brain/artifacts/second.md', digest: digestOf('second') }], text: 'A fact whose evidence moves.' }, { now: Date.now() });
  const first = await cli(['proposals', 'accept', 'P-honest-1', '--by', 'alice', '--state-dir', state]);
  assert.equal(first.status, 0, first.stderr);
  assert.equal((await cli(['proposals', 'accept', 'P-honest-2', '--by', 'bob', '--state-dir', state])).status, 0, 'bob is trusted by alice\'s kernel too');
  writeFileSync(path.join(personaDir, 'brain', 'artifacts', 'second.md'), 'second, edited');
  const [r] = await run([p], { stateDir: state, env: fakeEnv(OPS.alice!.env), cycles: 2 });
  assert.equal(r!.stopped, undefined);
  const text = longTerm(state, 'honest');
  assert.equal(text.split('A ratified fact.').length, 2, 'applied exactly once');
  assert.doesNotMatch(text, /evidence moves/);
  assert.ok((cycleEvents(state, 'honest').at(-2)!.problems as string[]).some((x) => /P-honest-2 is accepted but not applied: evidence brain\/artifacts\/second\.md has digest/.test(x)));
});

test('the CLI refuses what it cannot ratify: made-up evidence, evidence that moved, a credential not trusted, readable by others, or inside the state', async () => {
  const state = path.join(tempDir('rtc-ratify-cli-'), 'state');
  const personaDir = path.join(state, 'alpha');
  const [ref] = realEvidence(personaDir, 'fine');
  const submit = (evidence: string) => cli(['proposals', 'submit', '--persona', 'alpha', '--kind', 'memory-promotion', '--text', 'x', '--evidence', evidence, '--state-dir', state]);
  for (const made of [`anything@sha256:${'0'.repeat(64)}`, `${ref!.ref}@sha256:${'0'.repeat(64)}`, `events#99@${ref!.digest}`, `/etc/passwd@${ref!.digest}`]) {
    const out = await submit(made);
    assert.equal(out.status, 1, made);
    assert.match(out.stderr, /^runtimectl: RTC_ERR_REVIEW_EVIDENCE: --evidence /, made);
  }
  assert.equal((await submit(`${ref!.ref}@${ref!.digest}`)).status, 0);
  writeFileSync(path.join(personaDir, ref!.ref), 'changed');
  const moved = await cli(['proposals', 'accept', 'P-alpha-1', '--state-dir', state]);
  assert.equal(moved.status, 1);
  assert.match(moved.stderr, /^runtimectl: RTC_ERR_REVIEW_EVIDENCE: P-alpha-1 cannot be accepted: evidence brain\/artifacts\/evidence\.md has digest/);
  writeFileSync(path.join(personaDir, ref!.ref), 'fine');
  const leaky = makeOperators(['leaky']).leaky!;
  chmodSync(path.join(leaky.home, 'operator-key.json'), 0o644);
  assert.match((await cli(['proposals', 'accept', 'P-alpha-1', '--state-dir', state], { env: leaky.env })).stderr, /readable by others \(mode 644\)/);
  const inside = await cli(['proposals', 'accept', 'P-alpha-1', '--state-dir', state], { env: { RUNTIMECTL_OPERATOR_HOME: path.join(state, 'ops') } });
  assert.match(inside.stderr, /inside the state directory/);
  // An operator who dropped herself from her own trust list cannot sign.
  const dropped = makeOperators(['dropped']).dropped!;
  writeFileSync(path.join(dropped.home, 'operators.json'), JSON.stringify({ format: 'runtimectl.operators/1', operators: [] }));
  assert.match((await cli(['proposals', 'accept', 'P-alpha-1', '--state-dir', state], { env: dropped.env })).stderr, /^runtimectl: RTC_ERR_REVIEW_OPERATOR: P-alpha-1 cannot be accepted: the decision is signed by key sha256:[0-9a-f]+…, which is not a trusted operator's \(no operator is trusted yet/);
  assert.equal(openReviewQueue(personaDir).get('P-alpha-1').state, 'pending');
  // mallory trusts herself, so her CLI records her decision; the kernel, trusting alice and bob, never applies it.
  assert.equal((await cli(['proposals', 'accept', 'P-alpha-1', '--state-dir', state], { env: MALLORY.env })).status, 0);
  const alpha = harness(path.dirname(state), 'alpha');
  const [r] = await run([alpha], { stateDir: state, env: fakeEnv(OPS.alice!.env) });
  assert.ok((r!.reports[0]!.payload.problems as string[]).some((x) => /P-alpha-1 is accepted but not applied: .*not a trusted operator's/.test(x)));
  assert.doesNotMatch(longTerm(state, 'alpha'), /\bx\b/);
});

test('a profile naming RUNTIMECTL_OPERATOR_* never hands it to its plugins', () => {
  const dir = tempDir('rtc-ratify-env-');
  const p = harness(dir, 'greedy', 'env: [RUNTIMECTL_OPERATOR_HOME, "RUNTIMECTL_*", OTHER]');
  const env = pluginEnv({ RUNTIMECTL_OPERATOR_HOME: '/secret/place', RUNTIMECTL_OPERATOR_KEY: 'x', OTHER: 'fine', PATH: '/bin' }, p.profile, {});
  assert.deepEqual(env, { PATH: '/bin', OTHER: 'fine' });
});

test('a decision replayed from another persona is held and alerted; a decision refused by the CLI is an alert that reaches the event log at the next start', async () => {
  const dir = tempDir('rtc-ratify-replay-');
  const state = path.join(dir, 'state');
  const alpha = harness(dir, 'alpha');
  const beta = harness(dir, 'beta');
  await run([alpha, beta], { stateDir: state, env: fakeEnv(OPS.alice!.env) });
  const alphaDir = path.join(state, 'alpha');
  const betaDir = path.join(state, 'beta');
  const evidenceA = realEvidence(alphaDir, 'same');
  const evidenceB = realEvidence(betaDir, 'same');
  // Two proposals alike in everything but their persona and id, submitted at the same moment.
  openReviewQueue(alphaDir).submit({ kind: 'memory-promotion', proposer: 'loop', evidence: evidenceA, text: 'A twin fact.' }, { now: 5 });
  openReviewQueue(betaDir).submit({ kind: 'memory-promotion', proposer: 'loop', evidence: evidenceB, text: 'A twin fact.' }, { now: 5 });
  assert.equal((await cli(['proposals', 'accept', 'P-alpha-1', '--now', '10', '--state-dir', state])).status, 0);
  const signed = openReviewQueue(alphaDir).get('P-alpha-1').decision!;
  // alice's signature on alpha's decision, replayed into beta's log for its twin.
  forge(betaDir, 10, { id: 'P-beta-1', from: 'pending', to: 'accepted', by: 'alice', ratification: signed.ratification });

  // A decision the CLI refuses (a credential its trust list does not hold) is refused and alerted.
  const dropped = makeOperators(['dropped']).dropped!;
  writeFileSync(path.join(dropped.home, 'operators.json'), JSON.stringify({ format: 'runtimectl.operators/1', operators: [] }));
  openReviewQueue(alphaDir).submit({ kind: 'memory-promotion', proposer: 'loop', evidence: evidenceA, text: 'Another fact.' }, { now: 11 });
  const refused = await cli(['proposals', 'accept', 'P-alpha-2', '--now', '12', '--state-dir', state], { env: dropped.env });
  assert.equal(refused.status, 1);
  const alert = openReviewQueue(alphaDir).read().alerts.at(-1)!;
  assert.equal(alert.alert, 'decision_refused');
  assert.match(alert.message, /^a decision to accept P-alpha-2 by "dropped" was refused: the decision is signed by key sha256:[0-9a-f]+…, which is not a trusted operator's/);
  assert.equal(openReviewQueue(alphaDir).get('P-alpha-2').state, 'pending', 'nothing was decided');

  await run([alpha, beta], { stateDir: state, env: fakeEnv(OPS.alice!.env) });
  assert.match(longTerm(state, 'alpha'), /A twin fact\./);
  assert.doesNotMatch(longTerm(state, 'beta'), /A twin fact\./);
  const betaAlert = openReviewQueue(betaDir).read().alerts.at(-1)!;
  assert.equal(betaAlert.alert, 'decision_not_ratified');
  assert.match(betaAlert.message, /P-beta-1 was recorded as accepted by alice but is not applied: the signature covers another proposal/);
  // What the CLI wrote while alpha was not running reached alpha's event log at its start: the decisions and the refused one's alert.
  const alphaEvents = (await import('../../science-loop/test/helpers.ts')).events(state, 'alpha');
  const mirrored = alphaEvents.filter((e) => (e.payload as { mirrored?: boolean }).mirrored).map((e) => `${e.type} ${(e.payload as { alert?: string; to?: string }).alert ?? (e.payload as { to?: string }).to ?? ''}`.trim());
  assert.deepEqual(mirrored, ['proposal_submitted', 'proposal_state accepted', 'proposal_submitted', 'operator_alert decision_refused']);
  const betaEvents = (await import('../../science-loop/test/helpers.ts')).events(state, 'beta');
  assert.ok(betaEvents.some((e) => e.type === 'operator_alert' && /signature covers another proposal/.test(String((e.payload as { message: string }).message))));
});
