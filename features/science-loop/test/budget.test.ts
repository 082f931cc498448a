import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { readAgentEnv } from '../budget/env.ts';
import { budgetLimits, derivePosture, hardStop } from '../budget/posture.ts';
import { KernelError } from '../../../kernel/errors.ts';
import { main } from '../../../cli/main.ts';
import { personaProfileSchema } from '../../../kernel/personas/profile-schema.ts';
import { budgeted, cycleEvents, fakeEnv, fakeTime, packet, profile, run, tempDir } from './helpers.ts';

const usage0 = { tokens_used_24h: 0, sessions_24h: 0, cycles_24h: 0 };

test('environment variables override the profile budget, field by field', () => {
  const p = personaProfileSchema.parse({ id: 'x', runtime: 'agent-x', budget: { daily_tokens: 1000, max_tokens_per_session: 500, wall_seconds_per_cycle: 60 } });
  const env = readAgentEnv({ SCIDEX_AGENT_DAILY_TOKEN_BUDGET: '5000', SCIDEX_AGENT_WALL_SECONDS_PER_CYCLE: '2.5', SCIDEX_AGENT_MAX_AUTONOMOUS_SESSIONS_PER_DAY: ' ' });
  const limits = budgetLimits(p, env);
  assert.equal(limits.daily_tokens, 5000);
  assert.equal(limits.daily_source, 'env');
  assert.equal(limits.max_tokens_per_session, 500, 'from the profile');
  assert.equal(limits.wall_seconds_per_cycle, 2.5);
  assert.equal(limits.max_autonomous_sessions_per_day, 12, 'an empty value is unset: the profile default stays');
  assert.deepEqual(limits.env_overrides, ['SCIDEX_AGENT_DAILY_TOKEN_BUDGET', 'SCIDEX_AGENT_WALL_SECONDS_PER_CYCLE']);
  const posture = derivePosture(limits, p, { tokens_used_24h: 1200, sessions_24h: 1, cycles_24h: 3 });
  assert.equal(posture.source, 'env');
  assert.equal(posture.tokens_remaining_24h, 3800);
  assert.equal(posture.read_only, false);
});

test('an invalid value is refused naming the variable', () => {
  const cases: [Record<string, string>, RegExp][] = [
    [{ SCIDEX_AGENT_DAILY_TOKEN_BUDGET: '-5' }, /^SCIDEX_AGENT_DAILY_TOKEN_BUDGET="-5" is not a whole number/],
    [{ SCIDEX_AGENT_MAX_TOKENS_PER_SESSION: 'lots' }, /^SCIDEX_AGENT_MAX_TOKENS_PER_SESSION="lots"/],
    [{ SCIDEX_AGENT_MIN_TOKENS_REMAINING_FOR_EXECUTOR: '1.5' }, /^SCIDEX_AGENT_MIN_TOKENS_REMAINING_FOR_EXECUTOR/],
    [{ SCIDEX_AGENT_CPU_SECONDS_PER_CYCLE: '0' }, /^SCIDEX_AGENT_CPU_SECONDS_PER_CYCLE="0" is not a number of seconds above zero/],
    [{ SCIDEX_AGENT_WALL_SECONDS_PER_CYCLE: 'NaN' }, /^SCIDEX_AGENT_WALL_SECONDS_PER_CYCLE/],
    [{ SCIDEX_AGENT_MAX_AUTONOMOUS_SESSIONS_PER_DAY: '1e3' }, /^SCIDEX_AGENT_MAX_AUTONOMOUS_SESSIONS_PER_DAY/],
    [{ SCIDEX_AGENT_CONTINUOUS_EXECUTOR: 'GPT 5' }, /^SCIDEX_AGENT_CONTINUOUS_EXECUTOR="GPT 5" is not an executor name \(none, orchestra, codex, claude, command, or any installed executor.<name>\) or plugin id/],
    [{ SCIDEX_AGENT_CONTINUOUS_EXECUTOR_ENABLED: 'yes' }, /^SCIDEX_AGENT_CONTINUOUS_EXECUTOR_ENABLED="yes" is not 0 or 1/],
  ];
  for (const [env, message] of cases) {
    assert.throws(() => readAgentEnv(env), (e: unknown) => e instanceof KernelError && e.code === 'RTC_ERR_ENV_INVALID' && message.test(e.message), JSON.stringify(env));
  }
});

