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
import { fleetSummary, type PersonaSummary } from '../history/read-path.ts';
import { errorLine } from '../science-loop/decide.ts';

export type PersonaStatus = Omit<PersonaSummary, 'backend' | 'history'> & { backend?: string; history?: PersonaSummary['history']; error?: string };

/** Every persona folder with events (logs/events.jsonl, or in the backend its persistence.yaml names), sorted by id. */
export async function readStatus(stateDir: string, nowMs: number): Promise<PersonaStatus[]> {
  const entries = await fleetSummary(stateDir, nowMs, errorLine);
  return entries.map((entry) =>
    'error' in entry
      ? { persona_id: entry.persona_id, runtime: null, cycles: 0, last_cycle: null, budget: null, executor: null, last_defer_reason: null, events_24h: 0, tokens_per_hour_24h: 0, error: entry.error }
      : entry,
  );
}
