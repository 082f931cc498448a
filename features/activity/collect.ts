/**
 * Activity for every persona of a state directory (or one), each read through the backend
 * its persistence.yaml names, read-only, from its history's read path (rollups of the
 * segments the window covers, raw events only where a segment straddles its edge, and the
 * open segment). A persona whose log cannot be read is reported with the reason, and the
 * others are still reported.
 */
import { isKernelError } from '../../kernel/errors.ts';
import { HistoryReader, openHistoryReader } from '../history/read-path.ts';
import { openShared } from '../persistence/fleet.ts';
import { activityFromBuckets, type PersonaActivity } from './report.ts';

export interface PersonaActivityError {
  persona: string;
  error: string;
}

export type ActivityEntry = PersonaActivity | PersonaActivityError;

export function isActivityError(entry: ActivityEntry): entry is PersonaActivityError {
  return 'error' in entry;
}

export interface CollectOptions {
  windowMs: number;
  nowMs: number;
  pluginsDir?: string;
  /** read the persona from this shared Postgres database instead of the state directory */
  dsn?: string;
}

export async function personaActivity(stateDir: string, persona: string, options: CollectOptions): Promise<ActivityEntry> {
  let reader: HistoryReader | undefined;
  try {
    // A shared database's persona is read through the postgres backend, without a state directory.
    reader = options.dsn === undefined ? await openHistoryReader(stateDir, persona, options.pluginsDir ? { pluginsDir: options.pluginsDir } : {}) : new HistoryReader(persona, await openShared(options.dsn, persona));
    const { windowMs, nowMs } = options;
    return activityFromBuckets(reader.buckets(nowMs - windowMs, nowMs), { persona: reader.persona, backend: reader.backendName, windowMs, nowMs });
  } catch (error) {
    return { persona, error: isKernelError(error) ? error.toLine() : error instanceof Error ? error.message : String(error) };
  } finally {
    await reader?.close();
  }
}
