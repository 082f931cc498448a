/**
 * The history counts by the budget's and activity's own rules: the fold a checkpoint keeps
 * gives the loop's 24-hour window exactly what a UsageWindow fed every event (usageOfEvent)
 * gives (tokens and sessions exactly; idle cycles to the minute), sessions a crashed kernel
 * left (`executor_session_interrupted`) included; a fold
 * carried through its checkpoint state gives the same; hourly buckets of segments cut anywhere
 * add up to those of all the events, count interrupted cycles as their own outcome and carry
 * the budget's tokens and sessions; a rollup holding them parses.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { HistoryFold } from '../fold.ts';
import { bucketsOf, mergeBuckets } from '../buckets.ts';
import { rollupIn, rollupOf } from '../rollup.ts';
import { CYCLE_EVENT, DAY_MS, INTERRUPTED_EVENT, UsageWindow, usageOfEvent } from '../usage.ts';
import { CYCLE_OUTCOMES } from '../event-kinds.ts';
import type { EventEnvelope } from '../../../kernel/events/envelope.ts';

const START = Date.parse('2026-03-01T00:00:00Z');
const NOW = START + 3 * DAY_MS;

const eventSpec = fc.record({
  kind: fc.constantFrom('cycle', 'interrupted', 'other'),
  atMs: fc.integer({ min: START, max: NOW }),
  tokens: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 50_000 })),
  ran: fc.boolean(),
  spends: fc.boolean(),
  outcome: fc.constantFrom(...CYCLE_OUTCOMES, 'something else'),
});

type EventSpec = typeof eventSpec extends fc.Arbitrary<infer T> ? T : never;

function envelopes(specs: EventSpec[]): EventEnvelope[] {
  const sorted = [...specs].sort((a, b) => a.atMs - b.atMs);
  return sorted.map((s, i) => {
    const usage = s.tokens > 0 ? { total_tokens: s.tokens } : null;
    const payload: Record<string, unknown> =
      s.kind === 'cycle'
        ? { cycle: i + 1, phase: 'science_patrol', outcome: s.outcome, provider_usage: usage, executor: { plugin: 'executor.x', enabled: true, ran: s.ran, spends_tokens: s.spends }, ...(s.outcome === 'executed' ? {} : { defer_reason: `${s.outcome}: why` }) }
        : s.kind === 'interrupted'
          ? { run_id: `r${i}`, session: `sessions/r${i}`, found: 'running', ended: 'killed', sandboxed: true, reason: 'interrupted: crash', provider_usage: usage }
          : { note: i };
    const type = s.kind === 'cycle' ? CYCLE_EVENT : s.kind === 'interrupted' ? INTERRUPTED_EVENT : 'persona_start';
    return { v: 1, seq: i + 1, at: new Date(s.atMs).toISOString(), type, payload, prev: '0'.repeat(64), hash: '0'.repeat(64) } as unknown as EventEnvelope;
  });
}

test('the fold and its checkpoint state give the budget window what a UsageWindow of every event gives (idle cycles to the minute)', () => {
  fc.assert(
    fc.property(fc.array(eventSpec, { maxLength: 120 }), fc.integer({ min: 0, max: DAY_MS }), (specs, back) => {
      const events = envelopes(specs);
      const nowMs = NOW - back;
      const fold = new HistoryFold();
      const window = new UsageWindow();
      for (const e of events) {
        fold.add(e);
        const entry = usageOfEvent(e);
        if (entry && Date.parse(e.at) <= nowMs) window.add(entry);
      }
      // the window's own rule drops what is 24 h old; events after nowMs do not exist yet
      const upTo = new HistoryFold();
      for (const e of events) if (Date.parse(e.at) <= nowMs) upTo.add(e);
      const expected = window.totals(nowMs);
      // Idle cycles are kept per minute: one in the window's oldest minute may fall out early.
      const edgeIdle = events.filter((e) => {
        const u = usageOfEvent(e);
        const age = nowMs - Date.parse(e.at);
        return u && u.tokens === 0 && !u.session && age >= 0 && age < DAY_MS && age >= DAY_MS - 60_000;
      }).length;
      const fromEntries = new UsageWindow();
      for (const entry of HistoryFold.from(upTo.toState(nowMs)).usageEntries(nowMs)) fromEntries.add(entry);
      const got: [string, { tokens_used_24h: number; sessions_24h: number; cycles_24h: number }][] = [
        ['the fold', upTo.usageTotals(nowMs)],
        ['through the checkpoint state', HistoryFold.from(upTo.toState(nowMs)).usageTotals(nowMs)],
        ['the entries the loop is started with', fromEntries.totals(nowMs)],
      ];
      for (const [what, totals] of got) {
        assert.equal(totals.tokens_used_24h, expected.tokens_used_24h, what);
        assert.equal(totals.sessions_24h, expected.sessions_24h, what);
        assert.ok(totals.cycles_24h <= expected.cycles_24h && totals.cycles_24h >= expected.cycles_24h - edgeIdle, `${what}: ${totals.cycles_24h} cycles against ${expected.cycles_24h} (${edgeIdle} idle in the oldest minute)`);
      }
      assert.equal(fold.cycles, events.filter((e) => e.type === CYCLE_EVENT).length);
    }),
    { numRuns: 150 },
  );
});

test('interrupted sessions count toward the budget window, and survive a checkpoint', () => {
  const events = envelopes([
    { kind: 'cycle', atMs: NOW - 3_600_000, tokens: 0, ran: false, spends: false, outcome: 'idle' },
    { kind: 'interrupted', atMs: NOW - 1_800_000, tokens: 1234, ran: false, spends: false, outcome: 'idle' },
    { kind: 'cycle', atMs: NOW - 600_000, tokens: 10, ran: true, spends: true, outcome: 'interrupted' },
  ]);
  const fold = new HistoryFold();
  for (const e of events) fold.add(e);
  const totals = HistoryFold.from(fold.toState(NOW)).usageTotals(NOW);
  assert.equal(totals.sessions_24h, 2, 'the interrupted session and the session of the interrupted cycle');
  assert.equal(totals.tokens_used_24h, 1244);
});

test('buckets of segments cut anywhere add up to those of all the events, with the budget figures and interrupted cycles', () => {
  fc.assert(
    fc.property(fc.array(eventSpec, { maxLength: 120 }), fc.array(fc.nat(), { maxLength: 4 }), (specs, cutSeeds) => {
      const events = envelopes(specs);
      const cuts = [...new Set(cutSeeds.map((c) => (events.length === 0 ? 0 : c % (events.length + 1))))].sort((a, b) => a - b);
      const segments: EventEnvelope[][] = [];
      let from = 0;
      for (const cut of [...cuts, events.length]) {
        segments.push(events.slice(from, cut));
        from = cut;
      }
      const all = bucketsOf(events);
      assert.deepEqual(mergeBuckets(segments.map((s) => bucketsOf(s))), all);
      for (const s of segments) assert.ok(rollupIn({ rollup: rollupOf(s) }), 'a rollup of any segment parses');

      const entries = events.map((e) => usageOfEvent(e)).filter((u) => u !== undefined);
      assert.equal(all.reduce((n, b) => n + b.budget_sessions, 0), entries.filter((u) => u.session).length);
      assert.equal(all.reduce((n, b) => n + b.budget_tokens, 0), entries.reduce((n, u) => n + u.tokens, 0));
      const interruptedCycles = events.filter((e) => e.type === CYCLE_EVENT && e.payload.outcome === 'interrupted').length;
      assert.equal(all.reduce((n, b) => n + b.cycles.interrupted, 0), interruptedCycles);
    }),
    { numRuns: 150 },
  );
});

test('usage a fork repair set aside counts toward the budget window and the budget buckets, in the hour it was spent', () => {
  const spentAt = NOW - 5 * 3_600_000;
  const repair = {
    v: 1,
    seq: 1,
    at: new Date(NOW - 600_000).toISOString(),
    type: 'log_repaired',
    payload: { reason: 'forked chain', set_aside: [{ usage: [{ at: new Date(spentAt).toISOString(), tokens: 700, session: true }, { at: new Date(NOW - 2 * DAY_MS).toISOString(), tokens: 5, session: true }] }] },
    prev: '0'.repeat(64),
    hash: '0'.repeat(64),
  } as unknown as EventEnvelope;
  const fold = new HistoryFold();
  fold.add(repair);
  const totals = HistoryFold.from(fold.toState(NOW)).usageTotals(NOW);
  assert.equal(totals.tokens_used_24h, 700, 'the one spent in the last 24 h');
  assert.equal(totals.sessions_24h, 1);
  const buckets = bucketsOf([repair], (at) => at > NOW - DAY_MS && at <= NOW);
  const spentHour = buckets.find((b) => b.hour === Math.floor(spentAt / 3_600_000) * 3_600_000);
  assert.equal(spentHour?.budget_tokens, 700);
  assert.equal(spentHour?.budget_sessions, 1);
  assert.equal(spentHour?.events, 0, 'the set-aside events left the log: no event is counted for them');
  assert.equal(buckets.reduce((n, b) => n + b.events, 0), 1, 'the repair event itself');
});
