/** The review queue across the fleet, and one proposal with its evidence and the decision form. */
import path from 'node:path';
import { html } from '../html.ts';
import { displayState, proposalSummary, proposerText } from '../../review/format.ts';
import { isOverdue, type Proposal } from '../../review-queue/index.ts';
import type { PersonaQueue } from '../review.ts';
import { evidenceRefs, evidenceView } from '../evidence.ts';
import type { ConsoleScrub } from '../scrub.ts';

export interface DecideForm {
  canDecide: boolean;
  csrf?: string;
  why?: string;
}

function expiry(p: Proposal, nowMs: number) {
  if (p.state !== 'pending' && p.state !== 'under-review') return html``;
  if (isOverdue(p, nowMs)) return html`<span class="error">overdue: expired ${new Date(p.expires_at).toISOString()}</span>`;
  const h = Math.round((p.expires_at - nowMs) / 3_600_000);
  return html`expires ${new Date(p.expires_at).toISOString()} (in ${h} h)`;
}

export function decideForm(p: Proposal, form: DecideForm) {
  if (p.state !== 'pending' && p.state !== 'under-review') return html``;
  if (!form.canDecide) return html`<p class="muted">${form.why ?? 'read-only'}</p>`;
  return html`<form class="decide" method="post" action="/proposal/${encodeURIComponent(p.id)}/decide">
<input type="hidden" name="csrf" value="${form.csrf ?? ''}">
<input type="text" name="reason" placeholder="reason (required to reject)" maxlength="1000">
<button type="submit" name="decision" value="accept">Accept</button>
<button type="submit" name="decision" value="reject">Reject</button>
</form>`;
}

/** A gate package's verdict and checks, one line, where a piece of evidence is one (evidence verify runs for it). */
function gateLine(personaDir: string, p: Proposal, index: number, scrub: ConsoleScrub) {
  let v;
  try {
    v = evidenceView(personaDir, p, index);
  } catch {
    return html``;
  }
  if (v.kind !== 'gate-package') return html`<span class="muted">${v.kind}</span>`;
  const ver = v.verification!;
  const checks = (ver.checks ?? []).map((c) => `${c.name} ${c.status}`).join(', ');
  return html`<span class="${ver.ok ? 'muted' : 'error'}">gate ${ver.verdict ?? '?'}${ver.ok ? '' : ', evidence verify does not hold'}: ${scrub.text(checks)}</span>`;
}

