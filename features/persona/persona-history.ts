/**
 * A persona's history as the loop driver sees it: what a composition's history part
 * (features/history for the science loop) does at a persona's start, after each cycle and at
 * close. The driver knows no segment, checkpoint or retention rule; it only asks:
 *
 *   open        open the persona's events for appends and say how many cycles it already ran,
 *               without reading its whole log when a checkpoint says where it stood
 *   afterCycle  once the cycle event is durable: seal the open segment when due, etc.
 *   close       at a clean stop, before the backend closes (a shutdown checkpoint)
 *
 * Without a history part, the driver reads every event once at start (cost grows with the
 * log) and never seals: fine for tests and small compositions, not for a persona of months.
 */
import type { EventEnvelope } from '../../kernel/events/envelope.ts';
import type { ReviewQueue } from '../review-queue/queue.ts';
import type { SubstrateAtStart } from '../substrate/substrate-at-start.ts';
import type { TraceStore } from '../trace-store/trace-store.ts';
import { CYCLE_EVENT } from '../../kernel/loop/cycle-event.ts';
import type { PersonaContext } from '../../kernel/loop/steps.ts';

/** What the driver hands a history part for one persona. */
export interface HistoryHost {
  persona: PersonaContext;
  /** the persona's trace (it seals with the event log) */
  trace: TraceStore;
  /** the queue the cycle boundary applies through (its log seals by the same policy) */
  reviewQueue(): ReviewQueue;
  substrate: SubstrateAtStart;
  /** appends an event to the persona's log, scrubbed like every driver event */
  append(type: string, payload: Record<string, unknown>): Promise<unknown>;
  /** false for a tools session (no loop runs): the events are opened without a `reboot` (EventOpenOptions.reboot) */
  restart: boolean;
}

/** One persona's open history. */
export interface PersonaHistory {
  /** what `persona_start` records under `history` (checkpoint used or refused, what was read) */
  readonly startup: Record<string, unknown>;
  /** cycle events the persona's log held before this start */
  readonly cycles: number;
  afterCycle(nowMs: number): Promise<void>;
  close(nowMs: number): void | Promise<void>;
}

/** A composition's history part: opens a persona's history once its writer lock is held. */
export type HistoryPart = (host: HistoryHost) => Promise<PersonaHistory>;

/**
 * The driver's own history when the composition has none: one read of every event (each step
 * sees it through `history`), then the events opened for appends; no seals, no checkpoints.
 */
export async function fullScanHistory(host: HistoryHost, onEvent: (event: EventEnvelope) => void): Promise<PersonaHistory> {
  const events = host.persona.backend.events;
  let cycles = 0;
  for (const event of events.read()) {
    if (event.type === CYCLE_EVENT) cycles += 1;
    onEvent(event);
  }
  await events.open({ reboot: host.restart });
  return { startup: { checkpoint: 'none', full_scan: true }, cycles, afterCycle: async () => {}, close: () => {} };
}
