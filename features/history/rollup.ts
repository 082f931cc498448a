/**
 * A sealed segment's rollup, kept in its index entry (features/history-segments/index-entry.ts): its
 * events and cycles, its last cycle and defer reason, and its hourly buckets. `status`,
 * `activity` and the loop read these instead of the segment's events; `verify --full`
 * recomputes them from the events and compares.
 */
import { z } from 'zod';
import type { EventEnvelope } from '../../kernel/events/envelope.ts';
import { CYCLE_OUTCOMES } from './event-kinds.ts';
import { bucketsOf, type HourBucket } from './buckets.ts';
import { cycleSummarySchema, deferSummarySchema, HistoryFold } from './fold.ts';

export const ROLLUP_FORMAT = 1;

const outcomes = z.object({ total: z.number(), executed: z.number(), deferred: z.number(), idle: z.number(), failed: z.number(), interrupted: z.number(), other: z.number() });
export const hourBucketSchema = z.object({
  hour: z.number(),
  events: z.number(),
  tokens: z.number(),
  sessions: z.number(),
  cycles: outcomes,
  reasons: z.array(z.tuple([z.enum([...CYCLE_OUTCOMES, 'other']), z.string(), z.number()])),
  types: z.record(z.string(), z.number()),
  budget_tokens: z.number(),
  budget_sessions: z.number(),
});

export const segmentRollupSchema = z.object({
  v: z.literal(ROLLUP_FORMAT),
  events: z.number().int(),
  cycles: z.number().int(),
  /** cycle numbers of its first and last cycle events (replay finds a cycle's segment by them) */
  first_cycle: z.number().nullable(),
  last_cycle_number: z.number().nullable(),
  last_cycle: cycleSummarySchema.nullable(),
  last_defer: deferSummarySchema.nullable(),
  hours: z.array(hourBucketSchema),
});
export type SegmentRollup = z.infer<typeof segmentRollupSchema>;

export function rollupOf(events: readonly EventEnvelope[]): SegmentRollup {
  const fold = new HistoryFold();
  let firstCycle: number | null = null;
  let lastCycle: number | null = null;
  for (const event of events) {
    fold.add(event);
    if (event.type === 'continuous_loop_cycle') {
      const n = Number(event.payload.cycle);
      if (Number.isFinite(n)) {
        firstCycle ??= n;
        lastCycle = n;
      }
    }
  }
  const hours: HourBucket[] = bucketsOf(events);
  return { v: ROLLUP_FORMAT, events: fold.events, cycles: fold.cycles, first_cycle: firstCycle, last_cycle_number: lastCycle, last_cycle: fold.lastCycle, last_defer: fold.lastDefer, hours };
}

/** An index entry's rollup, or undefined when it has none or it does not parse. */
export function rollupIn(entry: { rollup?: unknown }): SegmentRollup | undefined {
  const parsed = segmentRollupSchema.safeParse(entry.rollup);
  return parsed.success ? parsed.data : undefined;
}
