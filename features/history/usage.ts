/**
 * Tokens and executor sessions spent in the last 24 hours, read from the persona's own
 * event log: each `continuous_loop_cycle` event carries the parsed provider usage of the
 * session it ran (`provider_usage.total_tokens`) and whether a token-spending session ran.
 * Only those events count, so a plugin appending its own events cannot move the figures.
 * The window is rolling (the last 24 h before `now`), not a calendar day.
 */
import type { EventEnvelope } from '../../kernel/events/envelope.ts';
import { readEvents } from '../../kernel/events/verify.ts';

import { CYCLE_EVENT } from '../../kernel/loop/cycle-event.ts';

export { CYCLE_EVENT };
/** A session a crashed kernel left behind, found and ended at the next start: it counts as a session, at its estimate. */
export const INTERRUPTED_EVENT = 'executor_session_interrupted';
export const DAY_MS = 24 * 3600 * 1000;

export interface UsageEntry {
  atMs: number;
  tokens: number;
  /** a token-spending executor session ran in that cycle */
  session: boolean;
}

export interface UsageTotals {
  tokens_used_24h: number;
  sessions_24h: number;
  cycles_24h: number;
}

function numberOr0(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

/** The usage one cycle event records, or undefined for any other event. */
export function usageOfEvent(event: Pick<EventEnvelope, 'type' | 'payload' | 'at'>): UsageEntry | undefined {
  if (event.type === INTERRUPTED_EVENT) {
    const usage = event.payload.provider_usage as Record<string, unknown> | null | undefined;
    // a marker that could not be used (found: invalid) names no session that ran
    return { atMs: Date.parse(event.at), tokens: usage && typeof usage === 'object' ? numberOr0(usage.total_tokens) : 0, session: event.payload.found !== 'invalid' };
  }
  if (event.type !== CYCLE_EVENT) return undefined;
  const usage = event.payload.provider_usage as Record<string, unknown> | null | undefined;
  const executor = event.payload.executor as Record<string, unknown> | undefined;
  return {
    atMs: Date.parse(event.at),
    tokens: usage && typeof usage === 'object' ? numberOr0(usage.total_tokens) : 0,
    session: executor?.ran === true && executor.spends_tokens === true,
  };
}

/**
 * The usage of cycles a fork repair set aside (kernel/events/fork-repair.ts): those tokens
 * were spent, so they still count against the budget although their events left the log.
 */
export function setAsideUsageOfEvent(event: Pick<EventEnvelope, 'type' | 'payload'>): UsageEntry[] {
  if (event.type !== 'log_repaired' || event.payload.reason !== 'forked chain') return [];
  const chains = Array.isArray(event.payload.set_aside) ? (event.payload.set_aside as Record<string, unknown>[]) : [];
  const out: UsageEntry[] = [];
  for (const chain of chains) {
    for (const u of Array.isArray(chain?.usage) ? (chain.usage as Record<string, unknown>[]) : []) {
      const atMs = typeof u?.at === 'string' ? Date.parse(u.at) : Number.NaN;
      if (Number.isFinite(atMs)) out.push({ atMs, tokens: numberOr0(u.tokens), session: u.session === true });
    }
  }
  return out;
}

export class UsageWindow {
  #entries: UsageEntry[] = [];

  /** Reads the log once (a missing log is an empty history). */
  static fromEventLog(file: string, nowMs: number): UsageWindow {
    const window = new UsageWindow();
    for (const event of readEvents(file)) {
      const entry = usageOfEvent(event);
      if (entry && nowMs - entry.atMs < DAY_MS) window.add(entry);
      for (const aside of setAsideUsageOfEvent(event)) if (nowMs - aside.atMs < DAY_MS) window.add(aside);
    }
    return window;
  }

  add(entry: UsageEntry): void {
    this.#entries.push(entry);
  }

  /** Totals for the 24 h before `nowMs`; older entries are dropped for good. */
  totals(nowMs: number): UsageTotals {
    this.#entries = this.#entries.filter((e) => nowMs - e.atMs < DAY_MS);
    let tokens = 0;
    let sessions = 0;
    for (const e of this.#entries) {
      tokens += e.tokens;
      if (e.session) sessions += 1;
    }
    return { tokens_used_24h: tokens, sessions_24h: sessions, cycles_24h: this.#entries.length };
  }
}
