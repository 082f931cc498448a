/**
 * `runtimectl status [--state-dir DIR] [--json]`: one row per persona under the state
 * directory, from its event log: last cycle, phase, budget posture, executor, last defer
 * reason, and the spending rate over the last 24 hours.
 */
import { readFleetStatus, readStatus, type PersonaStatus } from './status.ts';
import { describeDsn } from '../persistence/storage/postgres/pg-bridge.ts';
import { parseFlags, printJson, type CliIo, type Command } from '../command/command.ts';
import { existingStateDir, knownPersonaDir } from '../persistence/state/state-dir.ts';
import { listPersonaIds } from '../profiles/load.ts';
import { kernelError } from '../../kernel/errors.ts';
import { PERSONA_ID_PATTERN } from '../../kernel/personas/profile-schema.ts';
import { readRunWorkers, workerLines } from '../science-loop/workers/worker-table.ts';

function staleAfterSeconds(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^[1-9]\d*$/.test(value)) throw kernelError('RTC_ERR_CLI_USAGE', `--stale-after ${value}: must be a whole number of seconds above zero`);
  return Number(value);
}

/** One line per listed persona whose last cycle is older than the limit, or missing. */
function staleRows(rows: PersonaStatus[], persona: string | undefined, limitSeconds: number, nowMs: number): string[] {
  if (persona !== undefined && rows.length === 0) return [`persona ${persona}: no cycle yet`];
  return rows.flatMap((r) => {
    if (!r.last_cycle) return [`persona ${r.persona_id}: no cycle yet`];
    const ageSeconds = Math.floor((nowMs - Date.parse(r.last_cycle.at)) / 1000);
    return ageSeconds > limitSeconds ? [`persona ${r.persona_id}: last cycle #${r.last_cycle.cycle} was ${ageSeconds} s ago (limit ${limitSeconds} s)`] : [];
  });
}

const USAGE = `Usage: runtimectl status [--state-dir DIR | --dsn DSN] [--persona ID] [--stale-after SECONDS] [--json]

One row per persona found under the state directory (default: $SCIDEX_AGENT_STATE_DIR, else
./state): its last cycle and phase, budget posture, executor, the last defer reason, and
tokens per hour and sessions over the last 24 hours, and its review queue (open proposals,
accepted ones the loop holds and why, operator alerts of the last 24 hours, listed below the
table). Read from each persona's history only:
its last checkpoint, the rollups of its sealed segments and its open segment, never the
whole log (features/history/README.md). While a \`run --workers N\` runs on the state
directory, also which worker thread hosts which persona and how often each worker died and
was restarted (from <state>/run-workers.json).

With --dsn, every persona kept in that shared Postgres database (all kernels of a fleet),
read-only; no state directory is needed.

Options:
  --dsn DSN               read the personas of this shared Postgres database instead
  --persona ID            only this persona
  --stale-after SECONDS   exit 1 when a listed persona's last cycle is older than this (or it has
                          none yet): a health check, since a quiet persona still logs every cycle
  --json                  one JSON document

Exit status: 0, or 1 when a persona's log cannot be read or (with --stale-after) is stale.
`;

function budgetText(row: PersonaStatus): string {
  const b = row.budget;
  if (!b) return '-';
  if (b.read_only) return `read-only (${b.source})`;
  return `${b.tokens_used_24h}/${b.token_budget} (${b.source}), ${b.sessions_24h}/${b.max_autonomous_sessions_per_day ?? '?'} sessions`;
}

/** `2 open, 1 HELD, 3 alerts`: the review queue in a cell. */
function reviewText(row: PersonaStatus): string {
  const r = row.review;
  if (!r) return '-';
  if (r.error !== undefined) return 'unreadable';
  const parts = [...(r.open > 0 ? [`${r.open} open`] : []), ...(r.accepted_waiting > 0 ? [`${r.accepted_waiting} to apply`] : []), ...(r.held.length > 0 ? [`${r.held.length} HELD`] : []), ...(r.alerts_in_window > 0 ? [`${r.alerts_in_window} alert(s)`] : [])];
  return parts.join(', ') || '-';
}

/** One line per held proposal and per alert of the last 24 h (the latest few a persona): what needs an operator. */
function attentionLines(rows: PersonaStatus[]): string[] {
  const lines: string[] = [];
  for (const row of rows) {
    const r = row.review;
    if (!r) continue;
    if (r.error !== undefined) {
      lines.push(`  ${row.persona_id}  review queue unreadable: ${r.error}`);
      continue;
    }
    for (const h of r.held) lines.push(`  ${row.persona_id}  HELD ${h.id}: ${h.reason}`);
    for (const a of r.alerts.slice(0, 5)) lines.push(`  ${row.persona_id}  ${new Date(a.at).toISOString().replace(/\.\d+Z$/, 'Z')}  ALERT ${a.alert}: ${a.message}`);
    if (r.alerts_in_window > 5) lines.push(`  ${row.persona_id}  … ${r.alerts_in_window - 5} more alert(s) in the last 24 h (runtimectl logs --persona ${row.persona_id}, or the console's review page)`);
  }
  return lines;
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ').trimEnd()).join('\n');
}

