/**
 * One persona's activity over a window, from its event log (read through its persistence
 * backend). Time is each event's `at` (wall clock, outside the hash); rates are over the
 * whole window asked for, not over the span the events happen to cover. README.md in this
 * folder is the contract with the loop's event fields.
 */
import type { EventEnvelope } from '../../kernel/events/envelope.ts';
import { bucketsOf, type HourBucket } from '../history/buckets.ts';
import { CYCLE_OUTCOMES, type CycleOutcome } from '../history/event-kinds.ts';

export interface DeferReasonCount {
  /** `defer_code` when the cycle gives one, else the reason's head (the text before its first ":" or " ("). */
  reason: string;
  outcome: CycleOutcome;
  count: number;
}

export interface ActivityWindow {
  /** ISO times; events with since <= at <= until count. */
  since: string;
  until: string;
  hours: number;
}

export interface PersonaActivity {
  persona: string;
  backend: string;
  window: ActivityWindow;
  events: number;
  events_per_hour: number;
  tokens: number;
  tokens_per_hour: number;
  sessions: number;
  sessions_per_day: number;
  cycles: Record<CycleOutcome, number> & { total: number };
  defer_reasons: DeferReasonCount[];
  /** Events in the window by type, most frequent first. */
  event_types: { type: string; count: number }[];
  /** The window hour by hour (UTC clock hours that had events), oldest first. */
  hourly: HourlyActivity[];
}

function round(value: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

export interface ActivityOptions {
  persona: string;
  backend: string;
  /** Window length and end, in epoch milliseconds. */
  windowMs: number;
  nowMs: number;
}

export function activityOf(events: Iterable<Pick<EventEnvelope, 'type' | 'payload' | 'at'>>, options: ActivityOptions): PersonaActivity {
  const start = options.nowMs - options.windowMs;
  return activityFromBuckets(bucketsOf(events, (at) => at >= start && at <= options.nowMs), options);
}

/** One hour of activity, as `activity --json` lists them (`hourly`). */
export interface HourlyActivity {
  hour: string;
  events: number;
  tokens: number;
  sessions: number;
  cycles: number;
}

/**
 * The figures from hourly buckets holding only events inside the window (features/history
 * answers a window from sealed segments' rollups this way, reading raw events only where a
 * segment straddles the window's edge).
 */
export function activityFromBuckets(buckets: readonly HourBucket[], options: ActivityOptions): PersonaActivity {
  const start = options.nowMs - options.windowMs;
  const hours = options.windowMs / 3_600_000;
  const cycles: PersonaActivity['cycles'] = { total: 0, executed: 0, deferred: 0, idle: 0, failed: 0, interrupted: 0, other: 0 };
  const reasons = new Map<string, DeferReasonCount>();
  const types = new Map<string, number>();
  let count = 0;
  let tokens = 0;
  let sessions = 0;
  for (const b of buckets) {
    count += b.events;
    tokens += b.tokens;
    sessions += b.sessions;
    cycles.total += b.cycles.total;
    for (const o of [...CYCLE_OUTCOMES, 'other'] as const) cycles[o] += b.cycles[o];
    for (const [type, n] of Object.entries(b.types)) types.set(type, (types.get(type) ?? 0) + n);
    for (const [outcome, reason, n] of b.reasons) {
      const id = `${outcome}\0${reason}`;
      const entry = reasons.get(id) ?? { reason, outcome, count: 0 };
      entry.count += n;
      reasons.set(id, entry);
    }
  }
  const byCount = <T extends { count: number }>(a: T, b: T, name: (x: T) => string) => b.count - a.count || (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0);
  return {
    persona: options.persona,
    backend: options.backend,
    window: { since: new Date(start).toISOString(), until: new Date(options.nowMs).toISOString(), hours: round(hours, 3) },
    events: count,
    events_per_hour: round(count / hours),
    tokens,
    tokens_per_hour: round(tokens / hours),
    sessions,
    sessions_per_day: round(sessions / (hours / 24)),
    cycles,
    defer_reasons: [...reasons.values()].sort((a, b) => byCount(a, b, (x) => `${x.outcome} ${x.reason}`)),
    event_types: [...types].map(([type, n]) => ({ type, count: n })).sort((a, b) => byCount(a, b, (x) => x.type)),
    hourly: buckets.map((b) => ({ hour: new Date(b.hour).toISOString(), events: b.events, tokens: b.tokens, sessions: b.sessions, cycles: b.cycles.total })),
  };
}