test('an invalid value stops `runtimectl run` at start with one line naming the variable, before any state is written', async () => {
  const dir = tempDir();
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(['run', '--persona', 'jerome', '--cycles', '1', '--state-dir', 'state'], {
    stdout: (t) => out.push(t),
    stderr: (t) => err.push(t),
    cwd: dir,
    env: { SCIDEX_AGENT_DAILY_TOKEN_BUDGET: 'ten thousand' },
  });
  assert.equal(code, 1);
  assert.equal(err.join(''), 'runtimectl: RTC_ERR_ENV_INVALID: SCIDEX_AGENT_DAILY_TOKEN_BUDGET="ten thousand" is not a whole number of zero or more; fix or unset it\n');
  assert.equal(existsSync(path.join(dir, 'state')), false);
});

test('no daily budget: the wallet is advisory only, the posture is read-only and says why', () => {
  const p = personaProfileSchema.parse({ id: 'x', runtime: 'agent-x', wallet: { monthly_token_budget: 3_000_000 } });
  const posture = derivePosture(budgetLimits(p, { budget: {} }), p, usage0);
  assert.equal(posture.source, 'wallet_advisory');
  assert.equal(posture.read_only, true);
  assert.equal(posture.token_budget, null);
  assert.equal(posture.wallet_advisory_daily_tokens, 100_000);
  assert.match(hardStop(posture) ?? '', /^no daily token budget \(the wallet's monthly 3000000 is advisory only\): token-spending executors stay off/);
});

test('hard stops: session cap and headroom below the executor minimum', () => {
  const p = personaProfileSchema.parse({ id: 'x', runtime: 'agent-x', budget: { daily_tokens: 10_000, min_tokens_remaining_for_executor: 2000, max_autonomous_sessions_per_day: 2 } });
  const limits = budgetLimits(p, { budget: {} });
  assert.match(hardStop(derivePosture(limits, p, { tokens_used_24h: 0, sessions_24h: 2, cycles_24h: 2 })) ?? '', /^session cap reached: 2 of 2/);
  assert.match(hardStop(derivePosture(limits, p, { tokens_used_24h: 8500, sessions_24h: 0, cycles_24h: 2 })) ?? '', /^budget headroom too low: 1500 of 10000/);
  assert.equal(hardStop(derivePosture(limits, p, { tokens_used_24h: 7000, sessions_24h: 1, cycles_24h: 2 })), undefined);
});

test('with no daily budget codex never runs: the cycle is read-only planning, plans the work as a task, and the event says so', async () => {
  const dir = tempDir();
  const stateDir = path.join(dir, 'state');
  const p = profile(dir, 'mo', `runtime: agent-mo
executor: { plugin: executor.codex }
wallet: { monthly_token_budget: 900000 }
allow: { read: ["\${state}"], write: ["\${state}"], run: [codex], net: [api.openai.com] }`);
  packet(stateDir, 'mo', 'q.md', '# Plan this\n');
  const [r] = await run([p], { stateDir, cycles: 2, ...fakeTime() });
  for (const report of r!.reports) {
    assert.equal(report.outcome, 'deferred');
    assert.equal(report.act.ran, false);
  }
  const [e1, e2] = cycleEvents(stateDir, 'mo');
  assert.equal(e1!.budget.read_only, true);
  assert.equal(e1!.budget.source, 'wallet_advisory');
  assert.match(e1!.defer_reason, /^no daily token budget .*read-only planning, reflection and task creation only/);
  assert.deepEqual(e1!.tasks_created.map((t: { title: string }) => t.title), ['Planned: Plan this']);
  assert.deepEqual(e2!.tasks_created, [], 'planned once');
  assert.equal(existsSync(path.join(stateDir, 'mo', 'brain', 'sessions', 'c000001-codex')), false, 'no session folder');
  assert.equal(e1!.public_writes_allowed, false);
});

test('SCIDEX_AGENT_DAILY_TOKEN_BUDGET in the environment gives the same persona a budget, and codex runs', async () => {
  const dir = tempDir();
  const stateDir = path.join(dir, 'state');
  const p = profile(dir, 'mo', `runtime: agent-mo
executor: { plugin: executor.codex }
allow: { read: ["\${state}"], write: ["\${state}"], run: [codex], net: [api.openai.com] }`);
  packet(stateDir, 'mo', 'q.md', '# Run this\n');
  const [r] = await run([p], { stateDir, env: fakeEnv({ SCIDEX_AGENT_DAILY_TOKEN_BUDGET: '250000' }), ...fakeTime() });
  assert.equal(r!.reports[0]!.outcome, 'executed');
  const e = cycleEvents(stateDir, 'mo')[0]!;
  assert.equal(e.budget.source, 'env');
  assert.deepEqual(e.budget.env_overrides, ['SCIDEX_AGENT_DAILY_TOKEN_BUDGET']);
});

test('tokens used in the last 24 h are summed from the persona\'s own log, across restarts, and fall out of the window', async () => {
  const dir = tempDir();
  const stateDir = path.join(dir, 'state');
  const p = budgeted(dir, 'ada', 'executor.codex');
  const time = fakeTime();
  packet(stateDir, 'ada', 'a.md', '# First\n');
  await run([p], { stateDir, ...time });
  time.advance(3600_000);
  packet(stateDir, 'ada', 'b.md', '# Second\n');
  await run([p], { stateDir, ...time }); // a new process: usage comes from the log
  time.advance(3600_000);
  await run([p], { stateDir, ...time });
  time.advance(23 * 3600_000);
  await run([p], { stateDir, ...time });
  const budgets = cycleEvents(stateDir, 'ada').map((e) => [e.budget.tokens_used_24h, e.budget.tokens_remaining_24h, e.budget.sessions_24h]);
  assert.deepEqual(budgets, [
    [0, 200000, 0],
    [1500, 198500, 1],
    [3000, 197000, 2],
    [0, 200000, 0],
  ]);
});

test('the session cap stops executor work; the reason names the cap', async () => {
  const dir = tempDir();
  const stateDir = path.join(dir, 'state');
  const p = profile(dir, 'ada', `runtime: agent-ada
executor: { plugin: executor.codex }
budget: { daily_tokens: 500000, max_autonomous_sessions_per_day: 1 }
allow: { read: ["\${state}"], write: ["\${state}"], run: [codex], net: [api.openai.com] }`);
  const time = fakeTime();
  packet(stateDir, 'ada', 'a.md', '# First\n');
  const [first] = await run([p], { stateDir, env: fakeEnv(), ...time });
  assert.equal(first!.reports[0]!.outcome, 'executed');
  packet(stateDir, 'ada', 'b.md', '# Second\n');
  time.advance(60_000);
  const [second] = await run([p], { stateDir, env: fakeEnv(), ...time });
  assert.equal(second!.reports[0]!.outcome, 'deferred');
  assert.match(second!.reports[0]!.defer_reason ?? '', /^session cap reached: 1 of 1 autonomous sessions used in the last 24 h/);
  assert.deepEqual(second!.reports[0]!.act.tasks.map((t) => t.title), ['Planned: Second'], 'the waiting work is planned as a task');
});

test('the VOI policy records its decision before executor work and downshifts low-value periodic work to read-only planning', async () => {
  const dir = tempDir();
  const stateDir = path.join(dir, 'state');
  const p = budgeted(dir, 'ada', 'executor.codex');
  const [r] = await run([p], { stateDir, ...fakeTime() }); // no packet: only the first periodic slot
  const report = r!.reports[0]!;
  assert.equal(report.outcome, 'deferred');
  const d = report.act.decision!;
  assert.equal(d.action, 'read_only_planning');
  assert.equal(d.tier, 1);
  assert.equal(d.expected_improvement, 0.25);
  assert.match(report.defer_reason ?? '', /^read-only planning \(tier 1 considered\): expected improvement 0\.25 is below the bar/);
  for (const field of ['decision', 'uncertainty', 'stop_condition', 'reason'] as const) assert.ok(d[field].length > 10, field);
  assert.deepEqual(Object.keys(d.expected_cost).sort(), ['cpu_seconds', 'tokens', 'wall_seconds']);
  assert.equal(typeof d.reserve.tokens, 'number');
});

test('the VOI policy steps down to a cheaper tier when the chosen one does not fit above the reserve', async () => {
  const dir = tempDir();
  const stateDir = path.join(dir, 'state');
  const p = profile(dir, 'ada', `runtime: agent-ada
executor: { plugin: executor.codex }
phases: [science_compute_patrol]
budget: { daily_tokens: 40000, max_tokens_per_session: 100000 }
allow: { read: ["\${state}"], write: ["\${state}"], run: [codex], net: [api.openai.com] }`);
  packet(stateDir, 'ada', 'q.md', '# Analyse\n');
  const [r] = await run([p], { stateDir, ...fakeTime() });
  const d = r!.reports[0]!.act.decision!;
  // tier 5 (~60000) does not fit in 40000 - 4000 reserve; tier 4 (~8000) does
  assert.equal(d.tier, 4);
  assert.match(d.alternatives.find((a) => a.tier === 5)?.why_not ?? '', /more than the 36000 spendable above the reserve/);
  assert.deepEqual(d.reserve, { tokens: 4000, sessions: 11 });
});
