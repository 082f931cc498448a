/**
 * The fleet overview's data: for every persona folder under the state directory, its status
 * row and hourly buckets for 7 days, both from the history's read path (checkpoint, rollups,
 * the open segment; never the whole log). A persona whose history cannot be read becomes a
 * row with its error, and the others are read as usual.
 */
import { errorLine } from '../../kernel/errors.ts';
import { DAY_MS } from '../history/usage.ts';
import { hourOf, type HourBucket } from '../history/buckets.ts';
import { openHistoryReader, personasWithHistory, type HistoryReader, type PersonaSummary } from '../history/read-path.ts';
import { healthOf, type Health } from './health.ts';
import { historySignature } from '../logs/follow.ts';
import path from 'node:path';
import { reviewStatus } from '../status/status.ts';

export interface FleetRow {
  persona_id: string;
  summary?: PersonaSummary;
  /** the review queue: held proposals and alerts of the last 24 h (null: never a proposal) */
  review?: Awaited<ReturnType<typeof reviewStatus>>;
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
    const review = await reviewStatus(path.join(stateDir, personaId), options.nowMs);
    return { persona_id: personaId, summary, review, health: healthOf(summary, options.nowMs, options.staleAfterMs), buckets };
  } catch (error) {
    return { persona_id: personaId, health: 'failing', buckets: [], error: errorLine(error) };
  } finally {
    await reader?.close().catch(() => undefined);
  }
}

/**
 * Rows kept by the running console: a persona whose history files have not changed (same
 * identities: inode, size, mtime) within the same minute gets its row again without a read.
 * A stopped or quiet persona then costs a few stats; one that appended is read again.
 */
export class FleetCache {
  readonly #rows = new Map<string, { key: string; row: FleetRow }>();

  get(personaDir: string, personaId: string, nowMs: number): { key: string; row?: FleetRow } {
    const key = `${historySignature(personaDir)}@${Math.floor(nowMs / 60_000)}`;
    const hit = this.#rows.get(personaId);
    return hit && hit.key === key ? { key, row: hit.row } : { key };
  }

  set(personaId: string, key: string, row: FleetRow): void {
    this.#rows.set(personaId, { key, row });
  }
}

export async function fleetRows(stateDir: string, options: ReadOptions, cache?: FleetCache): Promise<FleetRow[]> {
  const out: FleetRow[] = [];
  for (const id of personasWithHistory(stateDir)) {
    const cached = cache?.get(path.join(stateDir, id), id, options.nowMs);
    if (cached?.row) {
      out.push(cached.row);
      continue;
    }
    const row = await personaRow(stateDir, id, options);
    if (cached) cache!.set(id, cached.key, row);
    out.push(row);
  }
  return out;
}
