/** The gate evidence browser: a package's checks, raw outputs and digests, and whether it still verifies. */
import { html } from '../html.ts';
import type { EvidenceView } from '../evidence.ts';
import type { ConsoleScrub } from '../scrub.ts';

export function evidenceBody(v: EvidenceView, scrub: ConsoleScrub) {
  const head = html`<p>ref <code>${scrub.text(v.ref)}</code> · proposed digest <code>${v.digest}</code></p>`;
  if (v.kind !== 'gate-package') {
    const what = v.kind === 'event' ? 'an event of the persona\'s log (its digest is the event\'s hash; the ratification check compares it)' : v.kind === 'file' ? 'a file (not a gate evidence package)' : 'missing: it cannot be found or read, so a decision resting on it is not ratified';
    return html`${head}<p>${what}</p>`;
  }
  const ver = v.verification!;
  const checks = (ver.checks ?? []).map((c) => html`<tr><td>${c.name}</td><td>${c.status}</td><td>${c.required ? 'required' : 'advisory'}</td><td>${scrub.text(c.reason)}</td></tr>`);
  const problems = ver.problems.map((p) => html`<li>${p.kind}: ${scrub.text(p.path)}: ${scrub.text(p.detail)}${p.expected ? html` (recorded ${p.expected}${p.actual ? html`, now ${p.actual}` : ''})` : ''}</li>`);
  const outputs = (v.outputs ?? []).map(
    (o) => html`<h3>${o.check}: <code>${scrub.text(o.path)}</code> <span class="muted">${o.sha256}</span></h3>${o.missing ? html`<p class="error">missing</p>` : html`<pre>${scrub.text(o.text ?? '')}</pre>`}${o.truncated ? html`<p class="muted">first 256 KiB of ${o.truncated} bytes</p>` : ''}`,
  );
  return html`${head}
<p id="evidence-verify" class="${ver.ok ? 'notice' : 'error'}">evidence verify: ${ver.ok ? 'holds' : `does not hold (${ver.problems.length} problem(s))`} · verdict ${ver.verdict ?? '-'} · manifest digest now <code>${ver.digest ?? 'missing'}</code></p>
${problems.length ? html`<ul>${problems}</ul>` : ''}
<h2>Checks</h2>
<table><thead><tr><th>check</th><th>status</th><th></th><th>reason</th></tr></thead><tbody>${checks}</tbody></table>
<h2>Raw outputs</h2>${outputs}`;
}
