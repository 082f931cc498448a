/**
 * HTML for the console: hono's `html` tagged template escapes every interpolated value, so
 * text from a persona's log (which a persona or its executor wrote) can never become markup.
 * `raw` is used only for markup built here (charts, nested templates). Every text shown is
 * scrubbed first (scrub.ts), so a secret that slipped into a record is not rendered either.
 */
import { html, raw } from 'hono/html';

export { html, raw };

export type Html = ReturnType<typeof raw>;

/** A page: the one layout every route renders into. `live` names an SSE stream the page listens to. */
export function page(options: { title: string; body: unknown; nav: NavState; live?: string }): Promise<string> {
  const { title, body, nav, live } = options;
  return Promise.resolve(
    html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · runtimectl console</title>
<style>${raw(STYLE)}</style>
</head>
<body${live ? raw(` data-live="${escapeAttr(live)}"`) : ''}>
<header>
  <a class="brand" href="/">runtimectl console</a>
  <nav><a href="/">fleet</a> <a href="/review">review queue</a></nav>
  <span class="mode ${nav.canDecide ? 'operator' : 'readonly'}">${nav.canDecide ? `operator ${nav.operator}` : nav.operator ? `read-only (log in as ${nav.operator} with the URL serve printed)` : 'read-only (started without an operator credential)'}</span>
  ${nav.canDecide && nav.csrf ? html`<form class="logout" method="post" action="/logout"><input type="hidden" name="csrf" value="${nav.csrf}"><button type="submit" id="logout">log out</button></form>` : ''}
</header>
<main>
<h1>${title}</h1>
${body}
</main>
${live ? raw('<script src="/static/live.js"></script>') : ''}
</body>
</html>`,
  ).then(String);
}

export interface NavState {
  /** the operator the server holds a credential for, if any */
  operator?: string;
  /** whether this browser session may decide (logged in with the operator's access token) */
  canDecide: boolean;
  /** the session's form token (for the logout form), when logged in */
  csrf?: string;
}

export function escapeAttr(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Milliseconds ago as "12 s ago", "3 min ago", "5 h ago", "2 d ago". */
export function ago(atIso: string | undefined, nowMs: number): string {
  if (!atIso) return '-';
  const s = Math.max(0, Math.round((nowMs - Date.parse(atIso)) / 1000));
  if (s < 120) return `${s} s ago`;
  if (s < 7200) return `${Math.round(s / 60)} min ago`;
  if (s < 172800) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86400)} d ago`;
}

const STYLE = `
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1d2330;background:#f6f7f9}
header{display:flex;gap:1.5em;align-items:center;padding:.6em 1.2em;background:#1d2330;color:#fff}
header a{color:#cfe0ff;text-decoration:none} .brand{font-weight:600;color:#fff}
.mode{margin-left:auto;font-size:12px;padding:.2em .6em;border-radius:1em}
.mode.operator{background:#2f7d32} .mode.readonly{background:#555}
form.logout{margin:0 0 0 .6em} form.logout button{font-size:12px}
main{padding:1em 1.4em;max-width:1300px}
h1{font-size:20px;margin:.2em 0 .6em} h2{font-size:16px;margin:1.4em 0 .4em}
table{border-collapse:collapse;width:100%;background:#fff} td,th{padding:.35em .6em;border-bottom:1px solid #e3e6eb;text-align:left;vertical-align:top}
th{font-weight:600;background:#eef0f4}
.badge{display:inline-block;padding:.1em .6em;border-radius:1em;font-size:12px;color:#fff;white-space:nowrap}
.b-healthy-quiet{background:#5b8c5a}.b-working{background:#1f6fd1}.b-deferred-by-budget{background:#c98a00}.b-failing{background:#c62828}.b-stopped{background:#777}.b-error{background:#8e0000}
.error{color:#8e0000;background:#fde8e8;padding:.5em .8em;border-radius:4px}
.muted{color:#667} pre{background:#fff;border:1px solid #e3e6eb;padding:.6em;overflow:auto;max-height:22em;white-space:pre-wrap;word-break:break-all}
.charts{display:flex;gap:1em;flex-wrap:wrap} .chart{background:#fff;border:1px solid #e3e6eb;padding:.3em}
form.decide{display:flex;gap:.4em;align-items:center} form.decide input[type=text]{width:16em}
.notice{background:#e8f4e8;padding:.5em .8em;border-radius:4px}
tr.alert td{background:#fde8e8} .alerts-badge{color:#8e0000;font-weight:600}
#live-log li{font-family:ui-monospace,monospace;font-size:12px}
`;

/**
 * The little client script of a live page: it listens to the page's SSE stream and puts each
 * event at the top of the list (#live-log), and a cycle event in the cycles table (#cycles)
 * without a reload. Text is set with textContent, never as markup.
 */
export const LIVE_SCRIPT = `
(function(){
  var url = document.body.getAttribute('data-live'); if (!url || !window.EventSource) return;
  var es = new EventSource(url);
  var status = document.getElementById('live-status');
  es.onopen = function(){ if (status) status.textContent = 'live'; };
  es.onerror = function(){ if (status) status.textContent = 'reconnecting…'; };
  function row(table, cells, id){
    var tr = document.createElement('tr'); if (id) tr.id = id; tr.className = 'live-new';
    cells.forEach(function(c){ var td = document.createElement('td'); td.textContent = c; tr.appendChild(td); });
    var body = table.tBodies[0] || table; body.insertBefore(tr, body.firstChild);
  }
  es.addEventListener('event', function(m){
    var e = JSON.parse(m.data);
    var log = document.getElementById('live-log');
    if (log) { var li = document.createElement('li'); li.textContent = e.line; log.insertBefore(li, log.firstChild); while (log.children.length > 200) log.removeChild(log.lastChild); }
    if (e.cycle) {
      var cycles = document.getElementById('cycles');
      if (cycles && !document.getElementById('cycle-' + e.persona + '-' + e.cycle.cycle)) row(cycles, [String(e.cycle.cycle), e.cycle.at, e.cycle.phase, e.cycle.outcome, e.cycle.tier, e.cycle.reason, e.cycle.applied], 'cycle-' + e.persona + '-' + e.cycle.cycle);
      var fleet = document.getElementById('fleet-' + e.persona);
      if (fleet) { var cell = fleet.querySelector('.last-cycle'); if (cell) cell.textContent = '#' + e.cycle.cycle + ' ' + e.cycle.phase + ' ' + e.cycle.outcome + ': ' + e.cycle.reason; var b = fleet.querySelector('.badge'); if (b && e.cycle.health) { b.className = 'badge b-' + e.cycle.health; b.textContent = e.cycle.health; } }
    }
  });
  es.addEventListener('persona-error', function(m){ var e = JSON.parse(m.data); var log = document.getElementById('live-log'); if (log) { var li = document.createElement('li'); li.className = 'error'; li.textContent = e.persona + ': ' + e.error; log.insertBefore(li, log.firstChild); } });
})();
`;
