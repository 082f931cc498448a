/**
 * `runtimectl activity` on a synthetic event log with known counts: events and events per
 * hour, tokens (usage records at any depth, window figures and plugin events excluded),
 * autonomous sessions per day, cycles by outcome and defer reasons; the same figures whichever
 * backend holds the log; bad windows are one usage line (exit 2).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { main } from '../../../cli/main.ts';
import type { CliIo } from '../../command/command.ts';
import { activityOf, type PersonaActivity } from '../index.ts';
import { tokensIn } from '../../history/tokens.ts';
import { parseSince } from '../../history/window.ts';
import { openBackend, writePersistenceConfig } from '../../persistence/index.ts';

const H = 3_600_000;

function cycle(outcome: string | null, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { loop: 'continuous_science_loop', ...(outcome === null ? {} : { outcome }), budget: { tokens_used_24h: 99_999, tokens_remaining_24h: 5 }, ...extra };
}

const ran = { ran: true, spends_tokens: true };

/** [hours before now, type, payload] */
function synthetic(): [number, string, Record<string, unknown>][] {
  const events: [number, string, Record<string, unknown>][] = [];
  for (let i = 0; i < 5; i++) events.push([30, 'continuous_loop_cycle', cycle('executed', { executor: ran, provider_usage: { total_tokens: 1000 } })]);
  events.push([23, 'persona_start', { persona_id: 'p' }]);
  for (let i = 0; i < 3; i++) events.push([10, 'continuous_loop_cycle', cycle('deferred', { defer_reason: `session cap reached: ${12 + i} of 12 autonomous sessions used in the last 24 h`, executor: { ran: false, spends_tokens: true } })]);
  for (let i = 0; i < 2; i++) events.push([10, 'continuous_loop_cycle', cycle('deferred', { defer_reason: 'no daily token budget: token-spending executors stay off' })]);
  events.push([9, 'continuous_loop_cycle', cycle('idle', { defer_reason: 'nothing to do: no new work packet, direct message or cadence slot' })]);
  events.push([9, 'continuous_loop_cycle', cycle('failed', { defer_reason: 'executor executor.codex: RTC_ERR_SANDBOX_WALL: too slow', executor: ran, provider_usage: { input_tokens: 10, output_tokens: 5 } })]);
  events.push([8, 'plugin.note', { output_tokens: 1_000_000, session: {}, usage: {} }]);
  events.push([8, 'executor_session', { session: { run_id: 'r1' }, usage: { total_tokens: 200 } }]);
  events.push([7, 'continuous_loop_cycle', cycle(null, { executed: true, result: [{ usage: { input_tokens: 7, output_tokens: 3, cache_read_input_tokens: 10, cached_input_tokens: 5 } }] })]);
  for (let i = 0; i < 4; i++) events.push([1, 'continuous_loop_cycle', cycle('executed', { executor: ran, provider_usage: { input_tokens: 100, output_tokens: 50, total_tokens: 150, reasoning_tokens: 20 } })]);
  return events;
}

async function writeLog(dir: string, backend: string, nowMs: number): Promise<void> {
  const events = synthetic();
  let i = 0;
  const clock = () => new Date(nowMs - events[Math.min(i, events.length - 1)]![0] * H);
  const store = await openBackend(dir, backend, { now: clock });
  for (; i < events.length; i++) await store.events.append(events[i]![1], events[i]![2]);
  await store.close();
}

const EXPECTED_24H = {
  events: 15,
  events_per_hour: 0.63,
  tokens: 600 + 15 + 200 + 20,
  tokens_per_hour: 34.79,
  sessions: 6,
  sessions_per_day: 6,
  cycles: { total: 12, executed: 5, deferred: 5, idle: 1, failed: 1, interrupted: 0, other: 0 },
  defer_reasons: [
    { reason: 'session cap reached', outcome: 'deferred', count: 3 },
    { reason: 'no daily token budget', outcome: 'deferred', count: 2 },
    { reason: 'executor executor.codex', outcome: 'failed', count: 1 },
    { reason: 'nothing to do', outcome: 'idle', count: 1 },
  ],
};

function figures(a: PersonaActivity) {
  const { events, events_per_hour, tokens, tokens_per_hour, sessions, sessions_per_day, cycles, defer_reasons } = a;
  return { events, events_per_hour, tokens, tokens_per_hour, sessions, sessions_per_day, cycles, defer_reasons };
}

test('tokens are usage records at any depth, counted once; window figures are not spending', () => {
  assert.equal(tokensIn({ a: { b: [{ usage: { total_tokens: 5, input_tokens: 3, output_tokens: 2 } }] } }), 5);
  assert.equal(tokensIn({ input_tokens: 3, output_tokens: 2, cached_input_tokens: 2, reasoning_tokens: 1 }), 5);
  assert.equal(tokensIn({ input_tokens: 3, cache_creation_input_tokens: 4, cache_read_input_tokens: 5 }), 12);
  assert.equal(tokensIn({ tokens_used_24h: 500, tokens_remaining_24h: 7, expected_cost: { tokens: 9 } }), 0);
  assert.equal(tokensIn({ one: { total_tokens: 1 }, two: { total_tokens: 2 }, bad: { total_tokens: -4 } }), 3);
});

