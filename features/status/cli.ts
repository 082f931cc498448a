/**
 * `runtimectl status [--state-dir DIR] [--json]`: one row per persona under the state
 * directory, from its event log: last cycle, phase, budget posture, executor, last defer
 * reason, and the spending rate over the last 24 hours.
 */
import { readFleetStatus, readStatus, type PersonaStatus } from './status.ts';
import { describeDsn } from '../../kernel/persistence/postgres/pg-bridge.ts';
import { parseFlags, printJson, type CliIo, type Command } from '../../kernel/cli/command.ts';
import { resolveStateDir } from '../science-loop/cli.ts';

const USAGE = `Usage: runtimectl status [--state-dir DIR | --dsn DSN] [--json]

One row per persona found under the state directory (default: $SCIDEX_AGENT_STATE_DIR, else
./state): its last cycle and phase, budget posture, executor, the last defer reason, and
tokens per hour and sessions over the last 24 hours. Read from each persona's event log only.

With --dsn, every persona kept in that shared Postgres database (all kernels of a fleet),
read-only; no state directory is needed.
`;

function budgetText(row: PersonaStatus): string {
  const b = row.budget;
  if (!b) return '-';
  if (b.read_only) return `read-only (${b.source})`;
  return `${b.tokens_used_24h}/${b.token_budget} (${b.source}), ${b.sessions_24h}/${b.max_autonomous_sessions_per_day ?? '?'} sessions`;
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ').trimEnd()).join('\n');
}

async function run(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseFlags(argv, { 'state-dir': { type: 'string' }, dsn: { type: 'string' }, json: { type: 'boolean' } }, 'status', false);
  const dsn = values.dsn;
  const where = dsn === undefined ? resolveStateDir(values['state-dir'], io) : describeDsn(dsn);
  const rows = dsn === undefined ? await readStatus(where, Date.now()) : await readFleetStatus(dsn, Date.now());
  if (values.json) {
    printJson(io, dsn === undefined ? { state_dir: where, personas: rows } : { database: where, personas: rows });
    return rows.some((r) => r.error) ? 1 : 0;
  }
  if (rows.length === 0) {
    io.stdout(`no persona has run ${dsn === undefined ? 'under' : 'in'} ${where}\n`);
    return 0;
  }
  const lines = [['PERSONA', 'LAST CYCLE', 'PHASE', 'OUTCOME', 'BUDGET (24 h)', 'TOKENS/H', 'EXECUTOR', 'LAST DEFER REASON']];
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
      r.error ? `log error: ${r.error}` : r.last_defer_reason ? `#${r.last_defer_reason.cycle} ${r.last_defer_reason.reason}` : '-',
    ]);
  }
  io.stdout(`${table(lines)}\n`);
  return rows.some((r) => r.error) ? 1 : 0;
}

export const statusCommand: Command = {
  path: ['status'],
  summary: 'one row per persona: last cycle, phase, budget posture, executor, last defer reason',
  usage: USAGE,
  run,
};
