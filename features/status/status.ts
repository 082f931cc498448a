/**
 * `runtimectl status`: one row per persona found under the state directory, read from its
 * event log alone, through the persistence backend its persistence.yaml names, read-only
 * (so it works while the kernel runs, and on a copied volume): the last
 * cycle, its phase, the budget posture now (the 24 h window ends at `now`), the executor,
 * the last defer reason, and spending rates (tokens per hour, sessions per day).
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { CYCLE_EVENT, DAY_MS, setAsideUsageOfEvent, usageOfEvent } from '../science-loop/budget/usage.ts';
import { EVENT_LOG_RELATIVE } from '../../kernel/events/paths.ts';
import type { PersistenceBackend } from '../../kernel/contracts/persistence.ts';
import { PERSISTENCE_CONFIG_FILE } from '../persistence/config-schema.ts';
import { openBackend } from '../persistence/open.ts';
import { openShared, sharedPersonas } from '../persistence/fleet.ts';
import { errorLine } from '../science-loop/decide.ts';

export interface PersonaStatus {
  persona_id: string;
  runtime: string | null;
  cycles: number;
  last_cycle: { cycle: number; at: string; phase: string; outcome: string } | null;
  budget: {
    source: string;
    token_budget: number | null;
    tokens_used_24h: number;
    tokens_remaining_24h: number | null;
    sessions_24h: number;
    max_autonomous_sessions_per_day: number | null;
    read_only: boolean;
  } | null;
  executor: { plugin: string; enabled: boolean; ran: boolean; status: string | null } | null;
  last_defer_reason: { cycle: number; reason: string } | null;
  events_24h: number;
  tokens_per_hour_24h: number;
  error?: string;
}

type Payload = Record<string, unknown>;

/** The persona's row, or undefined when its backend holds no events (it never ran there). */
async function personaStatus(stateDir: string, personaId: string, nowMs: number, dsn?: string): Promise<PersonaStatus | undefined> {
  const row: PersonaStatus = { persona_id: personaId, runtime: null, cycles: 0, last_cycle: null, budget: null, executor: null, last_defer_reason: null, events_24h: 0, tokens_per_hour_24h: 0 };
  let last: { payload: Payload; at: string } | undefined;
  let tokens = 0;
  let sessions = 0;
  let backend: PersistenceBackend | undefined;
  try {
    backend = dsn === undefined ? await openBackend(path.join(stateDir, personaId), undefined, { readonly: true, personaId }) : await openShared(dsn, personaId);
    if (backend.events.isEmpty() && (dsn !== undefined || !existsSync(path.join(stateDir, personaId, EVENT_LOG_RELATIVE)))) return undefined;
    for (const event of backend.events.read()) {
      const atMs = Date.parse(event.at);
      const recent = nowMs - atMs < DAY_MS && atMs <= nowMs;
      if (recent) row.events_24h += 1;
      for (const aside of setAsideUsageOfEvent(event)) {
        if (nowMs - aside.atMs < DAY_MS && aside.atMs <= nowMs) tokens += aside.tokens;
        if (nowMs - aside.atMs < DAY_MS && aside.atMs <= nowMs && aside.session) sessions += 1;
      }
      if (event.type !== CYCLE_EVENT) continue;
      row.cycles += 1;
      last = { payload: event.payload, at: event.at };
      const reason = event.payload.defer_reason;
      if (typeof reason === 'string') row.last_defer_reason = { cycle: Number(event.payload.cycle), reason };
      const usage = usageOfEvent(event);
      if (usage && recent) {
        tokens += usage.tokens;
        if (usage.session) sessions += 1;
      }
    }
  } catch (error) {
    row.error = errorLine(error);
  } finally {
    await backend?.close();
  }
  if (last) {
    const p = last.payload;
    const budget = (p.budget ?? {}) as Payload;
    const executor = (p.executor ?? {}) as Payload;
    const daily = typeof budget.token_budget === 'number' ? budget.token_budget : null;
    row.runtime = typeof p.runtime === 'string' ? p.runtime : null;
    row.last_cycle = { cycle: Number(p.cycle), at: last.at, phase: String(p.phase), outcome: String(p.outcome) };
    row.budget = {
      source: String(budget.source ?? 'none'),
      token_budget: daily,
      tokens_used_24h: tokens,
      tokens_remaining_24h: daily === null ? null : Math.max(0, daily - tokens),
      sessions_24h: sessions,
      max_autonomous_sessions_per_day: typeof budget.max_autonomous_sessions_per_day === 'number' ? budget.max_autonomous_sessions_per_day : null,
      read_only: budget.read_only === true,
    };
    row.executor = { plugin: String(executor.plugin), enabled: executor.enabled === true, ran: executor.ran === true, status: typeof executor.status === 'string' ? executor.status : null };
  }
  row.tokens_per_hour_24h = Math.round(tokens / 24);
  return row;
}

/** Every persona folder with events (logs/events.jsonl, or in the backend its persistence.yaml names), sorted by id. */
export async function readStatus(stateDir: string, nowMs: number): Promise<PersonaStatus[]> {
  if (!existsSync(stateDir)) return [];
  const ids = readdirSync(stateDir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && (existsSync(path.join(stateDir, d.name, EVENT_LOG_RELATIVE)) || existsSync(path.join(stateDir, d.name, PERSISTENCE_CONFIG_FILE))))
    .map((d) => d.name)
    .sort();
  const rows: PersonaStatus[] = [];
  for (const id of ids) {
    const row = await personaStatus(stateDir, id, nowMs);
    if (row) rows.push(row);
  }
  return rows;
}

/** Every persona of a shared Postgres database (the fleet), sorted by id. */
export async function readFleetStatus(dsn: string, nowMs: number): Promise<PersonaStatus[]> {
  const rows: PersonaStatus[] = [];
  for (const id of (await sharedPersonas(dsn))) {
    const row = await personaStatus('', id, nowMs, dsn);
    if (row) rows.push(row);
  }
  return rows;
}
