/**
 * `runtimectl events repair`: a log two kernels forked (issue 12) gets back on one chain,
 * nothing is lost or edited (the original is kept aside byte for byte, the kept lines are the
 * original lines), the repair is itself an event, and budgets keep counting the tokens spent
 * on the chains set aside. It refuses what is not a fork: an edited line is tampering, never
 * "repaired" by cutting the log short.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { openEventLog } from '../../kernel/events/event-log.ts';
import { fileHistoryStorage } from '../../features/history-segments/file-storage.ts';
import { logHistory } from '../../features/history-segments/segments.ts';
import { analyzeFork } from '../../features/events/fork-repair.ts';
import { readEvents, verifyEventLog } from '../../kernel/events/verify.ts';
import { UsageWindow } from '../../features/history/usage.ts';
import { readStatus } from '../../features/status/status.ts';
import { runCli } from '../support/cli.ts';
import { profile, run, tempDir } from '../../features/science-loop/test/helpers.ts';

const FIXTURE = path.resolve(import.meta.dirname, '../fixtures/events/forked/jerome-two-kernels.jsonl');

function stateWithLog(id: string, bytes: Buffer | string): { state: string; log: string } {
  const state = path.join(tempDir('rtc-fork-'), 'state');
  const log = path.join(state, id, 'logs', 'events.jsonl');
  mkdirSync(path.dirname(log), { recursive: true });
  writeFileSync(log, bytes);
  return { state, log };
}

function lines(file: string): string[] {
  return readFileSync(file, 'utf8').split('\n').filter((l) => l !== '');
}

function cyclePayload(tokens: number) {
  return { cycle: 1, provider_usage: { total_tokens: tokens }, executor: { ran: true, spends_tokens: true } };
}

/**
 * A fork made the way two kernels make it: a common log, then each writer opens it (a
 * `reboot`) and appends from the same tip; their lines interleave in one file.
 */
async function syntheticFork(branches: number[][]): Promise<{ bytes: string; prefix: number }> {
  const dir = tempDir('rtc-fork-make-');
  const base = path.join(dir, 'base.jsonl');
  const log = await openEventLog(base);
  await log.append('persona_start', { persona_id: 'forky' });
  await log.append('continuous_loop_cycle', cyclePayload(10));
  await log.close();
  const prefix = readFileSync(base, 'utf8');
  const tails: string[][] = [];
  for (const [i, tokens] of branches.entries()) {
    const file = path.join(dir, `branch-${i}.jsonl`);
    copyFileSync(base, file);
    const branch = await openEventLog(file);
    for (const t of tokens) await branch.append('continuous_loop_cycle', cyclePayload(t));
    await branch.close();
    tails.push(readFileSync(file, 'utf8').slice(prefix.length).split('\n').filter((l) => l !== ''));
  }
  // Interleave round-robin, as two group-committing writers do.
  const mixed: string[] = [];
  for (let i = 0; tails.some((t) => i < t.length); i++) for (const t of tails) if (i < t.length) mixed.push(t[i]!);
  return { bytes: prefix + mixed.map((l) => `${l}\n`).join(''), prefix: 2 };
}

