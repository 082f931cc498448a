/**
 * Activity for every persona of a state directory (or one), each read through the backend
 * its persistence.yaml names, read-only. A persona whose log cannot be read is reported with
 * the reason, and the others are still reported.
 */
import path from 'node:path';
import { isKernelError } from '../../kernel/errors.ts';
import { openBackend } from '../persistence/open.ts';
import { readPersistenceConfig } from '../persistence/config.ts';
import { openShared } from '../persistence/fleet.ts';
import type { PersistenceBackend } from '../../kernel/contracts/persistence.ts';
import { activityOf, type PersonaActivity } from './report.ts';

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
  const dir = path.join(stateDir, persona);
  let backend: PersistenceBackend | undefined;
  try {
    const name = options.dsn === undefined ? readPersistenceConfig(dir).backend : 'postgres';
    backend = options.dsn === undefined ? await openBackend(dir, name, { readonly: true, ...(options.pluginsDir ? { pluginsDir: options.pluginsDir } : {}) }) : await openShared(options.dsn, persona);
    return activityOf(backend.events.read(), { persona, backend: name, windowMs: options.windowMs, nowMs: options.nowMs });
  } catch (error) {
    return { persona, error: isKernelError(error) ? error.toLine() : error instanceof Error ? error.message : String(error) };
  } finally {
    await backend?.close();
  }
}