test('--since takes a positive number of minutes, hours or days', () => {
  assert.deepEqual(['30m', '24h', '7d'].map(parseSince), [30 * 60_000, 24 * H, 7 * 24 * H]);
  for (const bad of ['24', 'h', '0h', '-1h', '1.5h', '24x', '1w', ' 24h', '400d']) {
    assert.throws(() => parseSince(bad), (e: Error & { code?: string }) => e.code === 'RTC_ERR_CLI_USAGE' && !e.message.includes('\n'), bad);
  }
});

test('activity of a synthetic log has the known counts, on either backend', async () => {
  const nowMs = Date.parse('2030-06-01T12:00:00.000Z');
  for (const backend of ['jsonl-fs', 'sqlite']) {
    const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'rtc-')), 'p');
    fs.mkdirSync(dir);
    await writeLog(dir, backend, nowMs);
    const store = await openBackend(dir, backend, { readonly: true });
    const day = activityOf(store.events.read(), { persona: 'p', backend, windowMs: 24 * H, nowMs });
    assert.deepEqual(figures(day), EXPECTED_24H, backend);
    assert.deepEqual(day.window, { since: '2030-05-31T12:00:00.000Z', until: '2030-06-01T12:00:00.000Z', hours: 24 });
    assert.equal(day.event_types[0]?.type, 'continuous_loop_cycle');
    const recent = activityOf(store.events.read(), { persona: 'p', backend, windowMs: 2 * H, nowMs });
    assert.deepEqual([recent.events, recent.events_per_hour, recent.tokens, recent.sessions, recent.sessions_per_day, recent.cycles.executed], [4, 2, 600, 4, 48, 4]);
    const all = activityOf(store.events.read(), { persona: 'p', backend, windowMs: 7 * 24 * H, nowMs });
    assert.deepEqual([all.events, all.tokens, all.sessions, all.cycles.executed], [20, 5835, 11, 10]);
    await store.close();
  }
});

async function cli(args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), cwd: os.tmpdir(), env: {} };
  const status = await main(['activity', ...args], io);
  return { status, stdout, stderr };
}

test('runtimectl activity reports every persona through its own backend, text and --json', async () => {
  const state = fs.mkdtempSync(path.join(os.tmpdir(), 'rtc-'));
  const nowMs = Date.now();
  for (const [persona, backend] of [['jsonl', 'jsonl-fs'], ['lite', 'sqlite']] as const) {
    const dir = path.join(state, persona);
    fs.mkdirSync(dir);
    await writeLog(dir, backend, nowMs);
    if (backend === 'sqlite') writePersistenceConfig(dir, 'sqlite');
  }
  const json = await cli(['--state-dir', state, '--json']);
  assert.equal(json.status, 0, json.stderr);
  const doc = JSON.parse(json.stdout) as { window: string; personas: PersonaActivity[] };
  assert.equal(doc.window, '24h');
  assert.deepEqual(doc.personas.map((p) => [p.persona, p.backend]), [['jsonl', 'jsonl-fs'], ['lite', 'sqlite']]);
  for (const p of doc.personas) assert.deepEqual(figures(p), EXPECTED_24H);

  const text = await cli(['--state-dir', state, '--persona', 'lite', '--since', '2h']);
  assert.equal(text.status, 0);
  assert.match(text.stdout, /^lite \(sqlite\)$/m);
  assert.match(text.stdout, /^ {2}events {5}4 \(2\/h\)$/m);
  assert.match(text.stdout, /^ {2}tokens {5}600 \(300\/h\)$/m);
  assert.match(text.stdout, /^ {2}sessions {3}4 \(48\/day\)$/m);
  assert.match(text.stdout, /^ {2}cycles {5}4: 4 executed, 0 deferred, 0 idle, 0 failed$/m);
  assert.doesNotMatch(text.stdout, /jsonl/);
  const day = await cli(['--state-dir', state, '--persona', 'jsonl']);
  assert.match(day.stdout, /^ {2}defer reasons\n {4} {4}3 {2}deferred {2}session cap reached\n {4} {4}2 {2}deferred {2}no daily token budget$/m);

  for (const bad of ['24', '0m', '3w']) {
    const out = await cli(['--state-dir', state, '--since', bad]);
    assert.equal(out.status, 2, bad);
    assert.equal(out.stderr.split('\n').length, 2, 'one line');
    assert.match(out.stderr, /^runtimectl: RTC_ERR_CLI_USAGE: --since /);
  }
  const nobody = await cli(['--state-dir', state, '--persona', 'nobody']);
  assert.equal(nobody.status, 1);
  assert.match(nobody.stderr, /RTC_ERR_PERSONA_NOT_FOUND: persona nobody has no folder/);

  // A damaged log is reported for its persona; the others still are, and the exit is 1.
  const log = path.join(state, 'jsonl', 'logs', 'events.jsonl');
  fs.writeFileSync(log, fs.readFileSync(log, 'utf8').replace('"persona_id":"p"', '"persona_id":"q"'));
  const damaged = await cli(['--state-dir', state]);
  assert.equal(damaged.status, 1);
  assert.match(damaged.stdout, /^jsonl {2}error: RTC_ERR_EVENTS_CHAIN: .*events\.jsonl:6 \(seq 6\): hash/m);
  assert.match(damaged.stdout, /^lite \(sqlite\)$/m);
});
