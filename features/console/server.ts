/**
 * The operator's console: a Hono app over a state directory (routes below), and the
 * node-server that listens for it. Every page is read through the history's read path and
 * the review queue's own replay; nothing here writes except a decision, made by a Decider
 * (decide.ts) that exists only when the server was started with an operator credential.
 *
 *   GET  /                           the fleet overview (live)
 *   GET  /persona/:id                a persona: cycles (live), sessions, ledger, proposals
 *   GET  /persona/:id/session/:run   one executor session's files
 *   GET  /review                     the review queue across the fleet
 *   GET  /proposal/:id               one proposal, its evidence, the decision form
 *   GET  /proposal/:id/evidence/:n   the gate evidence browser for its n-th evidence
 *   POST /proposal/:id/decide        accept or reject (operator session + same origin + form token)
 *   GET  /events?persona=ID&after=N  server-sent events (without persona: the whole fleet)
 *   GET  /login?token=T              opens an operator session (the one-time URL `serve` printed)
 *   POST /logout                     ends this browser's operator session (same origin + form token)
 *   GET  /api/fleet                  the overview's rows as JSON
 */
import { Hono, type Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { streamSSE } from 'hono/streaming';
import { serve, type ServerType } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { existsSync } from 'node:fs';
import { errorLine, isKernelError, kernelError, type ErrorCode } from '../../kernel/errors.ts';
import { PERSONA_ID_PATTERN } from '../../kernel/personas/profile-schema.ts';

import { LIVE_SCRIPT, page, type NavState } from './html.ts';
import { FleetCache, fleetRows } from './fleet.ts';
import { readPersonaPage, readSession } from './persona.ts';
import { fleetQueues, personaQueue } from './review.ts';
import { evidenceView } from './evidence.ts';
import { LiveHub } from './live.ts';
import { consoleScrub, type ConsoleScrub } from './scrub.ts';
import { checkHost, checkSameOrigin, LOGIN_TTL_MS, SESSION_COOKIE, sessions, type LoginRefusal, type Sessions, type SessionTimes } from './security.ts';
import { personaOfProposal, type Decider } from './decide.ts';
import { overviewBody } from './pages/overview.ts';
import { personaBody, sessionBody } from './pages/persona.ts';
import { proposalBody, queueBody, type DecideForm } from './pages/review.ts';
import { evidenceBody } from './pages/evidence.ts';
import { errorBody } from './pages/error.ts';

export interface ConsoleOptions {
  stateDir: string;
  /** present only when started with an operator credential */
  decider?: Decider;
  /** a last cycle older than this makes a persona "stopped" (default 1 h) */
  staleAfterMs?: number;
  /** how often the live stream looks for new events (default 250 ms) */
  liveIntervalMs?: number;
  clock?: () => number;
  scrub?: ConsoleScrub;
  /** keep the rows of personas whose files did not change (default true; the bench measures both) */
  cacheRows?: boolean;
  /** host names the console also answers (`serve --allow-host`): a name it is reached by besides its address */
  allowHosts?: readonly string[];
  /** how long a login URL and a session last (defaults in security.ts; tests shorten them) */
  sessionTimes?: SessionTimes;
  /** told each new one-time login URL after the first (the last was spent or expired): serve prints it */
  onLoginUrl?: (url: string, why: 'used' | 'expired') => void;
}

export interface ConsoleApp {
  app: Hono;
  sessions: Sessions;
  hub: LiveHub;
  /** set once listening: the bound host and port (the Host check needs the port) and the console's URL */
  bind: { host: string; port: number; url: string };
}

const STATUS: Partial<Record<ErrorCode, 400 | 401 | 403 | 404 | 409>> = {
  RTC_ERR_CONSOLE_AUTH: 401,
  RTC_ERR_CONSOLE_CSRF: 403,
  RTC_ERR_CONSOLE_NOT_FOUND: 404,
  RTC_ERR_CONSOLE_REQUEST: 400,
  RTC_ERR_REVIEW_NOT_FOUND: 404,
  RTC_ERR_REVIEW_DECIDED: 409,
  RTC_ERR_REVIEW_EXPIRED: 409,
  RTC_ERR_REVIEW_TRANSITION: 409,
  RTC_ERR_REVIEW_INVALID: 400,
  RTC_ERR_REVIEW_LOCKED: 409,
};

function personaParam(stateDir: string, id: string): string {
  if (!PERSONA_ID_PATTERN.test(id)) throw kernelError('RTC_ERR_CONSOLE_NOT_FOUND', `no persona ${JSON.stringify(id)}: not a persona id`);
  if (!existsSync(path.join(stateDir, id))) throw kernelError('RTC_ERR_CONSOLE_NOT_FOUND', `no persona ${id} under ${stateDir}`);
  return id;
}

export function createConsole(options: ConsoleOptions): ConsoleApp {
  const { stateDir, decider } = options;
  const clock = options.clock ?? Date.now;
  const scrub = options.scrub ?? consoleScrub();
  const staleAfterMs = options.staleAfterMs ?? 3_600_000;
  const bind = { host: '127.0.0.1', port: 0, url: '' };
  const auth = sessions(decider !== undefined, clock(), options.sessionTimes, (token, why) => options.onLoginUrl?.(`${bind.url}/login?token=${token}`, why));
  const hub = new LiveHub(stateDir, scrub, options.liveIntervalMs ?? 250);
  const app = new Hono();
  const rowsCache = options.cacheRows === false ? undefined : new FleetCache();

  const sessionOf = (c: Context) => {
    const id = getCookie(c, SESSION_COOKIE);
    const csrf = auth.csrfOf(id, clock());
    return csrf === undefined || id === undefined ? undefined : { id, csrf };
  };
  const nav = (c: Context): NavState => {
    const s = decider ? sessionOf(c) : undefined;
    return { ...(decider ? { operator: decider.operator } : {}), canDecide: s !== undefined, ...(s ? { csrf: s.csrf } : {}) };
  };
  const form = (c: Context): DecideForm => {
    const s = sessionOf(c);
    if (!decider) return { canDecide: false, why: 'read-only: this console was started without an operator credential (serve --operator)' };
    if (!s) return { canDecide: false, why: `read-only: log in as operator ${decider.operator} with the URL serve printed to decide` };
    return { canDecide: true, csrf: s.csrf };
  };
  const render = async (c: Context, title: string, body: unknown, live?: string, status: 200 | 400 | 401 | 403 | 404 | 409 | 500 = 200) =>
    c.html(await page({ title, body, nav: nav(c), ...(live ? { live } : {}) }), status);

  app.use('*', async (c, next) => {
    // Before anything is read: the Host must be one this console serves (DNS rebinding).
    checkHost(c.req.header('host'), { bind: bind.host, port: () => bind.port, allowed: options.allowHosts ?? [] });
    await next();
    c.header('X-Frame-Options', 'DENY');
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Referrer-Policy', 'no-referrer');
    c.header('Content-Security-Policy', "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'");
    c.header('Cache-Control', 'no-store');
  });

  app.get('/static/live.js', (c) => c.body(LIVE_SCRIPT, 200, { 'Content-Type': 'text/javascript; charset=utf-8' }));

  const LOGIN_REFUSED: Record<LoginRefusal, string> = {
    'no-credential': 'this console was started without an operator credential: there is nothing to log in to (start it with serve --operator)',
    wrong: 'wrong or missing access token: open the login URL runtimectl serve printed',
    used: 'this login URL was already used: it opens one browser session, once; a new one-time URL was printed where runtimectl serve runs',
    expired: `this login URL expired (it is valid for ${Math.round((options.sessionTimes?.loginTtlMs ?? LOGIN_TTL_MS) / 60_000)} min): a new one-time URL was printed where runtimectl serve runs`,
  };

  app.get('/login', (c) => {
    const opened = auth.open(c.req.query('token') ?? '', clock());
    if ('refused' in opened) throw kernelError('RTC_ERR_CONSOLE_AUTH', LOGIN_REFUSED[opened.refused]);
    setCookie(c, SESSION_COOKIE, opened.session, { httpOnly: true, sameSite: 'Strict', path: '/', maxAge: opened.maxAgeSeconds });
    return c.redirect('/', 303);
  });

  app.post('/logout', async (c) => {
    checkSameOrigin({ origin: c.req.header('origin'), secFetchSite: c.req.header('sec-fetch-site'), host: c.req.header('host') });
    const session = sessionOf(c);
    if (!session) throw kernelError('RTC_ERR_CONSOLE_AUTH', 'not logged in: there is no session to end');
    const body = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
    if (body.csrf !== session.csrf) throw kernelError('RTC_ERR_CONSOLE_CSRF', "the form token is missing or not this session's: log out from the console's own page");
    auth.close(session.id);
    deleteCookie(c, SESSION_COOKIE, { path: '/' });
    return c.redirect('/?logged_out=1', 303);
  });

  app.get('/', async (c) => {
    const rows = await fleetRows(stateDir, { nowMs: clock(), staleAfterMs }, rowsCache);
    const after = rows.map((r) => `${r.persona_id}:${r.summary?.history.head?.seq ?? 0}`).join(',');
    return render(c, 'Fleet', overviewBody(rows, clock(), scrub), `/events?after=${encodeURIComponent(after)}`);
  });

  app.get('/api/fleet', async (c) => {
    const rows = await fleetRows(stateDir, { nowMs: clock(), staleAfterMs }, rowsCache);
    return c.json(scrub.deep(rows.map((r) => ({ persona_id: r.persona_id, health: r.health, ...(r.error ? { error: r.error } : { summary: r.summary }) }))));
  });

  app.get('/persona/:id', async (c) => {
    const id = personaParam(stateDir, c.req.param('id'));
    let data;
    try {
      data = await readPersonaPage(stateDir, id, clock());
    } catch (error) {
      // The persona's own fault (a corrupt log): its page says so; the server goes on.
      return render(c, `Persona ${id}`, errorBody(scrub.text(errorLine(error))), undefined, 200);
    }
    const head = data.summary.history.head?.seq ?? 0;
    return render(c, `Persona ${id}`, personaBody(id, data, clock(), scrub), `/events?persona=${encodeURIComponent(id)}&after=${head}`);
  });

  app.get('/persona/:id/session/:run', (c) => {
    const id = personaParam(stateDir, c.req.param('id'));
    const files = readSession(stateDir, id, c.req.param('run'));
    return render(c, `Session ${c.req.param('run')} of ${id}`, sessionBody(files, scrub));
  });

  app.get('/review', async (c) => render(c, 'Review queue', queueBody(stateDir, await fleetQueues(stateDir, clock()), clock(), form(c), scrub)));

  const proposalOf = async (id: string) => {
    const persona = personaParam(stateDir, personaOfProposal(id));
    const q = await personaQueue(stateDir, persona);
    if (q.error) throw kernelError('RTC_ERR_REVIEW_LOG_CORRUPT', q.errorMessage ?? q.error);
    const p = q.proposals.find((x) => x.id === id);
    if (!p) throw kernelError('RTC_ERR_REVIEW_NOT_FOUND', `no proposal ${id} in the review queue of persona ${persona}`);
    return { persona, p };
  };

  app.get('/proposal/:id', async (c) => {
    const { p } = await proposalOf(c.req.param('id'));
    const done = c.req.query('done');
    const notice = done === 'accept' ? `accepted by ${p.decision?.by ?? '?'}: it takes effect at the persona's next cycle boundary` : done === 'reject' ? `rejected by ${p.decision?.by ?? '?'}` : undefined;
    return render(c, `Proposal ${p.id}`, proposalBody(p, clock(), form(c), scrub, notice));
  });

  app.get('/proposal/:id/evidence/:n', async (c) => {
    const { persona, p } = await proposalOf(c.req.param('id'));
    const n = c.req.param('n');
    if (!/^\d{1,3}$/.test(n)) throw kernelError('RTC_ERR_CONSOLE_NOT_FOUND', `no evidence #${n} of ${p.id}`);
    return render(c, `Evidence of ${p.id}`, evidenceBody(evidenceView(path.join(stateDir, persona), p, Number(n)), scrub));
  });

  app.post('/proposal/:id/decide', async (c) => {
    const id = c.req.param('id');
    // The order matters: who (a credential at all), from where (same origin), this session's token.
    if (!decider) throw kernelError('RTC_ERR_CONSOLE_AUTH', 'this console is read-only: it was started without an operator credential (serve --operator), so nothing can be decided here');
    checkSameOrigin({ origin: c.req.header('origin'), secFetchSite: c.req.header('sec-fetch-site'), host: c.req.header('host') });
    const session = sessionOf(c);
    if (!session) throw kernelError('RTC_ERR_CONSOLE_AUTH', `not logged in as operator ${decider.operator}: open the login URL runtimectl serve printed, then decide`);
    const body = await c.req.parseBody().catch(() => {
      throw kernelError('RTC_ERR_CONSOLE_REQUEST', 'the decision is not a form');
    });
    const csrf = typeof body.csrf === 'string' ? body.csrf : '';
    if (csrf !== session.csrf) throw kernelError('RTC_ERR_CONSOLE_CSRF', 'the form token is missing or not this session\'s: reload the proposal\'s page and decide again');
    const verdict = body.decision;
    if (verdict !== 'accept' && verdict !== 'reject') throw kernelError('RTC_ERR_CONSOLE_REQUEST', `decision ${JSON.stringify(verdict ?? '')}: accept or reject`);
    const reason = typeof body.reason === 'string' && body.reason.trim() !== '' ? body.reason.trim() : undefined;
    if (reason !== undefined && reason.length > 1000) throw kernelError('RTC_ERR_CONSOLE_REQUEST', `the reason is ${reason.length} characters; at most 1000`);
    if (verdict === 'reject' && reason === undefined) throw kernelError('RTC_ERR_CONSOLE_REQUEST', 'a rejection needs a reason');
    personaParam(stateDir, personaOfProposal(id));
    await decider.decide(stateDir, id, verdict, reason, clock());
    return c.redirect(`/proposal/${encodeURIComponent(id)}?done=${verdict}`, 303);
  });

  app.get('/events', async (c) => {
    const persona = c.req.query('persona');
    if (persona !== undefined) personaParam(stateDir, persona);
    const afterText = c.req.query('after') ?? '';
    const after = new Map<string, number>();
    if (persona !== undefined) {
      if (afterText !== '' && !/^\d{1,15}$/.test(afterText)) throw kernelError('RTC_ERR_CONSOLE_REQUEST', `after=${afterText}: a seq`);
      if (afterText !== '') after.set(persona, Number(afterText));
    } else if (afterText !== '') {
      for (const part of afterText.split(',')) {
        const m = /^([^:]+):(\d{1,15})$/.exec(part);
        if (!m || !PERSONA_ID_PATTERN.test(m[1]!)) throw kernelError('RTC_ERR_CONSOLE_REQUEST', `after=${afterText}: persona:seq pairs`);
        after.set(m[1]!, Number(m[2]));
      }
    }
    return streamSSE(c, async (stream) => {
      const queue: { event: string; data: string }[] = [];
      let wake: (() => void) | undefined;
      const push = (m: { event: string; data: unknown }) => {
        queue.push({ event: m.event, data: JSON.stringify(m.data) });
        wake?.();
      };
      const unsubscribe = hub.subscribe(persona ?? '*', push);
      let closed = false;
      stream.onAbort(() => {
        closed = true;
        unsubscribe();
        wake?.();
      });
      try {
        for (const [id, seq] of after) await hub.catchUp(id, seq, push).catch(() => undefined);
        // Every other watched persona is followed from its head before the stream says ready.
        await hub.prime(persona ?? '*');
        await stream.writeSSE({ event: 'ready', data: '{}' });
        while (!closed) {
          while (queue.length > 0 && !closed) await stream.writeSSE(queue.shift()!);
          if (closed) break;
          // A comment line now and then: a dead connection is found, and proxies keep it open.
          await new Promise<void>((resolve) => {
            wake = resolve;
            setTimeout(resolve, 15_000).unref();
          });
          wake = undefined;
          if (queue.length === 0 && !closed) await stream.write(': keep-alive\n\n');
        }
      } finally {
        unsubscribe();
      }
    });
  });

  app.notFound((c) => render(c, 'Not found', errorBody(`RTC_ERR_CONSOLE_NOT_FOUND: no page ${c.req.path}`), undefined, 404));

  app.onError(async (error, c) => {
    const line = scrub.text(errorLine(error));
    const status = isKernelError(error) ? (STATUS[error.code] ?? 400) : 500;
    // An internal fault is one line too; its stack goes nowhere near the page.
    const shown = isKernelError(error) && !error.internal ? line : `internal error: ${line}`;
    if (c.req.header('accept')?.includes('text/event-stream')) return c.text(shown, status);
    return c.html(await page({ title: status === 404 ? 'Not found' : 'Error', body: errorBody(shown), nav: nav(c) }), status);
  });

  return { app, sessions: auth, hub, bind };
}

export interface RunningConsole {
  url: string;
  /** the URL that opens an operator session (only with a credential) */
  loginUrl?: string;
  console: ConsoleApp;
  close(): Promise<void>;
}

/** Listens on host:port (port 0: any free port) and resolves once listening. */
export function startConsole(options: ConsoleOptions & { host?: string; port?: number }): Promise<RunningConsole> {
  const made = createConsole(options);
  const host = options.host ?? '127.0.0.1';
  made.bind.host = host;
  return new Promise((resolve, reject) => {
    let server: ServerType;
    const fail = (error: Error) => reject(kernelError('RTC_ERR_CONSOLE_LISTEN', `cannot listen on ${host}:${options.port ?? 0}: ${error.message}`));
    try {
      server = serve({ fetch: made.app.fetch, hostname: host, port: options.port ?? 0 }, (info: AddressInfo) => {
        made.bind.port = info.port;
        const shown = host.includes(':') ? `[${host}]` : host;
        const url = `http://${shown}:${info.port}`;
        made.bind.url = url;
        server.off('error', fail);
        resolve({
          url,
          ...(made.sessions.accessToken ? { loginUrl: `${url}/login?token=${made.sessions.accessToken}` } : {}),
          console: made,
          close: () =>
            new Promise<void>((done) => {
              made.hub.close();
              (server as { closeAllConnections?: () => void }).closeAllConnections?.();
              server.close(() => done());
            }),
        });
      });
      server.once('error', fail);
    } catch (error) {
      fail(error as Error);
    }
  });
}