export function queueBody(stateDir: string, queues: PersonaQueue[], nowMs: number, form: DecideForm, scrub: ConsoleScrub) {
  const rows = queues.flatMap((q) => {
    if (q.error) return [html`<tr><td>${q.persona_id}</td><td colspan="5" class="error">${scrub.text(q.error)}</td></tr>`];
    return q.proposals
      .filter((p) => p.state === 'pending' || p.state === 'under-review')
      .map(
        (p) => html`<tr id="proposal-${p.id}"><td>${q.persona_id}</td><td><a href="/proposal/${encodeURIComponent(p.id)}">${p.id}</a></td><td>${displayState(p, nowMs)}<br><span class="muted">${expiry(p, nowMs)}</span></td><td>${p.kind} by ${scrub.text(proposerText(p))}<br>${scrub.text(proposalSummary(p))}</td>
<td>${evidenceRefs(p).map((e, i) => html`<a href="/proposal/${encodeURIComponent(p.id)}/evidence/${i}">${scrub.text(e.ref)}</a><br>${gateLine(path.join(stateDir, q.persona_id), p, i, scrub)}<br>`)}</td><td>${decideForm(p, form)}</td></tr>`,
      );
  });
  const pressure = queues
    .filter((q) => !q.error && (q.refusals.length > 0 || q.open > 0))
    .map((q) => {
      const last = q.refusals.at(-1);
      return html`<tr><td>${q.persona_id}</td><td>${q.open}</td><td>${q.refusals.length}</td><td>${last ? `${last.reason} (limit ${last.limit}, observed ${last.observed}) at ${new Date(last.at).toISOString()}` : '-'}</td></tr>`;
    });
  const held = queues.flatMap((q) => (q.attention?.held ?? []).map((h) => html`<tr id="held-${h.id}" class="alert"><td>${q.persona_id}</td><td><a href="/proposal/${encodeURIComponent(h.id)}">${h.id}</a></td><td>${new Date(h.at).toISOString()}</td><td>HELD: ${scrub.text(h.reason)}</td></tr>`));
  const alerts = queues.flatMap((q) => (q.attention?.alerts ?? []).map((a) => html`<tr id="alert-${q.persona_id}-${a.seq}" class="alert"><td>${q.persona_id}</td><td>${a.id ? html`<a href="/proposal/${encodeURIComponent(a.id)}">${a.id}</a>` : '-'}</td><td>${new Date(a.at).toISOString()}</td><td>${a.alert}: ${scrub.text(a.message)}</td></tr>`));
  const attention = held.length + alerts.length > 0
    ? html`<h2 class="error">Needs an operator</h2>
<table id="attention"><thead><tr><th>persona</th><th>proposal</th><th>at</th><th>what</th></tr></thead><tbody>${held}${alerts}</tbody></table>`
    : html`<h2>Needs an operator</h2><p id="attention" class="muted">no held proposal, no alert in the last 24 h</p>`;
  const decided = queues.flatMap((q) => q.proposals.filter((p) => p.state === 'accepted' || p.state === 'rejected').slice(-10).map((p) => html`<tr><td>${q.persona_id}</td><td><a href="/proposal/${encodeURIComponent(p.id)}">${p.id}</a></td><td>${displayState(p, nowMs)}</td><td>${scrub.text(p.decision?.by ?? '')}</td><td>${scrub.text(p.decision?.reason ?? '')}</td></tr>`));
  return html`${attention}
<h2>Open proposals</h2>
<table id="queue"><thead><tr><th>persona</th><th>id</th><th>state</th><th>what</th><th>evidence</th><th>decide</th></tr></thead><tbody>${rows.length ? rows : html`<tr><td colspan="6" class="muted">nothing waiting</td></tr>`}</tbody></table>
<h2>Backpressure</h2>
<table><thead><tr><th>persona</th><th>open now</th><th>refused</th><th>last refusal</th></tr></thead><tbody>${pressure}</tbody></table>
<h2>Recently decided</h2>
<table><thead><tr><th>persona</th><th>id</th><th>state</th><th>by</th><th>reason</th></tr></thead><tbody>${decided}</tbody></table>`;
}

export function proposalBody(p: Proposal, nowMs: number, form: DecideForm, scrub: ConsoleScrub, notice?: string) {
  const history = p.history.map((t) => html`<tr><td>${new Date(t.at).toISOString()}</td><td>${t.from} → ${t.to}</td><td>${scrub.text(t.by)}</td><td>${scrub.text(t.reason ?? '')}</td></tr>`);
  return html`${notice ? html`<p class="notice" id="notice">${scrub.text(notice)}</p>` : ''}
<p><b id="proposal-state">${displayState(p, nowMs)}</b> · ${p.kind} · proposed by ${scrub.text(proposerText(p))} at ${new Date(p.created_at).toISOString()} · ${expiry(p, nowMs)}</p>
${p.state === 'accepted' && !p.applied && p.held ? html`<p class="error" id="proposal-held">Held by the loop since ${new Date(p.held.at).toISOString()}: ${scrub.text(p.held.reason)}</p>` : ''}
${decideForm(p, form)}
<h2>Content</h2><pre>${scrub.text(JSON.stringify(p.content, null, 2))}</pre>
<h2>Evidence</h2>
<ul>${evidenceRefs(p).map((e, i) => html`<li><a href="/proposal/${encodeURIComponent(p.id)}/evidence/${i}">${scrub.text(e.ref)}</a> <span class="muted">${e.digest}</span></li>`)}</ul>
<h2>History</h2>
<table><thead><tr><th>at</th><th>change</th><th>by</th><th>reason</th></tr></thead><tbody>${history}</tbody></table>
${p.applied ? html`<h2>Applied</h2><pre>${scrub.text(JSON.stringify(p.applied, null, 2))}</pre>` : ''}`;
}
