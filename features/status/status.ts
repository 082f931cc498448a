/**
 * `runtimectl status`: one row per persona found under the state directory, read-only,
 * through the backend its persistence.yaml names (so it works while the kernel runs, and on a
 * copied volume): the last cycle, its phase, the budget posture now (the 24 h window ends at
 * `now`), the executor, the last defer reason, and spending rates (tokens per hour, sessions
 * per day).
 *
 * It reads the history's read path (features/history/read-path.ts): the checkpoint, the
 * segment index, the rollups of the last day's segments and the open segment, so its cost
 * does not grow with the persona's age.
 */
import path from 'node:path';
import { fleetSummary, HistoryReader, type PersonaSummary } from '../history/read-path.ts';
import { openShared, sharedPersonas } from '../persistence/fleet.ts';
import { persistenceProvider } from '../persistence/provider.ts';
import { errorLine } from '../science-loop/decide.ts';
import { openPersonaReviewQueue } from '../review-queue/queue.ts';
import { reviewAttention, type ReviewAttention } from '../review-queue/attention.ts';

export type PersonaStatus = Omit<PersonaSummary, 'backend' | 'history'> & {
  backend?: string;
  history?: PersonaSummary['history'];
  error?: string;
  /** the review queue's side: open, held, alerts of the last 24 h (null: the persona never had a proposal) */
  review?: (ReviewAttention & { error?: undefined }) | { error: string } | null;
};

/** The persona's review queue as status shows it, read-only through its backend. */
export async function reviewStatus(personaDir: string, nowMs: number): Promise<PersonaStatus['review']> {
  try {
    const queue = await openPersonaReviewQueue(personaDir, persistenceProvider, { readonly: true });
    try {
      return queue.hasRecords() ? reviewAttention(queue.read(), { nowMs }) : null;
    } finally {
      await queue.close();
    }
  } catch (error) {
    return { error: errorLine(error) };
  }
}

function errorRow(personaId: string, error: string): PersonaStatus {
  return { persona_id: personaId, runtime: null, cycles: 0, last_cycle: null, budget: null, executor: null, last_defer_reason: null, events_24h: 0, tokens_per_hour_24h: 0, error };
}

/** Every persona folder with events (logs/events.jsonl, or in the backend its persistence.yaml names), sorted by id. */
export async function readStatus(stateDir: string, nowMs: number): Promise<PersonaStatus[]> {
  const entries = await fleetSummary(stateDir, nowMs, errorLine);
  const rows: PersonaStatus[] = [];
  for (const entry of entries) {
    const row: PersonaStatus = 'error' in entry ? errorRow(entry.persona_id, entry.error) : entry;
    rows.push({ ...row, review: await reviewStatus(path.join(stateDir, entry.persona_id), nowMs) });
  }
  return rows;
}

/** Every persona of a shared Postgres database (the fleet), sorted by id. */
export async function readFleetStatus(dsn: string, nowMs: number): Promise<PersonaStatus[]> {
  const rows: PersonaStatus[] = [];
  for (const id of await sharedPersonas(dsn)) {
    let reader: HistoryReader | undefined;
    try {
      reader = new HistoryReader(id, await openShared(dsn, id));
      // A persona the database names but that never stored an event is not a row.
      if (!reader.isEmpty()) rows.push(reader.summary(nowMs));
    } catch (error) {
      rows.push(errorRow(id, errorLine(error)));
    } finally {
      await reader?.close();
    }
  }
  return rows;
}
