/**
 * `runtimectl activity [--since 24h] [--persona ID] [--state-dir DIR] [--json]`: what each
 * persona did over the window, from its own event log (features/activity).
 */
import { isActivityError, personaActivity, type ActivityEntry } from './collect.ts';
import { sharedPersonas } from '../persistence/fleet.ts';
import { describeDsn } from '../persistence/storage/postgres/pg-bridge.ts';
import type { PersonaActivity } from './report.ts';
import { parseSince } from '../history/window.ts';
import { parseFlags, printJson, type CliIo, type Command } from '../command/command.ts';
import { listPersonaIds } from '../persistence/state-dir.ts';
import { existingPersonaDir, existingStateDir } from '../persistence/state/state-dir.ts';
import { kernelError } from '../../kernel/errors.ts';

const USAGE = `Usage: runtimectl activity [--since 24h] [--persona ID] [--state-dir DIR | --dsn DSN] [--json]

For each persona, over the window ending now (times are each event's "at"):
events and events per hour; tokens and tokens per hour (usage records found in event
payloads: total_tokens, else input + output + cache tokens; plugin.* events excluded);
autonomous sessions and sessions per day (cycles whose executor ran and spends tokens);
cycles executed, deferred, idle and failed; the defer reasons with their counts; and the
same figures hour by hour (UTC clock hours; listed for windows up to 48 h, always in --json).
Sealed history is read from each segment's rollup; raw events only where a segment
straddles the window's start.
Each persona's events are read through the backend its persistence.yaml names.

Options:
  --since WINDOW    30m, 24h, 7d, ... (default 24h)
  --persona ID      only this persona
  --state-dir DIR   default: $SCIDEX_AGENT_STATE_DIR, else ./state
  --dsn DSN         every persona kept in this shared Postgres database instead (a fleet's view)
  --json            print one JSON document: {since, until, personas: [...]}

Exit status: 0, or 1 when some persona's log could not be read (it is reported; the others still are).
`;


function fixed(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(2);
}

function textReport(entry: ActivityEntry): string {
  if (isActivityError(entry)) return `${entry.persona}  error: ${entry.error}\n`;
  const a: PersonaActivity = entry;
  const c = a.cycles;
  const lines = [
    `${a.persona} (${a.backend})`,
    `  events     ${a.events} (${fixed(a.events_per_hour)}/h)`,
    `  tokens     ${a.tokens} (${fixed(a.tokens_per_hour)}/h)`,
    `  sessions   ${a.sessions} (${fixed(a.sessions_per_day)}/day)`,
    `  cycles     ${c.total}: ${c.executed} executed, ${c.deferred} deferred, ${c.idle} idle, ${c.failed} failed${c.interrupted > 0 ? `, ${c.interrupted} interrupted` : ''}${c.other > 0 ? `, ${c.other} other` : ''}`,
  ];
  if (a.defer_reasons.length > 0) {
    lines.push('  defer reasons');
    for (const r of a.defer_reasons) lines.push(`    ${String(r.count).padStart(5)}  ${r.outcome.padEnd(8)}  ${r.reason}`);
  }
  // True hourly buckets, not one average: shown for windows up to two days (--json has them always).
  if (a.hourly.length > 0 && a.window.hours <= 48) {
    lines.push('  by hour (UTC)       events   tokens  sessions  cycles');
    for (const h of a.hourly) lines.push(`    ${h.hour.slice(0, 13).replace('T', ' ')}:00  ${String(h.events).padStart(6)}  ${String(h.tokens).padStart(7)}  ${String(h.sessions).padStart(8)}  ${String(h.cycles).padStart(6)}`);
  } else if (a.hourly.length > 0) lines.push(`  by hour: ${a.hourly.length} hour(s) with events (listed by --json)`);
  return `${lines.join('\n')}\n`;
}

async function run(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseFlags(argv, { since: { type: 'string' }, persona: { type: 'string' }, 'state-dir': { type: 'string' }, dsn: { type: 'string' }, json: { type: 'boolean' } }, 'activity', false);
  const windowMs = parseSince(values.since ?? '24h');
  if (values.dsn !== undefined) return runFleet(values.dsn, values, windowMs, io);
  const choice = existingStateDir(values['state-dir'], io.env, io.cwd);
  const { stateDir, given } = choice;
  let ids: string[];
  if (values.persona !== undefined) {
    existingPersonaDir(choice, values.persona, 'activity');
    ids = [values.persona];
  } else ids = listPersonaIds(stateDir);

  const nowMs = Date.now();
  const personas: ActivityEntry[] = [];
  for (const id of ids) personas.push(await personaActivity(stateDir, id, { windowMs, nowMs }));
  return report(personas, values, windowMs, nowMs, given, io);
}

/** `--dsn`: every persona of a shared Postgres database (or the one named), read-only. */
async function runFleet(dsn: string, values: { persona?: string; since?: string; json?: boolean }, windowMs: number, io: CliIo): Promise<number> {
  const known = (await sharedPersonas(dsn));
  if (values.persona !== undefined && !known.includes(values.persona)) {
    throw kernelError('RTC_ERR_PERSONA_NOT_FOUND', `persona ${values.persona} has no state in ${describeDsn(dsn)}`, { details: { persona: values.persona } });
  }
  const ids = values.persona === undefined ? known : [values.persona];
  const nowMs = Date.now();
  const personas: ActivityEntry[] = [];
  for (const id of ids) personas.push(await personaActivity('', id, { windowMs, nowMs, dsn }));
  return report(personas, values, windowMs, nowMs, describeDsn(dsn), io);
}

function report(personas: ActivityEntry[], values: { since?: string; json?: boolean }, windowMs: number, nowMs: number, given: string, io: CliIo): number {
  const since = new Date(nowMs - windowMs).toISOString();
  const until = new Date(nowMs).toISOString();
  if (values.json) printJson(io, { since, until, window: values.since ?? '24h', personas });
  else {
    io.stdout(`activity over the last ${values.since ?? '24h'} (${since} .. ${until})\n`);
    for (const entry of personas) io.stdout(textReport(entry));
    if (personas.length === 0) io.stdout(`no personas under ${given}\n`);
  }
  return personas.some(isActivityError) ? 1 : 0;
}

export const activityCommand: Command = {
  path: ['activity'],
  summary: 'per persona over a window: events, tokens, sessions, cycles executed vs deferred, defer reasons',
  usage: USAGE,
  run,
};
