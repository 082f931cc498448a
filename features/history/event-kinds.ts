/**
 * What kind of event an event is, by the rules `activity`, `status` and the rollups count
 * with (features/activity/README.md is the contract with the loop's event fields): a cycle
 * and its outcome, a defer reason's stable head, an autonomous session, a plugin's own event.
 * History keeps these rules because its hourly buckets and rollups are counted by them; the
 * reports above it (activity, status, the console) read the buckets.
 */
import type { EventEnvelope } from '../../kernel/events/envelope.ts';
import { CYCLE_EVENT } from '../../kernel/loop/cycle-event.ts';

export { CYCLE_EVENT };
export const SESSION_EVENT = 'executor_session';
/** Events plugins append (`plugin.<type>`): counted as events, never as spending or sessions. */
export const PLUGIN_EVENT_PREFIX = 'plugin.';

export const CYCLE_OUTCOMES = ['executed', 'deferred', 'idle', 'failed', 'interrupted'] as const;
export type CycleOutcome = (typeof CYCLE_OUTCOMES)[number] | 'other';

function record(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** A cycle's outcome: `outcome` as the loop writes it, else `executed: boolean`, else a defer reason. */
export function cycleOutcome(payload: Record<string, unknown>): CycleOutcome {
  const outcome = payload.outcome;
  if (typeof outcome === 'string') return (CYCLE_OUTCOMES as readonly string[]).includes(outcome) ? (outcome as CycleOutcome) : 'other';
  if (typeof payload.executed === 'boolean') return payload.executed ? 'executed' : 'deferred';
  if (typeof payload.defer_reason === 'string') return 'deferred';
  return 'other';
}

/** The reason's stable head: `session cap reached: 12 of 12 ...` → `session cap reached`. */
export function reasonKey(payload: Record<string, unknown>): string | undefined {
  if (typeof payload.defer_code === 'string' && payload.defer_code !== '') return payload.defer_code;
  const reason = payload.defer_reason;
  if (typeof reason !== 'string' || reason.trim() === '') return undefined;
  const head = reason.split(/:|\s\(/, 1)[0]!.trim();
  const key = head === '' ? reason.trim() : head;
  return key.length > 80 ? `${key.slice(0, 79)}…` : key;
}

/**
 * One autonomous session: a cycle whose executor ran and spends tokens (the same rule the
 * budget counts against max_autonomous_sessions_per_day), an `executor_session` event, or any
 * other non-plugin event whose payload holds both `session` and `usage` objects.
 */
export function isSession(event: Pick<EventEnvelope, 'type' | 'payload'>): boolean {
  if (event.type.startsWith(PLUGIN_EVENT_PREFIX)) return false;
  if (event.type === CYCLE_EVENT) {
    const executor = record(event.payload.executor);
    return executor?.ran === true && executor.spends_tokens === true;
  }
  if (event.type === SESSION_EVENT) return true;
  return record(event.payload.session) !== undefined && record(event.payload.usage) !== undefined;
}
