/**
 * What a persona's history adds up to, folded event by event: the count of events and
 * cycles, the last cycle (what `status` shows of it) and last defer reason, the budget's
 * 24-hour usage window and the daily counts. A checkpoint keeps this state (checkpoint.ts)
 * so start-up and `status` fold only the events after it; a segment's rollup keeps the same
 * facts for that segment alone, with its hourly buckets (rollup.ts).
 *
 * The usage window holds every cycle that spent tokens or ran a session exactly (the budget
 * is computed from them), and the other cycles as counts per minute, so it stays small
 * whatever the cadence: a persona cycling every second keeps 1,440 counts, not 86,400 entries.
 */
import { z } from 'zod';
import type { EventEnvelope } from '../../kernel/events/envelope.ts';
import { CYCLE_EVENT, DAY_MS, setAsideUsageOfEvent, usageOfEvent, type UsageEntry } from './usage.ts';

const MINUTE_MS = 60_000;
/** Daily counts kept: a month. */
export const DAILY_DAYS = 31;

export const cycleSummarySchema = z.object({
  cycle: z.number(),
  seq: z.number().int(),
  at: z.string(),
  phase: z.string(),
  outcome: z.string(),
  runtime: z.string().nullable(),
  budget: z.object({
    source: z.string(),
    token_budget: z.number().nullable(),
    max_autonomous_sessions_per_day: z.number().nullable(),
    read_only: z.boolean(),
  }),
  executor: z.object({ plugin: z.string(), enabled: z.boolean(), ran: z.boolean(), status: z.string().nullable() }),
});
export type CycleSummary = z.infer<typeof cycleSummarySchema>;

export const deferSummarySchema = z.object({ cycle: z.number(), reason: z.string() });
export type DeferSummary = z.infer<typeof deferSummarySchema>;

export const historyStateSchema = z.object({
  v: z.literal(1),
  events: z.number().int().min(0),
  cycles: z.number().int().min(0),
  last_cycle: cycleSummarySchema.nullable(),
  last_defer: deferSummarySchema.nullable(),
  usage: z.object({
    /** [at ms, tokens, 1 when a token-spending session ran] */
    spend: z.array(z.tuple([z.number(), z.number(), z.union([z.literal(0), z.literal(1)])])),
    /** [minute start ms, cycles that spent nothing] */
    idle: z.array(z.tuple([z.number(), z.number().int()])),
  }),
  /** [UTC day, cycles, sessions, tokens] */
  daily: z.array(z.tuple([z.string(), z.number().int(), z.number().int(), z.number()])),
});
export type HistoryState = z.infer<typeof historyStateSchema>;

type Payload = Record<string, unknown>;

function record(value: unknown): Payload {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Payload) : {};
}

/** What `status` shows of a cycle event. */
export function cycleSummaryOf(event: Pick<EventEnvelope, 'seq' | 'payload' | 'at'>): CycleSummary {
  const p = event.payload;
  const budget = record(p.budget);
  const executor = record(p.executor);
  return {
    cycle: Number(p.cycle),
    seq: event.seq,
    at: event.at,
    phase: String(p.phase),
    outcome: String(p.outcome),
    runtime: typeof p.runtime === 'string' ? p.runtime : null,
    budget: {
      source: String(budget.source ?? 'none'),
      token_budget: typeof budget.token_budget === 'number' ? budget.token_budget : null,
      max_autonomous_sessions_per_day: typeof budget.max_autonomous_sessions_per_day === 'number' ? budget.max_autonomous_sessions_per_day : null,
      read_only: budget.read_only === true,
    },
    executor: { plugin: String(executor.plugin), enabled: executor.enabled === true, ran: executor.ran === true, status: typeof executor.status === 'string' ? executor.status : null },
  };
}

export function dayOf(atMs: number): string {
  return new Date(atMs).toISOString().slice(0, 10);
}

export class HistoryFold {
  events = 0;
  cycles = 0;
  lastCycle: CycleSummary | null = null;
  lastDefer: DeferSummary | null = null;
  readonly #spend: UsageEntry[] = [];
  readonly #idle = new Map<number, number>();
  readonly #daily = new Map<string, [number, number, number]>();

