/**
 * Agents propose from inside the loop (issue 24 item 1): a plugin through the proposals
 * binding, an executor session through the review.propose MCP tool. Each proposal lands in
 * the queue with who proposed (plugin, tool, session, cycle) and its evidence digested; a bad
 * one is refused to the agent and logged while the cycle goes on; the cycle event says what
 * was proposed and refused; and the recorded cycle replays exactly (the binding's answers are
 * effects on the tape).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { replayPersona } from '../../science-loop/preset.ts';
import { CACHE_DIR, cycleEvents, events, fakeEnv, run, tempDir } from '../../science-loop/test/helpers.ts';
import { readPersonaFile } from '../../profiles/load.ts';
import { openReviewQueue } from '../../review-queue/index.ts';
import { pluginSearchPath, scanRegistry } from '../../plugin-search/scan.ts';
import { personaPaths, workspaceDir } from '../../persona-layout/layout.ts';
import { NO_OS_SANDBOX } from '../../../test/support/os-sandbox.ts';
import { harnessToolServer } from '../../mcp/harness-server.ts';
import { agentNotes, binderProfile, mcpProfile, packet, proposerPlugin } from './agents.ts';

test('a plugin proposes through the proposals binding: queued with its origin, bad proposals refused to it, the cycle goes on and replays exactly', async () => {
  const dir = tempDir('rtc-propose-binding-');
  const stateDir = path.join(dir, 'state');
  const plugins = path.join(dir, 'plugins');
  proposerPlugin(plugins);
  const p = readPersonaFile(binderProfile(dir), dir);
  packet(stateDir, 'binder');
  const [r] = await run([p], { stateDir, pluginPath: [plugins], cycles: 1 });
  const report = r!.reports[0]!;
  assert.equal(report.act.status, 'ok', JSON.stringify(report.act));
  const said = JSON.parse(report.act.last_message!) as { said: [string, string][]; listed: number };
  assert.deepEqual(said.said, [['queued', 'P-binder-1'], ['refused', 'evidence'], ['refused', 'too_large'], ['refused', 'invalid']]);
  assert.equal(said.listed, 1, 'the plugin reads back its queue');

  const proposal = openReviewQueue(path.join(stateDir, 'binder')).get('P-binder-1');
  assert.equal(proposal.proposer, 'plugin:executor.proposer');
  assert.deepEqual(proposal.origin, { via: 'binding', plugin: 'executor.proposer', cycle: 1 });
  const firstEvent = events(stateDir, 'binder')[0]!;
  assert.deepEqual(proposal.evidence, [{ ref: 'events#1', digest: `sha256:${firstEvent.hash}` }]);

  // The event log has the submission and each refusal; the cycle event counts them.
  const types = events(stateDir, 'binder').map((e) => e.type);
  assert.deepEqual(types.filter((t) => t.startsWith('proposal')), ['proposal_submitted', 'proposal_input_refused', 'proposal_input_refused', 'proposal_input_refused']);
  const refusals = events(stateDir, 'binder').filter((e) => e.type === 'proposal_input_refused').map((e) => e.payload as Record<string, any>);
  assert.deepEqual(refusals.map((x) => [x.reason, x.code, x.proposer]), [
    ['evidence', 'RTC_ERR_REVIEW_EVIDENCE', 'plugin:executor.proposer'],
    ['too_large', 'RTC_ERR_REVIEW_TOO_LARGE', 'plugin:executor.proposer'],
    ['invalid', 'RTC_ERR_REVIEW_INVALID', 'plugin:executor.proposer'],
  ]);
  const cycle = cycleEvents(stateDir, 'binder')[0]!;
  assert.deepEqual(cycle.review, { applied: [], expired: [], queued: ['P-binder-1'], refused: 3, alerts: [] });
  assert.deepEqual(cycle.problems, []);
  // Each binding call was audited.
  assert.ok((cycle.audit.granted as number) >= 5);

  // The binding's answers are on the tape: replay re-runs the plugin against them and matches.
  const registry = scanRegistry(pluginSearchPath({ env: {}, dirs: [plugins] }));
  const replay = await replayPersona({ stateDir, personaId: 'binder', registry, cacheDir: CACHE_DIR });
  assert.equal(replay.divergence, null, JSON.stringify(replay.divergence));
  assert.equal(replay.cycles, 1);
  assert.equal(openReviewQueue(path.join(stateDir, 'binder')).list().length, 1, 'replay proposed nothing again');
});

test('a persona that does not grant proposals: the plugin gets NotCapable, its session no review tools', async () => {
  const dir = tempDir('rtc-propose-denied-');
  const stateDir = path.join(dir, 'state');
  const plugins = path.join(dir, 'plugins');
  proposerPlugin(plugins);
  const file = binderProfile(dir, 'mute');
  const { writeFileSync } = await import('node:fs');
  writeFileSync(file, readFileSync(file, 'utf8').replace('bindings: [proposals]', 'bindings: []'));
  const p = readPersonaFile(file, dir);
  packet(stateDir, 'mute');
  const [r] = await run([p], { stateDir, pluginPath: [plugins], cycles: 1 });
  const report = r!.reports[0]!;
  assert.equal(report.act.status, 'failed');
  assert.match(report.act.reason ?? '', /NotCapable: Requires the "proposals" binding: persona "mute" does not grant it/);
  assert.equal(harnessToolServer([p])('mute'), null, 'no tool server for a persona with no tool and no proposals');
});

test('an executor session proposes through the review.propose MCP tool: queued with its session, refused evidence is a tool error, replayed', { skip: NO_OS_SANDBOX }, async () => {
  const dir = tempDir('rtc-propose-mcp-');
  const stateDir = path.join(dir, 'state');
  const p = readPersonaFile(mcpProfile(dir), dir);
  packet(stateDir, 'talker');
  agentNotes(stateDir);
  const [r] = await run([p], { stateDir, cycles: 1, env: fakeEnv(), mcpServer: harnessToolServer([p]) });
  const report = r!.reports[0]!;
  assert.equal(report.act.status, 'ok', report.defer_reason ?? JSON.stringify(report.act));
  const seen = JSON.parse(readFileSync(path.join(workspaceDir(personaPaths(stateDir, 'talker')), 'fake-mcp.json'), 'utf8'));
  assert.equal(seen.error, undefined, seen.error);
  assert.deepEqual(seen.tools, ['review.propose', 'review.proposals']);
  assert.equal(seen.calls[0].isError, false, seen.calls[0].text);
  const queued = JSON.parse(seen.calls[0].text);
  assert.equal(queued.status, 'queued');
  assert.equal(queued.id, 'P-talker-1');
  // Evidence outside the persona: a tool error the agent reads, the same words as for any such path.
  assert.equal(seen.calls[1].isError, true);
  assert.match(seen.calls[1].text, /^RTC_ERR_REVIEW_EVIDENCE: evidence "\/etc\/passwd" is not a file or event of the persona/);
  assert.equal(seen.calls[2].isError, false);
  assert.deepEqual(JSON.parse(seen.calls[2].text).proposals.map((x: { id: string; state: string }) => [x.id, x.state]), [['P-talker-1', 'pending']]);

  const event = cycleEvents(stateDir, 'talker')[0]!;
  const runId = event.executor_session.run_id as string;
  const proposal = openReviewQueue(path.join(stateDir, 'talker')).get('P-talker-1');
  assert.equal(proposal.proposer, 'agent:executor.command');
  assert.deepEqual(proposal.origin, { via: 'mcp', tool: 'review.propose', run_id: runId, plugin: 'executor.command', cycle: 1 });
  assert.equal(proposal.evidence[0]!.ref, 'brain/workspace/workspaces/main/notes.md');
  // The session's manifest lists the calls; the cycle event what was proposed and refused.
  const manifest = JSON.parse(readFileSync(path.join(stateDir, event.executor_session.manifest_path), 'utf8'));
  assert.deepEqual(manifest.tools.called, ['review.propose', 'review.proposals']);
  assert.deepEqual(manifest.tools.calls.map((c: { ok: boolean; code?: string }) => [c.ok, c.code ?? null]), [[true, null], [false, 'RTC_ERR_REVIEW_EVIDENCE'], [true, null]]);
  assert.deepEqual(event.review.queued, ['P-talker-1']);
  assert.equal(event.review.refused, 1);
  // Replay: the kernel's tool is not a plugin call; the session's record replays as it was.
  const registry = scanRegistry(pluginSearchPath({ env: {} }));
  const replay = await replayPersona({ stateDir, personaId: 'talker', registry, cacheDir: CACHE_DIR });
  assert.equal(replay.divergence, null, JSON.stringify(replay.divergence));
});

test('tools list shows the review tools of a persona that may propose; tools call review.propose queues, and a refusal exits 1 with its line', async () => {
  const dir = tempDir('rtc-propose-tools-');
  const stateDir = path.join(dir, 'state');
  const plugins = path.join(dir, 'plugins');
  proposerPlugin(plugins);
  const file = binderProfile(dir);
  const { mkdirSync, writeFileSync } = await import('node:fs');
  mkdirSync(path.join(stateDir, 'binder', 'brain', 'artifacts'), { recursive: true });
  writeFileSync(path.join(stateDir, 'binder', 'brain', 'artifacts', 'seen.md'), 'seen\n');
  const { main } = await import('../../../cli/main.ts');
  const cli = async (args: string[]) => {
    let stdout = '';
    let stderr = '';
    const status = await main(args, { cwd: dir, env: fakeEnv(), stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t) });
    return { status, stdout, stderr };
  };
  const list = await cli(['tools', 'list', '--persona', file, '--state-dir', stateDir, '--plugins-dir', plugins]);
  assert.equal(list.status, 0, list.stderr);
  assert.match(list.stdout, /^review\.propose {2}\[kernel: the review queue\] {2}Propose a change/m);
  assert.match(list.stdout, /^review\.proposals {2}\[kernel: the review queue\]/m);
  const args = JSON.stringify({ kind: 'memory-promotion', text: 'From the command line.', evidence: ['brain/artifacts/seen.md'] });
  const queued = await cli(['tools', 'call', 'review.propose', '--args', args, '--persona', file, '--state-dir', stateDir, '--plugins-dir', plugins]);
  assert.equal(queued.status, 0, queued.stderr);
  assert.equal(JSON.parse(queued.stdout).id, 'P-binder-1');
  assert.deepEqual(openReviewQueue(path.join(stateDir, 'binder')).get('P-binder-1').origin, { via: 'cli', tool: 'review.propose' });
  const bad = await cli(['tools', 'call', 'review.propose', '--args', JSON.stringify({ kind: 'memory-promotion', text: 'x', evidence: ['../../etc/passwd'] }), '--persona', file, '--state-dir', stateDir, '--plugins-dir', plugins]);
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /^runtimectl: RTC_ERR_REVIEW_EVIDENCE: evidence "\.\.\/\.\.\/etc\/passwd" is not a file or event of the persona .*\n$/);
  const types = events(stateDir, 'binder').map((e) => e.type);
  assert.deepEqual(types.filter((t) => t !== 'reboot'), ['proposal_submitted', 'tool_call', 'proposal_input_refused', 'tool_call']);
});
