/**
 * The fleet overview's data: for every persona folder under the state directory, its status
 * row and hourly buckets for 7 days, both from the history's read path (checkpoint, rollups,
 * the open segment; never the whole log). A persona whose history cannot be read becomes a
 * row with its error, and the others are read as usual.
 */
import { errorLine } from '../../kernel/errors.ts';
import { DAY_MS } from '../science-loop/budget/usage.ts';
import { hourOf, type HourBucket } from '../history/buckets.ts';
import { openHistoryReader, personasWithHistory, type HistoryReader, type PersonaSummary } from '../history/read-path.ts';
import { healthOf, type Health } from './health.ts';

export interface FleetRow {
  persona_id: string;
  summary?: PersonaSummary;
  health: Health;
  /** hourly buckets of the 168 clock hours before the current one and of the current one (the 24-hour chart is their tail) */
  buckets: HourBucket[];
  error?: string;
}

export interface ReadOptions {
  nowMs: number;
  staleAfterMs: number;
}

/** Reads one persona's row; never throws for the persona's own faults. */
export async function personaRow(stateDir: string, personaId: string, options: ReadOptions): Promise<FleetRow> {
  let reader: HistoryReader | undefined;
  try {
    reader = await openHistoryReader(stateDir, personaId);
    const summary = reader.summary(options.nowMs);
    // Whole clock hours (the charts' bars): the read path answers them from rollups alone.
    const buckets = reader.buckets(hourOf(options.nowMs) - 7 * DAY_MS, options.nowMs);
    return { persona_id: personaId, summary, health: healthOf(summary, options.nowMs, options.staleAfterMs), buckets };
  } catch (error) {
    return { persona_id: personaId, health: 'failing', buckets: [], error: errorLine(error) };
  } finally {
    await reader?.close().catch(() => undefined);
  }
}

export async function fleetRows(stateDir: string, options: ReadOptions): Promise<FleetRow[]> {
  const out: FleetRow[] = [];
  for (const id of personasWithHistory(stateDir)) out.push(await personaRow(stateDir, id, options));
  return out;
}
