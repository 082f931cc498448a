/** A persona page: status, recent cycles (live), sessions, ledger, proposals. */
import { html, ago } from '../html.ts';
import { displayState, proposalSummary } from '../../review/format.ts';
import type { PersonaPage } from '../persona.ts';
import type { ConsoleScrub } from '../scrub.ts';

export function personaBody(id: string, p: PersonaPage, nowMs: number, scrub: ConsoleScrub) {
  const s = p.summary;
  const cycles = p.cycles.map(
    (c) => html`<tr id="cycle-${id}-${c.cycle}"><td>${c.cycle}</td><td>${c.at}</td><td>${c.phase}</td><td>${c.outcome}</td><td>${scrub.text(c.tier)}</td><td>${scrub.text(c.reason)}</td><td>${c.applied.join(', ')}${c.held.length > 0 ? html` <span class="alerts-badge">HELD ${c.held.join(', ')}</span>` : ''}${c.alerts > 0 ? html` <span class="alerts-badge">${c.alerts} alert(s)</span>` : ''}</td></tr>`,
  );
  const sessions = p.cycles
    .filter((c) => c.session)
    .map(
      (c) =>
        html`<tr><td><a href="/persona/${encodeURIComponent(id)}/session/${encodeURIComponent(c.session!.run_id)}">${c.session!.run_id}</a></td><td>#${c.cycle}</td><td>${c.session!.status ?? '-'}</td><td>${scrub.text(c.session!.last_message ?? '')}</td></tr>`,
    );
  const tasks = Array.isArray(p.tasks)
    ? p.tasks.map((t) => html`<tr><td>${t.id}</td><td>${t.state}</td><td>${scrub.text(t.title)}</td><td>${t.updatedAt}</td></tr>`)
    : html`<tr><td colspan="4" class="error">${scrub.text(p.tasks.error)}</td></tr>`;
  const leases = Array.isArray(p.leases)
    ? p.leases.map((l) => html`<tr><td>${scrub.text(l.resource)}</td><td>${scrub.text(l.owner)}</td><td>${l.expiresAt}</td></tr>`)
    : html``;
  const proposals = Array.isArray(p.proposals)
    ? p.proposals.map((q) => html`<tr><td><a href="/proposal/${encodeURIComponent(q.id)}">${q.id}</a></td><td>${displayState(q, nowMs)}</td><td>${q.kind}</td><td>${scrub.text(proposalSummary(q))}</td></tr>`)
    : html`<tr><td colspan="4" class="error">${scrub.text(p.proposals.error)}</td></tr>`;
  const a = p.attention;
  const attention = !a
    ? html``
    : a.error !== undefined
      ? html`<h2>Needs an operator</h2><p class="error">review queue: ${scrub.text(a.error)}</p>`
      : a.held.length + a.alerts.length === 0
        ? html``
        : html`<h2 class="error">Needs an operator</h2>
<table id="persona-attention"><thead><tr><th>proposal</th><th>at</th><th>what</th></tr></thead><tbody>${a.held.map((h) => html`<tr class="alert"><td><a href="/proposal/${encodeURIComponent(h.id)}">${h.id}</a></td><td>${new Date(h.at).toISOString()}</td><td>HELD: ${scrub.text(h.reason)}</td></tr>`)}${a.alerts.map((x) => html`<tr class="alert" id="persona-alert-${x.seq}"><td>${x.id ?? '-'}</td><td>${new Date(x.at).toISOString()}</td><td>${x.alert}: ${scrub.text(x.message)}</td></tr>`)}</tbody></table>`;
  const b = s.budget;
  return html`<p>${s.runtime ?? ''} · backend ${s.backend} · ${s.cycles} cycles · last ${s.last_cycle ? `#${s.last_cycle.cycle} ${ago(s.last_cycle.at, nowMs)}` : 'none'} ·
${b ? (b.read_only ? `read-only (${b.source})` : `${b.tokens_used_24h}/${b.token_budget} tokens, ${b.sessions_24h}/${b.max_autonomous_sessions_per_day ?? '?'} sessions in 24 h`) : ''}
· history: ${s.history.sealed_segments} sealed segment(s), open segment ${s.history.open_segment.index} · Live: <span id="live-status">connecting…</span></p>
${attention}
<h2>Recent cycles</h2>
<table id="cycles"><thead><tr><th>#</th><th>at</th><th>phase</th><th>outcome</th><th>decision</th><th>reason</th><th>applied</th></tr></thead><tbody>${cycles}</tbody></table>
<h2>Live events</h2><ul id="live-log"></ul>
<h2>Executor sessions</h2>
<table><thead><tr><th>session</th><th>cycle</th><th>status</th><th>last message</th></tr></thead><tbody>${sessions}</tbody></table>
<h2>Ledger tasks</h2>
<table><thead><tr><th>id</th><th>state</th><th>title</th><th>updated</th></tr></thead><tbody>${tasks}</tbody></table>
<h2>Leases</h2>
<table><thead><tr><th>resource</th><th>owner</th><th>expires</th></tr></thead><tbody>${leases}</tbody></table>
<h2>Proposals</h2>
<table><thead><tr><th>id</th><th>state</th><th>kind</th><th>what</th></tr></thead><tbody>${proposals}</tbody></table>`;
}

export function sessionBody(files: { name: string; text?: string; truncated?: number; missing?: boolean }[], scrub: ConsoleScrub) {
  return files.map(
    (f) => html`<h2>${f.name}</h2>${f.missing ? html`<p class="muted">not written</p>` : html`<pre>${scrub.text(f.text ?? '')}</pre>${f.truncated ? html`<p class="muted">first 256 KiB of ${f.truncated} bytes shown</p>` : ''}`}`,
  );
}
