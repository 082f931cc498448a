/**
 * A persona's health badge, from its status row alone (features/history/read-path.ts):
 *
 * - failing: its history cannot be read, or its last cycle failed or was interrupted;
 * - stopped: no cycle for longer than `staleAfterMs` (a running loop logs every cycle, even a quiet one);
 * - deferred-by-budget: the last cycle was deferred and the budget is why (read-only, session
 *   cap, tokens below the executor's floor);
 * - working: the last cycle executed;
 * - healthy-quiet: the last cycle was idle, or deferred for a reason other than the budget.
 */
import type { PersonaSummary } from '../history/read-path.ts';

export const HEALTH = ['healthy-quiet', 'working', 'deferred-by-budget', 'failing', 'stopped'] as const;
export type Health = (typeof HEALTH)[number];

/**
 * Defers that are not the budget's (features/science-loop/decide.ts): --no-spend, a reviewer
 * handoff, a disabled executor, a stopping kernel. Every other defer is the budget posture's
 * hard stop or the policy's downshift to read-only planning.
 */
const NOT_BUDGET = /^(not launched:|reviewer handoff|executor \S+ is disabled|the kernel is stopping)/;

export function healthOf(summary: PersonaSummary, nowMs: number, staleAfterMs: number): Health {
  const last = summary.last_cycle;
  if (!last) return 'stopped';
  if (last.outcome === 'failed' || last.outcome === 'interrupted') return 'failing';
  if (nowMs - Date.parse(last.at) > staleAfterMs) return 'stopped';
  if (last.outcome === 'executed') return 'working';
  if (last.outcome === 'deferred') {
    const b = summary.budget;
    const reason = summary.last_defer_reason?.cycle === last.cycle ? summary.last_defer_reason.reason : '';
    const capped = b !== null && (b.read_only || (b.max_autonomous_sessions_per_day !== null && b.sessions_24h >= b.max_autonomous_sessions_per_day) || b.tokens_remaining_24h === 0);
    if (capped || (reason !== '' && !NOT_BUDGET.test(reason))) return 'deferred-by-budget';
  }
  return 'healthy-quiet';
}
