import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { workspaceDir, personaPaths } from '../../persona-layout/layout.ts';
import { PersonaRuntime } from '../../persona/persona-runtime.ts';
import { openLoopKernel } from '../preset.ts';
import { scienceReport } from '../report.ts';
import { budgeted, CACHE_DIR, cycleEvents, FAKE_BIN, fakeEnv, fakeTime, packet, profile, readJson, run, tempDir } from './helpers.ts';

function session(stateDir: string, persona: string, runId: string): string {
  return path.join(stateDir, persona, 'brain', 'sessions', runId);
}

test('executor.codex runs `codex exec --json` in the workspace, writes the session files and parses turn.completed usage', async () => {
  const dir = tempDir();
  const stateDir = path.join(dir, 'state');
  packet(stateDir, 'ada', 'q.md', '# Does X cause Y?\n\nUse the pilot data.\n');
  const [r] = await run([budgeted(dir, 'ada', 'executor.codex')], { stateDir, ...fakeTime() });
  const report = r!.reports[0]!;
  assert.equal(report.outcome, 'executed');
  const s = session(stateDir, 'ada', 'c000001-codex');
  assert.deepEqual(readdirSync(s).sort(), ['last-message.md', 'manifest.json', 'prompt.md', 'sandbox.json', 'stderr.txt', 'stdout.txt']);
  assert.match(readFileSync(path.join(s, 'prompt.md'), 'utf8'), /### Work packet: Does X cause Y\?/);
  assert.match(readFileSync(path.join(s, 'stdout.txt'), 'utf8'), /"type":"turn.completed"/);
  assert.equal(readFileSync(path.join(s, 'last-message.md'), 'utf8'), 'Drafted notes/answer.md; next: ask a reviewer.\n');
  const manifest = readJson(path.join(s, 'manifest.json'));
  assert.equal(manifest.command, 'codex');
  const ws = workspaceDir(personaPaths(stateDir, 'ada'));
  // codex's own controls follow the grant: no approvals, workspace-write, the workspace as its
  // root, no network for the model's commands (only the provider host is granted), prompt on stdin
  assert.deepEqual(manifest.args, ['-a', 'never', 'exec', '--json', '--skip-git-repo-check', '--sandbox', 'workspace-write', '-C', ws, '-c', 'sandbox_workspace_write.network_access=false', '-']);
  assert.equal(manifest.prompt_via, 'stdin');
  assert.equal(manifest.prompt_sha256, `sha256:${createHash('sha256').update(readFileSync(path.join(s, 'prompt.md'))).digest('hex')}`);
  assert.equal(manifest.status, 'ok');
  assert.equal(manifest.budget_decision.action, 'execute', 'the decision record is written before the work');
  // cached input is part of input (OpenAI's convention), so the total is input + output
  assert.deepEqual(report.act.usage, { input_tokens: 1200, cached_input_tokens: 800, output_tokens: 300, reasoning_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, total_tokens: 1500, source: 'codex-json' });
  // the command ran in the persistent workspace, with the prompt on stdin and nowhere in argv
  assert.equal(readFileSync(path.join(ws, 'fake-codex-prompt.txt'), 'utf8'), readFileSync(path.join(s, 'prompt.md'), 'utf8'));
  assert.doesNotMatch(readFileSync(path.join(ws, 'fake-codex-args.txt'), 'utf8'), /Work packet/);
  // its provider home is the persona's own, inside its state
  assert.ok(existsSync(path.join(stateDir, 'ada', 'brain', 'providers', 'codex')));
  assert.ok(existsSync(path.join(ws, 'manifests', 'workspace.json')), 'prepareWorkspace ran first');
});

test("codex's plain \"tokens used\" stderr lines are parsed when there are no JSON events", async () => {
  const dir = tempDir();
  const stateDir = path.join(dir, 'state');
  packet(stateDir, 'ada', 'q.md', '# Q\n');
  const [r] = await run([budgeted(dir, 'ada', 'executor.codex', '  config: { args: ["--fake-plain"] }')], { stateDir, ...fakeTime() });
  assert.equal(r!.reports[0]!.act.usage?.total_tokens, 2345);
  assert.equal(r!.reports[0]!.act.usage?.source, 'codex-stderr');
});

test('executor.claude runs `claude -p --output-format stream-json --verbose` and counts cache reads and writes', async () => {
  const dir = tempDir();
  const stateDir = path.join(dir, 'state');
  packet(stateDir, 'bo', 'q.md', '# Review this\n');
  const [r] = await run([budgeted(dir, 'bo', 'executor.claude')], { stateDir, ...fakeTime() });
  const report = r!.reports[0]!;
  assert.equal(report.outcome, 'executed');
  assert.deepEqual(report.act.usage, { input_tokens: 10, cached_input_tokens: 0, output_tokens: 250, reasoning_tokens: 0, cache_read_input_tokens: 12000, cache_creation_input_tokens: 500, total_tokens: 12760, source: 'claude-result' });
  const s = session(stateDir, 'bo', 'c000001-claude');
  // claude's own controls follow the grant: nothing waits for a prompt, edits only under the
  // workspace, no web tools (only its provider's host is granted), no settings files, no MCP
  // server but the kernel's (none here)
  assert.deepEqual(readJson(path.join(s, 'manifest.json')).args, [
    '-p', '--output-format', 'stream-json', '--verbose',
    '--permission-mode', 'dontAsk',
    '--allowedTools', 'Read,Glob,Grep,Edit(./**),Write(./**),NotebookEdit(./**),Bash',
    '--disallowedTools', 'WebFetch,WebSearch',
    '--setting-sources', '',
    '--strict-mcp-config',
  ]);
  assert.equal(readFileSync(path.join(s, 'last-message.md'), 'utf8'), 'Filed a review request for the packet.\n');
  // the usage reaches the event unredacted, and the next cycle counts it
  const [first] = cycleEvents(stateDir, 'bo');
  assert.equal(first!.provider_usage.cache_read_input_tokens, 12000);
});

test('executor.orchestra creates tasks in the persona\'s own ledger through the ledger binding', async () => {
  const dir = tempDir();
  const stateDir = path.join(dir, 'state');
  packet(stateDir, 'ada', 'q.md', '# Map the assay options\n');
  const [r] = await run([budgeted(dir, 'ada', 'executor.orchestra')], { stateDir, ...fakeTime() });
  const report = r!.reports[0]!;
  assert.deepEqual(report.act.tasks.map((t) => t.title), ['Work packet: Map the assay options', 'science_patrol patrol']);
  const manifest = readJson(path.join(session(stateDir, 'ada', 'c000001-orchestra'), 'manifest.json'));
  assert.equal(manifest.extra.orchestra_db, 'ada/orchestra/orchestra.db');
  assert.equal(manifest.extra.orchestra_env_is_local, true);
  const e = cycleEvents(stateDir, 'ada')[0]!;
  assert.ok(e.audit.granted > 0);
});

test('executor.command runs a configured command; its subprocess sees ORCHESTRA_DB and ORCHESTRA_DB_PATH set to the local ledger', async () => {
  const dir = tempDir();
  const stateDir = path.join(dir, 'state');
  packet(stateDir, 'cy', 'q.md', '# Q\n');
  const p = budgeted(dir, 'cy', 'executor.command', '  config: { command: sh, args: ["-c", "echo db=$ORCHESTRA_DB; echo path=$ORCHESTRA_DB_PATH; wc -c < {prompt_file}"], spends_tokens: false }');
  const [r] = await run([p], { stateDir, ...fakeTime() });
  assert.equal(r!.reports[0]!.outcome, 'executed');
  const out = readFileSync(path.join(session(stateDir, 'cy', 'c000001-command'), 'stdout.txt'), 'utf8');
  const db = path.join(stateDir, 'cy', 'orchestra', 'orchestra.db');
  assert.match(out, new RegExp(`^db=${db}\npath=${db}\n\\d+\n$`));
});

test('the executor is swapped by SCIDEX_AGENT_CONTINUOUS_EXECUTOR and _ENABLED, even on a compatibility harness', async () => {
  const dir = tempDir();
  const stateDir = path.join(dir, 'state');
  const harness = profile(dir, 'minimax', `runtime: minimax
budget: { daily_tokens: 100000 }
allow: { read: ["\${state}"], write: ["\${state}"], run: [claude], net: [api.anthropic.com] }`);
  packet(stateDir, 'minimax', 'q.md', '# Q\n');
  const [off] = await run([harness], { stateDir, ...fakeTime() });
  assert.equal(off!.reports[0]!.executor, 'executor.none');
  assert.match(off!.reports[0]!.defer_reason ?? '', /disabled \(the compatibility-harness default\)/);

  const [on] = await run([harness], { stateDir, env: fakeEnv({ SCIDEX_AGENT_CONTINUOUS_EXECUTOR: 'claude', SCIDEX_AGENT_CONTINUOUS_EXECUTOR_ENABLED: '1' }), ...fakeTime() });
  const report = on!.reports[0]!;
  assert.equal(report.executor, 'executor.claude');
  assert.equal(report.outcome, 'executed');
  const e = cycleEvents(stateDir, 'minimax').at(-1)!;
  assert.deepEqual([e.executor.plugin_source, e.executor.enabled_source], ['env', 'env']);
  // only its provider's host is granted: no web tools for the model
  const args = readJson(path.join(session(stateDir, 'minimax', report.act.session!.run_id), 'manifest.json')).args as string[];
  assert.equal(args[args.indexOf('--disallowedTools') + 1], 'WebFetch,WebSearch');
  assert.doesNotMatch(args[args.indexOf('--allowedTools') + 1]!, /WebFetch/);
});

test('a token-spending executor whose program is not on PATH does not start; with sessions held back it starts', async () => {
  const dir = tempDir();
  const stateDir = path.join(dir, 'state');
  packet(stateDir, 'ada', 'q.md', '# Q\n');
  const p = budgeted(dir, 'ada', 'executor.codex');
  const noCodex = { PATH: '/nonexistent-bin', HOME: dir };
  const [refused] = await run([p], { stateDir, env: noCodex, cycles: 2, ...fakeTime() });
  assert.deepEqual(refused!.refused, [`persona ada: ${path.join(dir, 'ada.yaml')}: executor.plugin: executor executor.codex spends tokens and runs "codex", which is not on PATH; install it, or disable the executor (executor.enabled: false)`]);
  assert.deepEqual(refused!.reports, []);
  // With token-spending sessions held back (--no-spend) the program is never launched: the persona starts.
  const [held] = await run([p], { stateDir, env: noCodex, spendTokens: false, ...fakeTime() });
  assert.equal(held!.refused, undefined);
  assert.match(held!.reports[0]!.defer_reason ?? '', /--no-spend/);
});

test('a missing executor binary (gone after the start) is recorded; the work waits and the persona carries on next cycle', async () => {
  const dir = tempDir();
  const stateDir = path.join(dir, 'state');
  packet(stateDir, 'ada', 'q.md', '# Q\n');
  const p = budgeted(dir, 'ada', 'executor.codex');
  // codex is on PATH when the persona starts, and removed before its cycles run.
  const bin = path.join(dir, 'bin');
  mkdirSync(bin);
  copyFileSync(path.join(FAKE_BIN, 'codex'), path.join(bin, 'codex'));
  const time = fakeTime();
  const kernel = await openLoopKernel({ stateDir, env: { PATH: bin, HOME: dir }, cacheDir: CACHE_DIR, ...time });
  const runtime = await PersonaRuntime.open(kernel, p);
  rmSync(path.join(bin, 'codex'));
  const first = scienceReport(await runtime.cycle());
  time.advance(3600_000);
  const second = scienceReport(await runtime.cycle());
  await runtime.close();
  assert.equal(first!.outcome, 'failed');
  assert.equal(first!.act.status, 'not_found');
  assert.equal(first!.defer_reason, 'codex: executable not found on PATH');
  assert.equal(readJson(path.join(session(stateDir, 'ada', 'c000001-codex'), 'manifest.json')).status, 'not_found');
  assert.equal(second!.cycle, 2, 'the next cycle ran');
  assert.equal(second!.act.status, 'not_found', 'and offered the same work again');
  // a binary that never started spent nothing and is not a session
  assert.equal(second!.posture.sessions_24h, 0);
});

test('a non-zero exit is a failed session with the exit status and the last stderr line', async () => {
  const dir = tempDir();
  const stateDir = path.join(dir, 'state');
  packet(stateDir, 'ada', 'q.md', '# Q\n');
  const [r] = await run([budgeted(dir, 'ada', 'executor.codex', '  config: { args: ["--fake-exit=3"] }')], { stateDir, ...fakeTime() });
  const report = r!.reports[0]!;
  assert.equal(report.outcome, 'failed');
  assert.equal(report.defer_reason, 'codex exited with status 3: ERROR: stream error: unexpected status 401 Unauthorized');
  const manifest = readJson(path.join(session(stateDir, 'ada', 'c000001-codex'), 'manifest.json'));
  assert.equal(manifest.exit_code, 3);
  assert.match(readFileSync(path.join(session(stateDir, 'ada', 'c000001-codex'), 'stderr.txt'), 'utf8'), /401 Unauthorized/);
});

test('an executor past its wall limit is killed; the cycle records it and charges the estimate', async () => {
  const dir = tempDir();
  const stateDir = path.join(dir, 'state');
  packet(stateDir, 'ada', 'q.md', '# Q\n');
  const p = profile(dir, 'ada', `runtime: agent-ada
executor: { plugin: executor.codex, config: { args: ["--fake-sleep=30"] } }
budget: { daily_tokens: 200000, wall_seconds_per_cycle: 1 }
allow: { read: ["\${state}"], write: ["\${state}"], run: [codex], net: [api.openai.com] }`);
  const other = budgeted(dir, 'bo', 'executor.orchestra');
  packet(stateDir, 'bo', 'q.md', '# Q\n');
  const [slow, fine] = await run([p, other], { stateDir, ...fakeTime() });
  const report = slow!.reports[0]!;
  assert.equal(report.outcome, 'failed');
  assert.equal(report.act.status, 'timed_out');
  assert.equal(report.defer_reason, 'codex: passed the wall limit of 1 s; its process group was killed');
  assert.equal(report.act.usage?.source, 'estimate (no usage printed)');
  assert.ok((report.act.usage?.total_tokens ?? 0) > 0);
  assert.equal(readJson(path.join(session(stateDir, 'ada', 'c000001-codex'), 'manifest.json')).status, 'timed_out');
  assert.equal(fine!.reports[0]!.outcome, 'executed', 'the other persona is untouched');
});
