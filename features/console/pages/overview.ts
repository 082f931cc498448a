/** The fleet overview: one row per persona, its health, last cycle, budget posture and charts. */
import { html, raw, ago } from '../html.ts';
import { barChart, hourSeries } from '../chart.ts';
import type { FleetRow } from '../fleet.ts';
import { DAY_MS } from '../../history/usage.ts';
import { hourOf } from '../../history/buckets.ts';
import type { ConsoleScrub } from '../scrub.ts';

function budgetCell(row: FleetRow) {
  const b = row.summary?.budget;
  if (!b) return html`<span class="muted">no cycle yet</span>`;
  if (b.read_only) return html`read-only (${b.source}): no daily token budget`;
  return html`${b.tokens_used_24h} used, ${b.tokens_remaining_24h ?? '?'} left of ${b.token_budget} (24 h, ${b.source})<br>sessions ${b.sessions_24h} / ${b.max_autonomous_sessions_per_day ?? '?'} today`;
}

/** Held proposals and alerts of the last 24 h, as a line pointing at the review page (nothing when there are none). */
function attentionLine(row: FleetRow) {
  const r = row.review;
  if (!r) return html``;
  if (r.error !== undefined) return html`<div class="alerts-badge">review queue unreadable</div>`;
  const parts = [...(r.held.length > 0 ? [`${r.held.length} held`] : []), ...(r.alerts_in_window > 0 ? [`${r.alerts_in_window} alert(s) in 24 h`] : [])];
  return parts.length === 0 ? html`` : html`<div class="alerts-badge" id="attention-${row.persona_id}"><a href="/review">${parts.join(', ')}</a></div>`;
}

export function overviewBody(rows: FleetRow[], nowMs: number, scrub: ConsoleScrub) {
  if (rows.length === 0) return html`<p class="muted">No persona has run under this state directory yet.</p>`;
  const items = rows.map((row) => {
    const id = row.persona_id;
    if (row.error) {
      return html`<tr id="fleet-${id}"><td><a href="/persona/${encodeURIComponent(id)}">${id}</a></td><td><span class="badge b-failing">failing</span></td><td colspan="3"><div class="error">${scrub.text(row.error)}</div></td></tr>`;
    }
    const s = row.summary!;
    const last = s.last_cycle;
    const reason = s.last_defer_reason && last && s.last_defer_reason.cycle === last.cycle ? s.last_defer_reason.reason : last?.outcome === 'executed' ? `${s.executor?.plugin ?? ''} ran` : '';
    const day = hourSeries(row.buckets, hourOf(nowMs) - DAY_MS, nowMs, (b) => b.tokens);
    const week = hourSeries(row.buckets, hourOf(nowMs) - 7 * DAY_MS, nowMs, (b) => b.tokens);
    return html`<tr id="fleet-${id}">
<td><a href="/persona/${encodeURIComponent(id)}">${id}</a><div class="muted">${s.runtime ?? ''} · ${s.backend}</div>${attentionLine(row)}</td>
<td><span class="badge b-${row.health}">${row.health}</span></td>
<td class="last-cycle">${last ? `#${last.cycle} ${last.phase} ${last.outcome}: ${scrub.text(reason)}` : '-'}<div class="muted">${last ? ago(last.at, nowMs) : ''}</div></td>
<td>${budgetCell(row)}<div class="muted">${s.tokens_per_hour_24h} tokens/h, ${s.events_24h} events in 24 h</div></td>
<td class="charts">${raw(barChart(day, 'tokens/hour, 24 h'))}${raw(barChart(week, 'tokens/hour, 7 d'))}</td>
</tr>`;
  });
  return html`<p class="muted">${rows.length} persona(s). Live: <span id="live-status">connecting…</span></p>
<table id="fleet"><thead><tr><th>persona</th><th>health</th><th>last cycle</th><th>budget posture</th><th>tokens per hour</th></tr></thead><tbody>${items}</tbody></table>
<h2>Live events</h2><ul id="live-log"></ul>`;
}
