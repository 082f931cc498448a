/**
 * `runtimectl serve` over a real state directory, through a real listening server: the
 * overview's rows and charts from real hourly buckets, a persona page, a session with a
 * secret in its stdout, the evidence browser on a real gate package, and the bad-input list
 * of issue 17: no or wrong credential, a forged cross-site request, a proposal that does not
 * exist or was already decided, a corrupt persona, a client that disconnects mid-stream.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startConsole, type RunningConsole } from '../server.ts';
import { operatorDecider } from '../decide.ts';
import { openPersonaReviewQueue } from '../../review-queue/index.ts';
import { csrfOf, decide, fleet, login, propose, request, run, type Fleet } from './helpers.ts';
import { makeOperators } from '../../../test/support/operator.ts';
import { runCli } from '../../../test/support/cli.ts';
import { persistenceProvider } from '../../persistence/provider.ts';

const { alice } = makeOperators(['alice']);

let f: Fleet;
let ro: RunningConsole;
let op: RunningConsole;

before(async () => {
  f = await fleet();
  ro = await startConsole({ stateDir: f.stateDir, port: 0, liveIntervalMs: 50 });
  op = await startConsole({ stateDir: f.stateDir, port: 0, liveIntervalMs: 50, decider: operatorDecider(alice!.env, f.stateDir) });
});

after(async () => {
  await ro?.close();
  await op?.close();
});

async function proposalState(id: string): Promise<string> {
  const queue = await openPersonaReviewQueue(path.join(f.stateDir, 'ada'), persistenceProvider, { readonly: true });
  try {
    return queue.get(id).state;
  } finally {
    await queue.close();
  }
}

test('the overview shows each persona with its last cycle, budget posture, health and tokens-per-hour charts from hourly buckets', async () => {
  const page = await request(`${ro.url}/`);
  assert.equal(page.status, 200);
  assert.match(page.text, /<tr id="fleet-ada">/);
  assert.match(page.text, /<tr id="fleet-jerome">/);
  // ada's cycle executed with the fake codex (1500 tokens): working, and its charts total 1500
  const ada = page.text.slice(page.text.indexOf('id="fleet-ada"'), page.text.indexOf('id="fleet-jerome"'));
  assert.match(ada, /badge b-working">working</);
  assert.match(ada, /#1 science_patrol executed|#1 \w+ executed/);
  assert.match(ada, /1500 used, 198500 left of 200000 \(24 h, profile\)/);
  assert.match(ada, /sessions 1 \/ 5 today/);
  assert.match(ada, /data-hours="25" data-total="1500"/, 'the 24-hour chart: one bar per clock hour, 1500 tokens');
  assert.match(ada, /data-hours="169" data-total="1500"/, 'the 7-day chart');
  const api = JSON.parse((await request(`${ro.url}/api/fleet`)).text) as { persona_id: string; health: string }[];
  assert.deepEqual(api.map((r) => [r.persona_id, r.health]), [['ada', 'working'], ['jerome', 'working']]);
});

test('a persona page lists its cycles with their decision, its session, its ledger tasks; a session page shows its files scrubbed', async () => {
  const page = await request(`${ro.url}/persona/ada`);
  assert.equal(page.status, 200);
  assert.match(page.text, /id="cycle-ada-1"/);
  assert.match(page.text, /tier \d \([^)]+\) → execute/);
  assert.match(page.text, /href="\/persona\/ada\/session\/c000001-codex"/);
  assert.match((await request(`${ro.url}/persona/jerome`)).text, /<td>T-0001<\/td><td>proposed<\/td>/, "jerome's ledger tasks");
  // a secret an executor printed is not rendered
  const stdout = path.join(f.stateDir, 'ada', 'brain', 'sessions', 'c000001-codex', 'stdout.txt');
  fs.appendFileSync(stdout, 'Authorization: Bearer sk-proj-abcdefghijklmnopqrstuvwxyz0123456789\n');
  const session = await request(`${ro.url}/persona/ada/session/c000001-codex`);
  assert.equal(session.status, 200);
  assert.match(session.text, /turn\.completed/);
  assert.doesNotMatch(session.text, /sk-proj-abcdefghij/);
  assert.match(session.text, /\[REDACTED/);
  for (const bad of ['..%2F..%2Fetc', 'c000001-codex%2F..%2F..']) {
    const r = await request(`${ro.url}/persona/ada/session/${bad}`);
    assert.equal(r.status, 404, bad);
    assert.match(r.text, /RTC_ERR_CONSOLE_NOT_FOUND/);
  }
});

test('the review queue and evidence browser: checks, raw outputs, digests and whether evidence verify holds', async () => {
  const id = await propose(f.stateDir, 'ada', 'Assay B separates the hypotheses.');
  const queue = await request(`${ro.url}/review`);
  assert.match(queue.text, new RegExp(`id="proposal-${id}"`));
  assert.match(queue.text, /expires \d{4}-/);
  assert.match(queue.text, /gate rejected: [^<]*skill-manifest failed/, 'the queue shows the gate package\'s checks');
  assert.match(queue.text, /read-only: this console was started without an operator credential/);
  assert.equal(csrfOf(queue.text), undefined, 'no decision form without a credential');
  const evidence = await request(`${ro.url}/proposal/${id}/evidence/0`);
  assert.equal(evidence.status, 200);
  assert.match(evidence.text, /evidence verify: holds · verdict rejected/);
  assert.match(evidence.text, /skill-manifest/);
  // a raw output edited after the fact: the browser says verify no longer holds, naming it
  const pkg = path.join(f.stateDir, 'ada', 'evidence-pkg');
  const manifest = JSON.parse(fs.readFileSync(path.join(pkg, 'manifest.json'), 'utf8')) as { checks: { output: string }[] };
  fs.appendFileSync(path.join(pkg, manifest.checks[0]!.output), ' ');
  const changed = await request(`${ro.url}/proposal/${id}/evidence/0`);
  assert.match(changed.text, /evidence verify: does not hold \(1 problem\(s\)\)/);
  assert.match(changed.text, /changed: checks\//);
  assert.equal((await request(`${ro.url}/proposal/${id}/evidence/7`)).status, 404);
});

test('deciding: refused without a credential, without a session, cross-site and without the form token; then accepted exactly once', async () => {
  const id = await propose(f.stateDir, 'ada', 'Decide me once.');
  // read-only server: nothing can decide, whatever the request carries
  const readOnly = await decide(ro.url, id, { decision: 'accept', csrf: 'x' });
  assert.equal(readOnly.status, 401);
  assert.match(readOnly.text, /RTC_ERR_CONSOLE_AUTH: this console is read-only/);
  // operator server, but this browser has not logged in
  const anonymous = await decide(op.url, id, { decision: 'accept', csrf: 'x' });
  assert.equal(anonymous.status, 401);
  assert.match(anonymous.text, /RTC_ERR_CONSOLE_AUTH: not logged in as operator alice/);
  // a wrong access token opens no session
  const wrong = await request(`${op.url}/login?token=not-the-token`);
  assert.equal(wrong.status, 401);
  assert.equal(wrong.headers.get('set-cookie'), null);
  const cookie = await login(op.loginUrl!);
  const page = await request(`${op.url}/proposal/${id}`, { headers: { cookie } });
  const csrf = csrfOf(page.text)!;
  assert.ok(csrf, 'a logged-in operator gets the decision form');
  // forged cross-site requests: another origin, no origin at all, a missing or wrong form token
  const forged = await decide(op.url, id, { decision: 'accept', csrf }, { cookie, origin: 'https://evil.example' });
  assert.equal(forged.status, 403);
  assert.match(forged.text, /RTC_ERR_CONSOLE_CSRF: a request from https:\/\/evil\.example may not change state/);
  const noOrigin = await request(`${op.url}/proposal/${id}/decide`, { method: 'POST', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, body: `decision=accept&csrf=${csrf}` });
  assert.equal(noOrigin.status, 403);
  assert.equal((await decide(op.url, id, { decision: 'accept' }, { cookie })).status, 403);
  assert.equal((await decide(op.url, id, { decision: 'accept', csrf: `${csrf}x` }, { cookie })).status, 403);
  assert.equal((await decide(op.url, id, { decision: 'maybe', csrf }, { cookie })).status, 400);
  assert.match((await decide(op.url, id, { decision: 'reject', csrf }, { cookie })).text, /a rejection needs a reason/);
  assert.equal(await proposalState(id), 'pending', 'nothing refused was decided');

  const accepted = await decide(op.url, id, { decision: 'accept', csrf, reason: 'the evidence holds' }, { cookie });
  assert.equal(accepted.status, 303);
  assert.equal(accepted.headers.get('location'), `/proposal/${id}?done=accept`);
  assert.equal(await proposalState(id), 'accepted');
  // signed with alice's credential, exactly as the CLI signs: the ratification check holds
  const queue = await openPersonaReviewQueue(path.join(f.stateDir, 'ada'), persistenceProvider, { readonly: true });
  try {
    const decision = queue.get(id).decision as { by: string; ratification?: { key_fingerprint: string } };
    assert.equal(decision.by, 'alice');
    assert.equal(decision.ratification?.key_fingerprint, alice!.key.fingerprint);
  } finally {
    await queue.close();
  }
  const shown = await request(`${op.url}/proposal/${id}?done=accept`, { headers: { cookie } });
  assert.match(shown.text, /accepted by alice: it takes effect at the persona&#39;s next cycle boundary/);

  const again = await decide(op.url, id, { decision: 'reject', csrf, reason: 'changed my mind' }, { cookie });
  assert.equal(again.status, 409);
  assert.match(again.text, /RTC_ERR_REVIEW_DECIDED/);
  assert.equal(await proposalState(id), 'accepted', 'decided once');
  for (const [bad, code] of [['P-ada-999', 404], ['P-nobody-1', 404], ['nonsense', 404]] as const) {
    const r = await decide(op.url, bad, { decision: 'accept', csrf }, { cookie });
    assert.equal(r.status, code, bad);
    assert.match(r.text, /RTC_ERR_(REVIEW|CONSOLE)_NOT_FOUND/);
    assert.doesNotMatch(r.text, /\n\s+at /, 'no stack trace');
  }
});

test('a Host the console does not serve is refused before anything is read (DNS rebinding)', async () => {
  const port = new URL(ro.url).port;
  for (const host of [`evil.example:${port}`, `127.0.0.1:${Number(port) + 1}`]) {
    const r = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      import('node:http').then(({ request: req }) => {
        const q = req({ host: '127.0.0.1', port, path: '/', headers: { host } }, (res) => {
          let body = '';
          res.on('data', (d) => (body += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        });
        q.on('error', reject);
        q.end();
      });
    });
    assert.equal(r.status, 400, host);
    assert.match(r.body, /RTC_ERR_CONSOLE_REQUEST: host/);
    assert.doesNotMatch(r.body, /fleet-ada/);
  }
});

test('a new cycle reaches an open stream; a client that disconnects mid-stream is dropped and the server keeps serving', async () => {
  const head = JSON.parse((await request(`${ro.url}/api/fleet`)).text).find((r: { persona_id: string }) => r.persona_id === 'jerome').summary.history.head.seq as number;
  const controller = new AbortController();
  const res = await fetch(`${ro.url}/events?persona=jerome&after=${head}`, { signal: controller.signal });
  assert.equal(res.headers.get('content-type')?.split(';')[0], 'text/event-stream');
  const reader = res.body!.getReader();
  let text = '';
  const until = async (pattern: RegExp) => {
    while (!pattern.test(text)) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`stream ended before ${pattern}: ${text}`);
      text += Buffer.from(value).toString('utf8');
    }
  };
  await until(/event: ready/);
  await run([f.personas[1]!], { stateDir: f.stateDir });
  await until(/"cycle":\{"cycle":2/);
  assert.match(text, /event: event\ndata: \{"persona":"jerome","seq":\d+,"type":"continuous_loop_cycle"/);
  assert.equal(ro.console.hub.subscribers, 1);
  controller.abort();
  for (let i = 0; i < 100 && ro.console.hub.subscribers > 0; i++) await new Promise((r) => setTimeout(r, 20));
  assert.equal(ro.console.hub.subscribers, 0, 'the disconnected client was unsubscribed');
  assert.equal((await request(`${ro.url}/`)).status, 200);
});

test('a persona whose log is corrupt shows its error; the others and the server keep working', async () => {
  const state = path.join(f.dir, 'state-corrupt');
  fs.cpSync(f.stateDir, state, { recursive: true });
  const log = path.join(state, 'jerome', 'logs', 'events.jsonl');
  fs.writeFileSync(log, fs.readFileSync(log, 'utf8').replace(/"cycle":1,/, '"cycle":7,'));
  const c = await startConsole({ stateDir: state, port: 0 });
  try {
    const page = await request(`${c.url}/`);
    assert.equal(page.status, 200);
    const jerome = page.text.slice(page.text.indexOf('id="fleet-jerome"'));
    assert.match(jerome, /b-failing">failing/);
    assert.match(jerome, /class="error">RTC_ERR_EVENTS_/);
    assert.match(page.text, /id="fleet-ada">[\s\S]*b-working/);
    const persona = await request(`${c.url}/persona/jerome`);
    assert.equal(persona.status, 200);
    assert.match(persona.text, /id="error">RTC_ERR_EVENTS_/);
    assert.doesNotMatch(persona.text, /\n\s+at /);
    assert.equal((await request(`${c.url}/persona/ada`)).status, 200);
    assert.equal((await request(`${c.url}/persona/nobody`)).status, 404);
  } finally {
    await c.close();
  }
});

test('serve --operator without an operator credential stops with one line; with one it prints the login URL', async () => {
  const home = fs.mkdtempSync(path.join(f.dir, 'no-operator-'));
  const r = await runCli(['serve', '--state-dir', f.stateDir, '--port', '0', '--operator'], { env: { RUNTIMECTL_OPERATOR_HOME: home } });
  assert.equal(r.status, 1);
  assert.match(r.stderr, /^runtimectl: RTC_ERR_REVIEW_OPERATOR: no operator credential at .+operator-key\.json/);
  assert.doesNotMatch(r.stderr, /\n\s+at /);
});