test('the log two real kernels forked on main: dry run changes nothing; repair keeps the longest chain line for line and the original aside byte for byte', async () => {
  const original = readFileSync(FIXTURE);
  const { state, log } = stateWithLog('jerome', original);
  assert.equal(verifyEventLog(log).ok, false, 'the fixture is forked');

  const dry = await runCli(['events', 'repair', '--persona', 'jerome', '--state-dir', state, '--dry-run']);
  assert.equal(dry.status, 0, dry.stderr);
  assert.match(dry.stdout, /forked \(dry run, nothing changed\)/);
  assert.match(dry.stdout, /2 chain\(s\) after it/);
  assert.ok(readFileSync(log).equals(original), 'a dry run writes nothing');
  assert.deepEqual(readdirSync(path.dirname(log)), ['events.jsonl']);

  const repaired = await runCli(['events', 'repair', '--persona', 'jerome', '--state-dir', state, '--json']);
  assert.equal(repaired.status, 0, repaired.stderr);
  const doc = JSON.parse(repaired.stdout);
  assert.equal(doc.repaired, true);
  const evidence = path.join(path.dirname(log), doc.saved_as);
  assert.ok(readFileSync(evidence).equals(original), 'the evidence is the original file, byte for byte');
  assert.equal(verifyEventLog(log).ok, true);

  // Every line kept is an original line; the set-aside chain's lines are all in the evidence.
  const before = new Set(lines(FIXTURE));
  const after = lines(log);
  for (const line of after.slice(0, -2)) assert.ok(before.has(line), 'kept lines are the original bytes');
  assert.equal(after.length - 2, doc.prefix.events + doc.kept.events, 'prefix + kept chain, then reboot and log_repaired');
  assert.equal(doc.kept.events >= doc.set_aside[0].events, true, 'the longest chain is kept');
  const events = [...readEvents(log)];
  const repair = events.at(-1)!;
  assert.equal(repair.type, 'log_repaired');
  assert.equal(repair.payload.reason, 'forked chain');
  assert.equal(repair.payload.saved_as, doc.saved_as);
  assert.equal((repair.payload.set_aside as unknown[]).length, 1);

  // The persona runs again, and its cycles continue the kept chain.
  const jerome = profile(tempDir('rtc-fork-prof-'), 'jerome', 'runtime: agent-jerome');
  const [after1] = await run([jerome], { stateDir: state });
  assert.equal(after1!.stopped, undefined);
  assert.equal(after1!.reports[0]!.cycle, events.filter((e) => e.type === 'continuous_loop_cycle').length + 1, 'cycle numbers follow the kept chain');
  assert.equal(verifyEventLog(log).ok, true);
  const again = await runCli(['events', 'repair', '--persona', 'jerome', '--state-dir', state]);
  assert.equal(again.status, 0);
  assert.match(again.stdout, /not forked: \d+ event\(s\) in one sound chain; nothing to repair/);
});