  static from(state: HistoryState | undefined): HistoryFold {
    const fold = new HistoryFold();
    if (!state) return fold;
    fold.events = state.events;
    fold.cycles = state.cycles;
    fold.lastCycle = state.last_cycle;
    fold.lastDefer = state.last_defer;
    for (const [atMs, tokens, session] of state.usage.spend) fold.#spend.push({ atMs, tokens, session: session === 1 });
    for (const [minute, n] of state.usage.idle) fold.#idle.set(minute, n);
    for (const [day, cycles, sessions, tokens] of state.daily) fold.#daily.set(day, [cycles, sessions, tokens]);
    return fold;
  }

  add(event: Pick<EventEnvelope, 'seq' | 'type' | 'payload' | 'at'>): void {
    this.events += 1;
    // The budget's window counts what usageOfEvent counts: cycles, and sessions found interrupted at a start.
    const usage = usageOfEvent(event);
    if (usage) this.addUsage(usage);
    // Cycles a fork repair set aside were spent: they still count against the budget.
    for (const aside of setAsideUsageOfEvent(event)) this.addUsage(aside);
    if (event.type !== CYCLE_EVENT) return;
    this.cycles += 1;
    this.lastCycle = cycleSummaryOf(event);
    if (typeof event.payload.defer_reason === 'string') this.lastDefer = { cycle: Number(event.payload.cycle), reason: event.payload.defer_reason };
  }

  /** One cycle's usage, as the loop also learns it when the cycle ends. */
  addUsage(usage: UsageEntry): void {
    if (usage.tokens > 0 || usage.session) this.#spend.push(usage);
    else {
      const minute = Math.floor(usage.atMs / MINUTE_MS) * MINUTE_MS;
      this.#idle.set(minute, (this.#idle.get(minute) ?? 0) + 1);
    }
    const day = dayOf(usage.atMs);
    const d = this.#daily.get(day) ?? [0, 0, 0];
    d[0] += 1;
    if (usage.session) d[1] += 1;
    d[2] += usage.tokens;
    this.#daily.set(day, d);
  }

  /**
   * The 24 h before `nowMs`: tokens, sessions, cycles (minute-exact for cycles that spent
   * nothing). Older entries are dropped for good, as the loop's window always did.
   */
  usageTotals(nowMs: number): { tokens_used_24h: number; sessions_24h: number; cycles_24h: number } {
    for (let i = this.#spend.length - 1; i >= 0; i--) if (nowMs - this.#spend[i]!.atMs >= DAY_MS) this.#spend.splice(i, 1);
    for (const minute of [...this.#idle.keys()]) if (nowMs - minute >= DAY_MS) this.#idle.delete(minute);
    let tokens = 0;
    let sessions = 0;
    let cycles = 0;
    for (const e of this.#spend) {
      if (nowMs - e.atMs < DAY_MS) {
        tokens += e.tokens;
        if (e.session) sessions += 1;
        cycles += 1;
      }
    }
    for (const [minute, n] of this.#idle) if (nowMs - minute < DAY_MS) cycles += n;
    return { tokens_used_24h: tokens, sessions_24h: sessions, cycles_24h: cycles };
  }

  /** The usage entries of the last 24 h, for the loop's UsageWindow. */
  usageEntries(nowMs: number): UsageEntry[] {
    const out = this.#spend.filter((e) => nowMs - e.atMs < DAY_MS);
    for (const [minute, n] of this.#idle) {
      if (nowMs - minute < DAY_MS) for (let i = 0; i < n; i++) out.push({ atMs: minute, tokens: 0, session: false });
    }
    return out;
  }

  daily(): HistoryState['daily'] {
    return [...this.#daily.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([day, [c, s, t]]) => [day, c, s, t]);
  }

  /** The state to keep, with the windows cut to what `nowMs` still needs. */
  toState(nowMs: number): HistoryState {
    const firstDay = dayOf(nowMs - (DAILY_DAYS - 1) * DAY_MS);
    return {
      v: 1,
      events: this.events,
      cycles: this.cycles,
      last_cycle: this.lastCycle,
      last_defer: this.lastDefer,
      usage: {
        spend: this.#spend.filter((e) => nowMs - e.atMs < DAY_MS).map((e) => [e.atMs, e.tokens, e.session ? 1 : 0]),
        idle: [...this.#idle.entries()].filter(([minute]) => nowMs - minute < DAY_MS).sort(([a], [b]) => a - b),
      },
      daily: this.daily().filter(([day]) => day >= firstDay),
    };
  }
}
