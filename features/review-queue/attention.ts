/**
 * What of a persona's review queue needs an operator now, in one shape for every place that
 * shows it (`runtimectl status`, the console, `run`'s lines): the open proposals, the accepted
 * ones still waiting for a boundary, the accepted ones the loop holds (with why: a decision no
 * trusted operator signed, evidence that moved, a trust list that cannot be read), and the
 * operator alerts of the window (backpressure, a decision refused, a decision not ratified),
 * newest first. Read from the queue's replayed state; nothing is written.
 */
import { OPEN_STATES } from './records.ts';
import type { QueueState } from './state.ts';

export interface ReviewAlert {
  /** seq of the operator_alert record in the proposal log */
  seq: number;
  alert: string;
  /** logical time, epoch ms */
  at: number;
  message: string;
  /** the proposal it is about, when it is about one */
  id?: string;
}

export interface ReviewAttention {
  open: number;
  /** accepted, neither applied nor held: the next boundary applies them */
  accepted_waiting: number;
  held: { id: string; reason: string; at: number }[];
  /** alerts at or after the window's start, newest first, at most `limit` */
  alerts: ReviewAlert[];
  /** how many alerts the window holds (alerts may be cut to `limit`) */
  alerts_in_window: number;
}

export const DAY_MS = 86_400_000;

export function reviewAttention(state: QueueState, options: { nowMs: number; windowMs?: number; limit?: number }): ReviewAttention {
  const since = options.nowMs - (options.windowMs ?? DAY_MS);
  const proposals = [...state.proposals.values()];
  const waiting = proposals.filter((p) => p.state === 'accepted' && !p.applied);
  const recent = state.alerts.filter((a) => a.at >= since).reverse();
  return {
    open: proposals.filter((p) => OPEN_STATES.has(p.state)).length,
    accepted_waiting: waiting.filter((p) => !p.held).length,
    held: waiting.filter((p) => p.held).map((p) => ({ id: p.id, reason: p.held!.reason, at: p.held!.at })),
    alerts: recent.slice(0, options.limit ?? 10).map((a) => ({ seq: a.seq, alert: a.alert, at: a.at, message: a.message, ...('id' in a ? { id: a.id } : {}) })),
    alerts_in_window: recent.length,
  };
}
