/**
 * Hourly buckets: what a persona did in each clock hour (UTC), by the rules `activity` and
 * the budget count with (features/activity/README.md; event-kinds.ts, usage.ts).
 * A sealed segment's rollup keeps its buckets, so a window of hours is answered from them
 * instead of from the raw events; buckets of different segments that share an hour add up.
 */
import type { EventEnvelope } from '../../kernel/events/envelope.ts';
import { CYCLE_EVENT, CYCLE_OUTCOMES, cycleOutcome, isSession, PLUGIN_EVENT_PREFIX, reasonKey, type CycleOutcome } from './event-kinds.ts';
import { tokensIn } from './tokens.ts';
import { setAsideUsageOfEvent, usageOfEvent } from './usage.ts';

export const HOUR_MS = 3_600_000;

export interface HourBucket {
  /** start of the hour, epoch ms (UTC) */
  hour: number;
  events: number;
  /** tokens by activity's rule: every usage record in a non-plugin payload */
  tokens: number;
  /** autonomous sessions by activity's rule */
  sessions: number;
  cycles: Record<CycleOutcome, number> & { total: number };
  /** [outcome, reason, count]: defer reasons of cycles that did not execute */
  reasons: [CycleOutcome, string, number][];
  /** events by type */
  types: Record<string, number>;
  /** the budget's own figures (usageOfEvent: provider_usage.total_tokens of cycle and interrupted-session events; sessions that spend tokens) */
  budget_tokens: number;
  budget_sessions: number;
}

export function emptyBucket(hour: number): HourBucket {
  return {
    hour,
    events: 0,
    tokens: 0,
    sessions: 0,
    cycles: { total: 0, executed: 0, deferred: 0, idle: 0, failed: 0, interrupted: 0, other: 0 },
    reasons: [],
    types: {},
    budget_tokens: 0,
    budget_sessions: 0,
  };
}

export function hourOf(atMs: number): number {
  return Math.floor(atMs / HOUR_MS) * HOUR_MS;
}

function addReason(bucket: HourBucket, outcome: CycleOutcome, reason: string, n: number): void {
  const found = bucket.reasons.find((r) => r[0] === outcome && r[1] === reason);
  if (found) found[2] += n;
  else bucket.reasons.push([outcome, reason, n]);
}

/** Adds one event to its hour's bucket (created when needed). */
export function addEvent(buckets: Map<number, HourBucket>, event: Pick<EventEnvelope, 'type' | 'payload' | 'at'>): void {
  const atMs = Date.parse(event.at);
  const hour = hourOf(atMs);
  let bucket = buckets.get(hour);
  if (!bucket) buckets.set(hour, (bucket = emptyBucket(hour)));
  bucket.events += 1;
  bucket.types[event.type] = (bucket.types[event.type] ?? 0) + 1;
  if (!event.type.startsWith(PLUGIN_EVENT_PREFIX)) bucket.tokens += tokensIn(event.payload);
  if (isSession(event)) bucket.sessions += 1;
  // The budget's rule (usageOfEvent): cycle events, and sessions a crashed kernel left (interrupted at the next start).
  const usage = usageOfEvent(event);
  if (usage) {
    bucket.budget_tokens += usage.tokens;
    if (usage.session) bucket.budget_sessions += 1;
  }
  if (event.type !== CYCLE_EVENT) return;
  const outcome = cycleOutcome(event.payload);
  bucket.cycles.total += 1;
  bucket.cycles[outcome] += 1;
  if (outcome === 'executed') return;
  const key = reasonKey(event.payload);
  if (key !== undefined) addReason(bucket, outcome, key, 1);
}

/** Adds bucket `from` into `into` (the same hour). */
export function mergeInto(into: HourBucket, from: HourBucket): void {
  into.events += from.events;
  into.tokens += from.tokens;
  into.sessions += from.sessions;
  into.budget_tokens += from.budget_tokens;
  into.budget_sessions += from.budget_sessions;
  into.cycles.total += from.cycles.total;
  for (const o of [...CYCLE_OUTCOMES, 'other'] as const) into.cycles[o] += from.cycles[o];
  for (const [outcome, reason, n] of from.reasons) addReason(into, outcome, reason, n);
  for (const [type, n] of Object.entries(from.types)) into.types[type] = (into.types[type] ?? 0) + n;
}

/** Buckets of several sources added by hour, in hour order. */
export function mergeBuckets(lists: Iterable<Iterable<HourBucket>>): HourBucket[] {
  const byHour = new Map<number, HourBucket>();
  for (const list of lists) {
    for (const b of list) {
      let into = byHour.get(b.hour);
      if (!into) byHour.set(b.hour, (into = emptyBucket(b.hour)));
      mergeInto(into, b);
    }
  }
  return [...byHour.values()].sort((a, b) => a.hour - b.hour);
}

/**
 * The usage of cycles a fork repair set aside (setAsideUsageOfEvent): spent, so the budget's
 * figures count it, in the hour it was spent (not the repair's), when `keep(atMs)` allows.
 * It adds no event, token or session by activity's rules: those events left the log.
 */
export function addSetAsideUsage(buckets: Map<number, HourBucket>, event: Pick<EventEnvelope, 'type' | 'payload'>, keep?: (atMs: number) => boolean): void {
  for (const aside of setAsideUsageOfEvent(event)) {
    if (keep && !keep(aside.atMs)) continue;
    const hour = hourOf(aside.atMs);
    let bucket = buckets.get(hour);
    if (!bucket) buckets.set(hour, (bucket = emptyBucket(hour)));
    bucket.budget_tokens += aside.tokens;
    if (aside.session) bucket.budget_sessions += 1;
  }
}

/** The buckets of some events, those with `keep(atMs)` only when given. */
export function bucketsOf(events: Iterable<Pick<EventEnvelope, 'type' | 'payload' | 'at'>>, keep?: (atMs: number) => boolean): HourBucket[] {
  const buckets = new Map<number, HourBucket>();
  for (const event of events) {
    addSetAsideUsage(buckets, event, keep);
    if (keep && !keep(Date.parse(event.at))) continue;
    addEvent(buckets, event);
  }
  return [...buckets.values()].sort((a, b) => a.hour - b.hour);
}
