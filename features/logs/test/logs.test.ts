/**
 * `runtimectl logs`: the tail of each persona, NDJSON with --json, and --follow across seals
 * (daily rotation) on both backends, with no event lost or given twice; a corrupt persona is
 * one line on stderr and the others go on; bad flags are usage errors.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { runCli } from '../../../test/support/cli.ts';
import { BACKENDS, idlePersona } from '../../history/test/helpers.ts';
import { printLogs } from '../cli.ts';

test('logs prints the last --tail events of a persona, one line each; --json is one envelope a line', async () => {
  const p = idlePersona('jsonl-fs');
  await p.cycles(5);
  const text = await runCli(['logs', '--state-dir', p.stateDir, '--tail', '3']);
  assert.equal(text.status, 0, text.stderr);
  const lines = text.stdout.trim().split('\n');
  assert.equal(lines.length, 3);
  assert.match(lines[2]!, /^2026-03-01T12:00:00\.\d{3}Z ada #6 continuous_loop_cycle cycle #5 \w+ (idle|deferred): /);
  const json = await runCli(['logs', '--state-dir', p.stateDir, '--persona', 'ada', '--tail', 'all', '--json']);
  const events = json.stdout.trim().split('\n').map((l) => JSON.parse(l) as { persona_id: string; seq: number; hash: string; type: string });
  assert.deepEqual(events.map((e) => e.seq), [1, 2, 3, 4, 5, 6]);
  assert.ok(events.every((e) => e.persona_id === 'ada' && /^[0-9a-f]{64}$/.test(e.hash)));
  assert.equal(events[0]!.type, 'persona_start');
});

for (const backend of BACKENDS) {
  test(`logs --follow (${backend}) gives every event once, in order, across the daily seals while the loop runs`, async () => {
    const p = idlePersona(backend);
    await p.cycles(2);
    const controller = new AbortController();
    const seen: { seq: number; type: string }[] = [];
    const errors: string[] = [];
    const following = printLogs({ stateDir: p.stateDir, persona: 'ada', tail: 1, follow: true, json: true, intervalMs: 20, signal: controller.signal }, (l) => seen.push(JSON.parse(l)), (l) => errors.push(l));
    // 30 hourly cycles in three runs: the UTC day turns over, so segments are sealed mid-follow
    for (let i = 0; i < 3; i++) await p.cycles(10);
    const expectedLast = backend === 'jsonl-fs' ? fs.readFileSync(path.join(p.personaDir, 'logs', 'events.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l).seq as number).at(-1)! : undefined;
    for (let i = 0; i < 500 && (seen.at(-1)?.seq ?? 0) < (expectedLast ?? 36); i++) await new Promise((r) => setTimeout(r, 20));
    controller.abort();
    assert.equal(await following, false);
    assert.deepEqual(errors, []);
    const seqs = seen.map((e) => e.seq);
    assert.equal(seqs[0], 3, 'the tail of one, then everything after it');
    assert.deepEqual(seqs, Array.from({ length: seqs.length }, (_, i) => i + 3), 'no gap, no repeat');
    assert.ok(seen.some((e) => e.type === 'log_segment'), 'a seal happened while following (its header was followed)');
    if (expectedLast !== undefined) assert.equal(seqs.at(-1), expectedLast);
  });
}

test('a persona whose log is corrupt is one line on stderr and exit 1; the other personas are printed', async () => {
  const p = idlePersona('jsonl-fs');
  await p.cycles(2);
  const other = path.join(p.stateDir, 'bob');
  fs.cpSync(p.personaDir, other, { recursive: true });
  const log = path.join(other, 'logs', 'events.jsonl');
  fs.writeFileSync(log, fs.readFileSync(log, 'utf8').replace('"cycle":2', '"cycle":9'));
  const r = await runCli(['logs', '--state-dir', p.stateDir]);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /^runtimectl logs: persona bob: RTC_ERR_EVENTS_\w+: .+\n$/);
  assert.match(r.stdout, /ada #3 continuous_loop_cycle cycle #2/);
  assert.doesNotMatch(r.stdout, / bob /);
});

test('logs: unknown flags, a malformed --tail or --interval, a bad persona id and a persona with no events', async () => {
  const p = idlePersona('jsonl-fs');
  for (const [argv, message] of [
    [['logs', '--bogus'], /unknown option --bogus/],
    [['logs', '--tail', '3x'], /--tail 3x: a whole number of events, or all/],
    [['logs', '--interval', '1'], /--interval 1: milliseconds, at least 10/],
    [['logs', '--persona', '../x'], /--persona "\.\.\/x": not a persona id/],
  ] as const) {
    const r = await runCli([...argv, '--state-dir', p.stateDir]);
    assert.equal(r.status, 2, argv.join(' '));
    assert.match(r.stderr, message);
  }
  const none = await runCli(['logs', '--state-dir', p.stateDir, '--persona', 'nobody']);
  assert.equal(none.status, 1);
  assert.match(none.stderr, /^runtimectl: RTC_ERR_PERSONA_NOT_FOUND: persona nobody has no events under \S+\n$/);
});