async function run(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseFlags(
    argv,
    { 'state-dir': { type: 'string' }, dsn: { type: 'string' }, persona: { type: 'string' }, 'stale-after': { type: 'string' }, json: { type: 'boolean' } },
    'status',
    false,
  );
  const dsn = values.dsn;
  if (dsn !== undefined && values['state-dir'] !== undefined) throw kernelError('RTC_ERR_CLI_USAGE', '--dsn and --state-dir: give one of them');
  // Usage errors first (exit 2), whatever the state directory holds.
  const persona = values.persona;
  if (persona !== undefined && !PERSONA_ID_PATTERN.test(persona)) throw kernelError('RTC_ERR_CLI_USAGE', `--persona ${JSON.stringify(persona)}: not a persona id`);
  const staleAfter = staleAfterSeconds(values['stale-after']);
  let where: string;
  if (dsn === undefined) {
    // One state-dir check for every command: a missing one is an error here too, as for activity and verify.
    const choice = existingStateDir(values['state-dir'], io.env, io.cwd);
    where = choice.stateDir;
    // A typo is refused with "did you mean"; a persona with a profile that has not run yet (a
    // fresh deployment's first health check) is "no cycle yet", not an error about its folder.
    if (persona !== undefined) knownPersonaDir(choice, persona, 'status', listPersonaIds());
  } else where = describeDsn(dsn);
  const nowMs = Date.now();
  const all = dsn === undefined ? await readStatus(where, nowMs) : await readFleetStatus(dsn, nowMs);
  const rows = all.filter((r) => persona === undefined || r.persona_id === persona);
  const stale = staleAfter === undefined ? [] : staleRows(rows, persona, staleAfter, nowMs);
  const failed = rows.some((r) => r.error) || stale.length > 0;
  // The worker table is a state directory's (a run's); a shared database has none.
  const running = dsn === undefined ? readRunWorkers(where) : undefined;
  const workers = running && persona !== undefined ? { ...running, workers: running.workers.filter((w) => w.personas.includes(persona)) } : running;
  for (const line of stale) io.stderr(`runtimectl status: ${line}\n`);
  if (values.json) {
    printJson(io, { ...(dsn === undefined ? { state_dir: where } : { database: where }), personas: rows, ...(staleAfter === undefined ? {} : { stale }), ...(workers ? { run_workers: workers } : {}) });
    return failed ? 1 : 0;
  }
  if (rows.length === 0) {
    const place = `${dsn === undefined ? 'under' : 'in'} ${where}`;
    io.stdout(persona === undefined ? `no persona has run ${place}\n` : `persona ${persona} has not run ${place}\n`);
    return failed ? 1 : 0;
  }
  const lines = [['PERSONA', 'LAST CYCLE', 'PHASE', 'OUTCOME', 'BUDGET (24 h)', 'TOKENS/H', 'EXECUTOR', 'REVIEW', 'LAST DEFER REASON']];
  for (const r of rows) {
    const executor = r.executor ? `${r.executor.plugin}${r.executor.enabled ? '' : ' (off)'}` : '-';
    lines.push([
      r.persona_id,
      r.last_cycle ? `#${r.last_cycle.cycle} ${r.last_cycle.at.replace(/\.\d+Z$/, 'Z')}` : '-',
      r.last_cycle?.phase ?? '-',
      r.last_cycle?.outcome ?? '-',
      budgetText(r),
      String(r.tokens_per_hour_24h),
      executor,
      reviewText(r),
      r.error ? `log error: ${r.error}` : r.last_defer_reason ? `#${r.last_defer_reason.cycle} ${r.last_defer_reason.reason}` : '-',
    ]);
  }
  io.stdout(`${table(lines)}\n`);
  const attention = attentionLines(rows);
  if (attention.length > 0) io.stdout(`\nNeeds an operator (held proposals, alerts of the last 24 h):\n${attention.join('\n')}\n`);
  if (workers) io.stdout(`\n${workerLines(workers).join('\n')}\n`);
  return failed ? 1 : 0;
}

export const statusCommand: Command = {
  path: ['status'],
  summary: 'one row per persona: last cycle, phase, budget posture, executor, last defer reason',
  usage: USAGE,
  run,
};