test('a three-way fork: the longest chain stays, --keep picks another, and the set-aside chains still count against the budget', async () => {
  const { bytes } = await syntheticFork([[100, 100], [500, 500, 500], [7]]);
  const analysis = (() => {
    const { log } = stateWithLog('forky', bytes);
    return analyzeFork(log);
  })();
  assert.equal(analysis.forked, true);
  // Every writer's `reboot` is the same event (its time is outside the hash): it joins the
  // trunk once and its other copies count as duplicates; the chains are the cycles after it.
  assert.deepEqual(analysis.chains.map((c) => c.events), [3, 2, 1]);
  assert.equal(analysis.duplicates, 2);
  assert.equal(analysis.prefix.last_seq, 3);

  const { state, log } = stateWithLog('forky', bytes);
  const repaired = await runCli(['events', 'repair', '--persona', 'forky', '--state-dir', state, '--keep', '2']);
  assert.equal(repaired.status, 0, repaired.stderr);
  assert.match(repaired.stdout, /keep #2: seq 4\.\.5/);
  assert.equal(verifyEventLog(log).ok, true);
  const kept = [...readEvents(log)].filter((e) => e.type === 'continuous_loop_cycle').map((e) => (e.payload.provider_usage as { total_tokens: number }).total_tokens);
  assert.deepEqual(kept, [10, 100, 100]);
  // 10 + 100 + 100 kept, 1500 + 7 set aside: all of it was spent.
  const window = UsageWindow.fromEventLog(log, Date.now());
  assert.equal(window.totals(Date.now()).tokens_used_24h, 10 + 200 + 1500 + 7);
  const [row] = await readStatus(state, Date.now());
  assert.equal(row!.budget?.tokens_used_24h, 10 + 200 + 1500 + 7);
  assert.equal(row!.budget?.sessions_24h, 7, 'every set-aside session counts too');

  const out = await runCli(['events', 'repair', '--persona', 'forky', '--state-dir', state, '--keep', '9']);
  assert.equal(out.status, 0, 'already repaired: nothing to pick from');
});

test('--keep beyond the chains is a one-line usage error, and nothing is written', async () => {
  const { bytes } = await syntheticFork([[1], [2]]);
  const { state, log } = stateWithLog('forky', bytes);
  const out = await runCli(['events', 'repair', '--persona', 'forky', '--state-dir', state, '--keep', '3']);
  assert.equal(out.status, 2);
  assert.match(out.stderr, /^runtimectl: RTC_ERR_CLI_USAGE: --keep 3: there are 2 chain\(s\) after seq 3; pick 1 to 2\n$/);
  assert.equal(readFileSync(log, 'utf8'), bytes);
  assert.deepEqual(readdirSync(path.dirname(log)), ['events.jsonl']);
});

test('an edited line is tampering, not a fork: refused with the line named, the log untouched', async () => {
  const { bytes } = await syntheticFork([[1, 2, 3]]);
  const edited = bytes.replace('"total_tokens":2', '"total_tokens":0');
  assert.notEqual(edited, bytes);
  const { state, log } = stateWithLog('forky', edited);
  const out = await runCli(['events', 'repair', '--persona', 'forky', '--state-dir', state]);
  assert.equal(out.status, 1);
  assert.match(out.stderr, /^runtimectl: RTC_ERR_EVENTS_CORRUPT: .*not a fork: \d+ line\(s\) are damaged, edited or link to no event \(the first at line 5\).*nothing was changed\n$/);
  assert.equal(readFileSync(log, 'utf8'), edited);
});

test('a run on a forked log is refused with the way out named; after the repair it runs', async () => {
  const { bytes } = await syntheticFork([[1], [2, 3]]);
  const { state } = stateWithLog('forky', bytes);
  const forky = profile(tempDir('rtc-fork-prof-'), 'forky', 'runtime: agent-forky');
  const [refused] = await run([forky], { stateDir: state });
  assert.equal(refused!.reports.length, 0);
  assert.match(refused!.refused?.[0] ?? '', /^persona forky: .*seq \d+ where seq \d+ was expected.*"runtimectl events repair --persona forky" keeps one chain/);
  assert.equal((await runCli(['events', 'repair', '--persona', 'forky', '--state-dir', state])).status, 0);
  const [ok] = await run([forky], { stateDir: state });
  assert.equal(ok!.stopped, undefined);
});

test('a fork whose last line is torn: the torn bytes stay in the evidence, the log is repaired', async () => {
  const { bytes } = await syntheticFork([[1, 2], [3]]);
  const torn = `${bytes}{"v":1,"seq":9,"ty`;
  const { state, log } = stateWithLog('forky', torn);
  const out = await runCli(['events', 'repair', '--persona', 'forky', '--state-dir', state, '--json']);
  assert.equal(out.status, 0, out.stderr);
  const doc = JSON.parse(out.stdout);
  assert.equal(doc.torn, true);
  assert.equal(readFileSync(path.join(path.dirname(log), doc.saved_as), 'utf8'), torn);
  assert.equal(verifyEventLog(log).ok, true);
});

test('a persona that is not there, or a state directory that is not one, is one line', async () => {
  const { state } = stateWithLog('forky', '');
  const missing = await runCli(['events', 'repair', '--persona', 'forkx', '--state-dir', state]);
  assert.equal(missing.status, 1);
  assert.match(missing.stderr, /^runtimectl: RTC_ERR_PERSONA_NOT_FOUND: persona forkx \(did you mean "forky"\?\) has no folder in state directory .*\n$/);
  assert.equal(existsSync(path.join(state, 'forkx')), false);
  const noVerb = await runCli(['events']);
  assert.equal(noVerb.status, 2);
  assert.match(noVerb.stdout, /Usage: runtimectl events <command>/);
});

test('a fork after a seal: the open segment starts at its header, the repair keeps it and verify passes; an edited header is still refused', async () => {
  // A sealed log: segment 1 under logs/segments, the open file starting with its `log_segment` header.
  const state = path.join(tempDir('rtc-fork-sealed-'), 'state');
  const logs = path.join(state, 'forky', 'logs');
  const file = path.join(logs, 'events.jsonl');
  const history = fileHistoryStorage({ dir: logs, label: 'forky/logs' });
  const log = await openEventLog(file, { history: logHistory(history) });
  await log.append('persona_start', { persona_id: 'forky' });
  await log.append('continuous_loop_cycle', cyclePayload(10));
  await log.seal();
  await log.append('continuous_loop_cycle', cyclePayload(20));
  await log.close();
  const prefix = readFileSync(file, 'utf8');
  assert.match(prefix.split('\n')[0]!, /"type":"log_segment"/, 'the open segment starts with its header');
  // Two writers append from its tip.
  const tails: string[][] = [];
  for (const tokens of [[1, 2, 3], [4]]) {
    const branch = path.join(tempDir('rtc-fork-branch-'), 'events.jsonl');
    writeFileSync(branch, prefix);
    const writer = await openEventLog(branch, { sealedUnchecked: true });
    for (const t of tokens) await writer.append('continuous_loop_cycle', cyclePayload(t));
    await writer.close();
    tails.push(readFileSync(branch, 'utf8').slice(prefix.length).split('\n').filter((l) => l !== ''));
  }
  const forked = prefix + [tails[0]![0], tails[1]![0], ...tails[0]!.slice(1), ...tails[1]!.slice(1)].map((l) => `${l}\n`).join('');
  writeFileSync(file, forked);

  const analysis = analyzeFork(file);
  assert.equal(analysis.forked, true);
  assert.equal(analysis.orphans, 0, 'the header is the chain\'s start, not a damaged line');
  assert.equal(analysis.prefix.events, 3, 'header, the cycle after it, and the writers\' shared reboot');
  const repaired = await runCli(['events', 'repair', '--persona', 'forky', '--state-dir', state, '--json']);
  assert.equal(repaired.status, 0, repaired.stderr);
  const after = lines(file);
  assert.equal(after[0], prefix.split('\n')[0], 'the header is kept, byte for byte');
  // The chain verifies across the seal; the only finding is the checkpoint this log never had
  // (sealed here by EventLog.seal itself: the loop writes one at each seal).
  const verified = await runCli(['verify', '--full', '--state-dir', state, '--json']);
  const findings = (JSON.parse(verified.stdout) as { personas: { checks: { name: string; findings: { code: string }[] }[] }[] }).personas[0]!.checks.flatMap((c) => c.findings.map((f) => `${c.name} ${f.code}`));
  assert.deepEqual(findings, ['events RTC_ERR_HISTORY_CHECKPOINT'], verified.stdout);
  const again = await runCli(['events', 'repair', '--persona', 'forky', '--state-dir', state]);
  assert.equal(again.status, 0, again.stderr);
  assert.match(again.stdout, /not forked/);

  // A header whose payload was edited no longer hashes: it anchors nothing, and the repair refuses.
  const edited = forked.replace(/"segment":2/, '"segment":3');
  assert.notEqual(edited, forked);
  writeFileSync(file, edited);
  const refused = await runCli(['events', 'repair', '--persona', 'forky', '--state-dir', state]);
  assert.equal(refused.status, 1);
  assert.match(refused.stderr, /RTC_ERR_EVENTS_CORRUPT: .*not a fork: .*the first at line 1/);
  assert.equal(readFileSync(file, 'utf8'), edited, 'nothing written');
});
