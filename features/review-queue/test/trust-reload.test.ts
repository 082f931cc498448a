/**
 * Ratification never fails silently (issue 24 item 2). A kernel that is already running takes
 * a change of its operator trust list at the next cycle boundary: `operator init` made after
 * the start, `operator trust` of a second operator, a list broken by hand and then mended.
 * Every accepted proposal the loop cannot apply is held with the reason, loudly: an
 * operator_alert in the proposal log and in the event log (once per decision and reason), a
 * problem of each cycle, `status` and `logs` say so, and it is applied once the reason goes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openReviewQueue, OPERATOR_HOME_ENV, publicKeyPem } from '../index.ts';
import { makeOperators } from '../../../test/support/operator.ts';
import { events, fakeEnv, profile, run, tempDir } from '../../science-loop/test/helpers.ts';
import { cli, realEvidence } from './helpers.ts';

/** Polls `check` until it returns something, or fails after `ms` saying what it waited for. */
async function until<T>(what: string, check: () => T | undefined | false, ms = 120_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > end) assert.fail(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('a running kernel takes operator init, operator trust and a mended trust list at its next boundary; a held proposal is loud everywhere until then', { timeout: 600_000 }, async () => {
  const dir = tempDir('rtc-trust-reload-');
  const state = path.join(dir, 'state');
  const personaDir = path.join(state, 'keeper');
  // The kernel's operator folder is empty when it starts: nobody is trusted yet.
  const home = mkdtempSync(path.join(os.tmpdir(), 'rtc-kernel-operators-'));
  const kernelEnv = { [OPERATOR_HOME_ENV]: home };
  const p = profile(dir, 'keeper', 'runtime: agent-keeper');
  const stop = new AbortController();
  const loop = run([p], { stateDir: state, cycles: undefined, everySeconds: 0.3, signal: stop.signal, env: fakeEnv(kernelEnv) });
  try {
    await until('the first cycle', () => events(state, 'keeper').some((e) => e.type === 'continuous_loop_cycle'));
    const evidence = realEvidence(personaDir);
    const queue = openReviewQueue(personaDir);
    const submit = (text: string) => {
      const out = queue.submit({ kind: 'memory-promotion', proposer: 'operator', evidence, text }, { now: Date.now() });
      assert.ok(out.status === 'queued');
      return out.proposal.id;
    };
    // Applied, and the cycle that applied it has written its events.
    const applied = (id: string) => openReviewQueue(personaDir).get(id).applied !== undefined && events(state, 'keeper').some((e) => e.type === 'proposal_applied' && (e.payload as { id: string }).id === id);

    // 1. operator init while the kernel runs, then accept: applied at the next boundary, no restart.
    const first = submit('Fact one.');
    const init = await cli(['operator', 'init', '--name', 'alice'], { env: kernelEnv });
    assert.equal(init.status, 0, init.stderr);
    assert.match(init.stdout, /re-reads it at each persona's next cycle boundary/);
    const accepted = await cli(['proposals', 'accept', first, '--state-dir', state], { env: kernelEnv });
    assert.equal(accepted.status, 0, accepted.stderr);
    await until(`${first} applied`, () => applied(first));
    const trustEvent = events(state, 'keeper').find((e) => e.type === 'operator_trust_changed');
    assert.ok(trustEvent, 'the change of trust list is in the event log');
    assert.deepEqual((trustEvent.payload as { operators: { name: string }[] }).operators.map((o) => o.name), ['alice']);
    assert.doesNotMatch(JSON.stringify(trustEvent.payload), new RegExp(home), 'no host path in the event');
    // The operator's decision, made by another process, is in the persona's event log too.
    const mirrored = events(state, 'keeper').find((e) => e.type === 'proposal_state' && (e.payload as { id: string }).id === first);
    assert.ok(mirrored, 'the CLI decision was mirrored into the event log');
    assert.deepEqual([(mirrored.payload as Record<string, unknown>).by, (mirrored.payload as Record<string, unknown>).mirrored], ['alice', true]);
    assert.ok(events(state, 'keeper').findIndex((e) => e === mirrored) < events(state, 'keeper').findIndex((e) => e.type === 'proposal_applied'));

    // 2. bob's decision (his own credential, not in the kernel's list): held, alerted once, shown everywhere.
    const bob = makeOperators(['bob']).bob!;
    const second = submit('Fact two.');
    assert.equal((await cli(['proposals', 'accept', second, '--state-dir', state], { env: bob.env })).status, 0);
    const alert = await until('the held alert', () => events(state, 'keeper').find((e) => e.type === 'operator_alert' && (e.payload as { id?: string }).id === second));
    assert.match((alert.payload as { message: string }).message, new RegExp(`^${second} was recorded as accepted by bob but is not applied: the decision is signed by key sha256:[0-9a-f]+…, which is not a trusted operator's \\(trusted: alice\\)`));
    const show = await cli(['proposals', 'show', second, '--state-dir', state]);
    assert.match(show.stdout, /accepted \(HELD: not applied\)/);
    assert.match(show.stdout, /HELD by the loop: .*not a trusted operator's/);
    const status = await cli(['status', '--state-dir', state, '--json']);
    const row = (JSON.parse(status.stdout) as { personas: { persona_id: string; review: { held: { id: string }[]; alerts: { alert: string }[] } }[] }).personas[0]!;
    assert.deepEqual(row.review.held.map((h) => h.id), [second]);
    assert.equal(row.review.alerts[0]!.alert, 'decision_not_ratified');
    const statusText = await cli(['status', '--state-dir', state]);
    assert.match(statusText.stdout, new RegExp(`keeper +HELD ${second}: ${second} was recorded as accepted by bob`));
    assert.match(statusText.stdout, /ALERT decision_not_ratified: /);
    const logs = await cli(['logs', '--persona', 'keeper', '--tail', 'all', '--state-dir', state]);
    assert.match(logs.stdout, new RegExp(`operator_alert ALERT decision_not_ratified: ${second} was recorded as accepted by bob`));
    assert.match(logs.stdout, new RegExp(`proposal_state ${second} pending → accepted by bob \\(signed\\)`));
    assert.doesNotMatch(logs.stdout, /operator_alert operator_alert/);
    const cyclesHeld = await until('two cycles holding it', () => {
      const held = events(state, 'keeper').filter((e) => e.type === 'continuous_loop_cycle' && JSON.stringify((e.payload as { review?: unknown }).review ?? {}).includes(second));
      return held.length >= 2 ? held : undefined;
    });
    assert.ok(cyclesHeld.every((e) => ((e.payload as { problems: string[] }).problems).some((x) => x.startsWith(`review queue: ${second} is accepted but not applied`))));
    const alerts = events(state, 'keeper').filter((e) => e.type === 'operator_alert' && (e.payload as { id?: string }).id === second);
    assert.equal(alerts.length, 1, 'alerted once per decision and reason, not every cycle');

    // 3. alice trusts bob on the kernel's machine: the held proposal applies at the next boundary.
    const pem = path.join(dir, 'bob.pem');
    writeFileSync(pem, publicKeyPem(bob.key));
    assert.equal((await cli(['operator', 'trust', '--name', 'bob', '--public-key', pem], { env: kernelEnv })).status, 0);
    await until(`${second} applied`, () => applied(second));
    assert.match((await cli(['proposals', 'show', second, '--state-dir', state])).stdout, /accepted \(applied\)/);

    // 4. A trust list broken by hand: nothing is applied, and every place says why; mended, it applies.
    const good = readFileSync(path.join(home, 'operators.json'), 'utf8');
    writeFileSync(path.join(home, 'operators.json'), '{"format": "runtimectl.operators/1", "operators": [{"name": "alice"');
    const third = submit('Fact three.');
    assert.equal((await cli(['proposals', 'accept', third, '--state-dir', state], { env: bob.env })).status, 0);
    const broken = await until('the broken-list alert', () => events(state, 'keeper').find((e) => e.type === 'operator_alert' && (e.payload as { id?: string }).id === third));
    assert.match((broken.payload as { message: string }).message, /the operator trust list cannot be read \(RTC_ERR_MANIFEST_YAML: operators\.json:1:\d+: .*\); no decision is ratified until it is fixed/);
    assert.ok(!JSON.stringify(events(state, 'keeper')).includes(home), 'the operator folder\'s host path is in no event');
    const told = events(state, 'keeper').filter((e) => e.type === 'operator_trust_changed').at(-1)!;
    assert.match(String((told.payload as { error?: string }).error), /^RTC_ERR_MANIFEST_YAML/);
    const brokenLogs = await cli(['logs', '--persona', 'keeper', '--tail', 'all', '--state-dir', state]);
    assert.match(brokenLogs.stdout, /operator_trust_changed ALERT the operator trust list \(operators\.json\) cannot be read/);
    assert.equal(applied(third), false);
    writeFileSync(path.join(home, 'operators.json'), good);
    await until(`${third} applied`, () => applied(third));
    const longTerm = readFileSync(path.join(personaDir, 'brain', 'memory', 'long-term.md'), 'utf8');
    for (const text of ['Fact one.', 'Fact two.', 'Fact three.']) assert.equal(longTerm.split(text).length, 2, `${text} applied once`);
  } finally {
    stop.abort();
    await loop;
  }
});
