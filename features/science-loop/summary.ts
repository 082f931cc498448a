/**
 * Human-readable lines about cycles: one line as each cycle ends, and a summary per persona
 * of what it did and why. Only relative paths and figures; the same facts the event holds.
 */
import type { ScienceCycleReport as CycleReport, ScienceRun as PersonaRun } from './report.ts';

function what(report: CycleReport): string {
  const a = report.act;
  const tasks = a.tasks.length > 0 ? `created ${a.tasks.map((t) => `${t.id} "${t.title}"`).join(', ')}` : '';
  if (report.outcome === 'executed') {
    const usage = a.usage ? `, ${a.usage.total_tokens} tokens (${a.usage.source})` : '';
    const said = a.last_message ? oneLine(a.last_message, 160) : tasks;
    return `${report.executor} ran ${a.session?.run_id ?? ''}${usage}${said ? `: ${said}` : ''}`;
  }
  const reason = report.defer_reason ?? '';
  return tasks ? `${reason}; ${tasks}` : reason;
}

const WORK_PROBES = new Set(['work_packets', 'dm_queue', 'periodic']);

function oneLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** `jerome #2 science_patrol deferred: ...`; a persona whose profile opts out of the OS sandbox says so on every line. */
export function cycleLine(report: CycleReport): string {
  const executor = report.payload.executor as { os_sandbox?: string } | undefined;
  const unsandboxed = executor?.os_sandbox === 'off' ? ' [os_sandbox: off]' : '';
  return `${report.persona_id} #${report.cycle} ${report.phase} ${report.outcome}${unsandboxed}: ${oneLine(what(report), 300)}`;
}

function postureText(report: CycleReport): string {
  const p = report.posture;
  if (p.read_only) return `no daily token budget (${p.source === 'wallet_advisory' ? `wallet ${p.wallet_monthly_token_budget}/month is advisory only` : 'none set'}): read-only`;
  return `${p.token_budget} tokens/day from the ${p.source}, ${p.tokens_used_24h} used in 24 h, ${p.sessions_24h}/${p.max_autonomous_sessions_per_day} sessions`;
}

/** What one persona did in this run and why, as an indented block; `tasks` counts its ledger now, by state. */
export function personaSummary(run: PersonaRun, tasks: Record<string, number> = {}): string {
  const first = run.reports[0];
  const last = run.reports[run.reports.length - 1];
  if (!first || !last) return `${run.persona_id}: no cycle ran${run.stopped ? ` (${run.stopped})` : ''}\n`;
  const payload = last.payload as { runtime: string; runtime_kind: string; executor: { plugin_source: string; enabled: boolean }; ledger: { path: string } };
  const lines = [
    `${run.persona_id} (${payload.runtime}, ${payload.runtime_kind.replace('_', ' ')}): executor ${last.executor} ${payload.executor.enabled ? 'enabled' : 'disabled'} (${payload.executor.plugin_source.replace('_', ' ')})`,
    `  budget: ${postureText(last)}`,
  ];
  for (const r of run.reports) {
    lines.push(`  cycle ${r.cycle} ${r.phase}: ${r.outcome}`);
    lines.push(`      ${oneLine(what(r), 220)}`);
    const d = r.act.decision;
    if (d) lines.push(`      why: tier ${d.tier} (${d.tier_name}) -> ${d.action.replaceAll('_', ' ')}: ${oneLine(d.reason, 160)}`);
    // A quiet cycle says why it was quiet; a failed probe is always shown.
    const shown = r.probes.filter((p) => p.action === 'failed' || (r.outcome === 'idle' && WORK_PROBES.has(p.probe)));
    if (shown.length > 0) lines.push(`      probes: ${oneLine(shown.map((p) => `${p.probe} ${p.action}: ${p.reason}`).join('; '), 220)}`);
  }
  const total = Object.values(tasks).reduce((a, b) => a + b, 0);
  lines.push(`  ledger ${payload.ledger.path}: ${total} task(s)${total ? ` (${Object.entries(tasks).map(([s, n]) => `${s} ${n}`).join(', ')})` : ''}`);
  if (run.stopped) lines.push(`  stopped: ${run.stopped}`);
  return `${lines.join('\n')}\n`;
}
