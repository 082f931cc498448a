/**
 * `fetch` through undici. The host of the URL and of every redirect hop is checked
 * against `net` (Deno refuses a redirect to an ungranted host; the hop's check is audited
 * like the first); a bad port is a TypeError before any permission check, as the Fetch
 * standard and Deno have it. Request bodies arrive whole; a response body streams: it stays
 * on the host as a resource the script reads chunk by chunk (net-body.ts), each body capped
 * by the transfer limit and each chunk in flight counted by the run's scope (kernel/broker/run-scope.ts),
 * which also limits how many fetches run at once, gives them the run's own connection pool
 * (destroyed, with every body still open, when the run ends) and aborts them then.
 * Waiting for headers, and for each next chunk of a body, is bounded by `netTimeoutMs`.
 */
import { STATUS_CODES } from 'node:http';
import { registerBody } from './net-body.ts';
import { DenoOpError } from '../../../kernel/broker/deno-error.ts';
import type { Dispatcher } from 'undici';
import { loadUndici, undiciLoaded } from './undici.ts';
import type { OpTicket } from '../../../kernel/broker/run-scope.ts';
import { defineOp, type BrokerContext, type OpCall } from '../../../kernel/broker/op.ts';
import { optStr, record, str } from '../../../kernel/broker/args.ts';
import { urlAttempts } from '../../../kernel/broker/attempts.ts';
import { canonicalHostPort, netAliases } from '../../../kernel/permissions/net-address.ts';
import { notCapableMessage } from '../../../kernel/permissions/gate.ts';
import { checkedConnector, DeniedAddressError } from './checked-address.ts';
import { Refusal } from '../../../kernel/broker/refusal.ts';

// The Fetch standard's "bad ports".
const BAD_PORTS = new Set([1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110, 111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080]);

/**
 * The run's connection pool, shared by its fetches and destroyed when the run ends (kernel/broker/run-scope.ts).
 * Each connection goes to the address its name was checked to resolve to (checked-address.ts),
 * against the grant the context has then (a test's narrowing, a revoke). Called after
 * loadUndici() resolved.
 */
function runPool(ticket: OpTicket, ctx: BrokerContext): Dispatcher {
  return ticket.shared('net.pool', () => {
    const agent = new (undiciLoaded().Agent)({ connect: checkedConnector((hostPort, aliases) => ctx.gate.query('net', hostPort, aliases).state === 'denied') });
    return { value: agent, close: () => void agent.destroy().catch(() => undefined) };
  });
}

/**
 * The URL and the `host:port` its grant is checked for: the host in its one spelling
 * (net-address.ts: `127.1`, `0x7f000001`, `[::ffff:127.0.0.1]` are `127.0.0.1`), with its
 * other names for the deny side (a loopback is also `localhost`).
 */
function target(raw: string): { url: URL; hostPort: string; aliases: string[] } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new DenoOpError('TypeError', `Invalid URL: '${raw}'`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new DenoOpError('TypeError', `scheme '${url.protocol.slice(0, -1)}' not supported`);
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  if (BAD_PORTS.has(port)) throw new DenoOpError('TypeError', `Fetch failed: bad port ${port}`);
  const hostPort = canonicalHostPort(url.hostname, port);
  if (hostPort === undefined) throw new DenoOpError('TypeError', `Invalid URL: '${raw}'`);
  return { url, hostPort, aliases: netAliases(hostPort) };
}

export function sendError(error: unknown, url: URL, ticket: OpTicket): DenoOpError {
  if (error instanceof DenoOpError) return error;
  // The name was granted but resolves to a denied address: a refusal, audited like any other.
  const denied = error instanceof DeniedAddressError ? error : (error as { cause?: unknown })?.cause instanceof DeniedAddressError ? ((error as { cause: DeniedAddressError }).cause) : undefined;
  if (denied) return new Refusal('net', denied.address, `${notCapableMessage('net', denied.address)} (${denied.requested} resolves to it)`, 'resolved-address');
  if (ticket.signal.aborted) return ticket.signal.reason instanceof DenoOpError ? ticket.signal.reason : new DenoOpError('Interrupted', 'the run ended while this fetch was in flight');
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ECONNREFUSED') return new DenoOpError('TypeError', `error sending request for url (${url.href}): client error (Connect): tcp connect error: Connection refused (os error 111)`);
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') return new DenoOpError('TypeError', `error sending request for url (${url.href}): the server sent nothing for too long (${(error as Error).message})`);
  return new DenoOpError('TypeError', `error sending request for url (${url.href}): ${(error as Error).message}`);
}

/**
 * Where a redirect leads. A hop fetch will not take (a bad port, a scheme it does not follow,
 * a location that is not a URL) is a TypeError, as in Deno, before its `net` check: its
 * attempt is audited first, so a server cannot hide where it tried to send the script.
 */
function redirectHop(location: string, from: URL, call: OpCall): { url: URL; hostPort: string; aliases: string[] } {
  let next: URL;
  try {
    next = new URL(location, from);
  } catch {
    throw new DenoOpError('TypeError', `Fetch failed: the redirect location is not a URL: '${location.slice(0, 200)}'`);
  }
  try {
    return target(next.href);
  } catch (error) {
    for (const attempt of urlAttempts(next.href)) call.attempted(attempt, 'redirect');
    throw error;
  }
}

export const netFetch = defineOp({
  name: 'net.fetch',
  mode: 'async',
  parse(raw) {
    const o = record(raw);
    const headers = o.headers;
    if (!Array.isArray(headers) || headers.some((h) => !Array.isArray(h) || h.length !== 2 || typeof h[0] !== 'string' || typeof h[1] !== 'string')) {
      throw new DenoOpError('TypeError', 'headers must be name/value pairs');
    }
    const first = target(str(o, 'url'));
    const body = optStr(o, 'body');
    return { first, method: str(o, 'method'), headers: headers as [string, string][], body: body === null ? null : Buffer.from(body, 'base64'), redirect: optStr(o, 'redirect') ?? 'follow' };
  },
  needs: (a) => [{ kind: 'net', value: a.first.hostPort, aliases: a.first.aliases }],
  attempts: (raw) => urlAttempts(raw.url),
  scoped: true,
  async run(a, ctx: BrokerContext, call) {
    const ticket = call.ticket!;
    let current = a.first;
    let method = a.method;
    let body = a.body;
    for (let hop = 0; hop <= 20; hop++) {
      if (hop > 0) call.require('net', current.hostPort, current.hostPort, 'redirect', current.aliases);
      let response;
      try {
        response = await (await loadUndici()).request(current.url, {
          method: method as 'GET',
          headers: Object.fromEntries(a.headers),
          body: body ?? undefined,
          signal: ticket.signal,
          dispatcher: runPool(ticket, ctx),
          headersTimeout: ctx.netTimeoutMs,
          bodyTimeout: ctx.netTimeoutMs,
        });
      } catch (error) {
        throw sendError(error, current.url, ticket);
      }
      const location = response.headers.location;
      if (response.statusCode >= 300 && response.statusCode < 400 && typeof location === 'string' && a.redirect !== 'manual') {
        await response.body.dump().catch(() => undefined);
        if (a.redirect === 'error') throw new DenoOpError('TypeError', 'Fetch failed: redirect mode is set to error');
        current = redirectHop(location, current.url, call);
        if (response.statusCode === 303 || ((response.statusCode === 301 || response.statusCode === 302) && method === 'POST')) {
          method = 'GET';
          body = null;
        }
        continue;
      }
      const headers: [string, string][] = [];
      for (const [k, v] of Object.entries(response.headers)) {
        if (v === undefined) continue;
        for (const value of Array.isArray(v) ? v : [v]) headers.push([k, value]);
      }
      // The body streams: the script reads it chunk by chunk (net-body.ts) through its rid,
      // and keeps this fetch's slot until it has all arrived.
      const kept = ticket.keep();
      const length = Number(response.headers['content-length'] ?? NaN);
      try {
        // A body that says it cannot fit fails now, as a buffered one would.
        if (length > ctx.maxResponseBytes) throw new DenoOpError('InvalidData', `response body is larger than the sandbox cap of ${ctx.maxResponseBytes} bytes`);
        if (length > 0) {
          kept.hold(length);
          kept.release(length);
        }
      } catch (error) {
        kept.done();
        // Destroying a body undici is still reading makes it emit an AbortError: heard here, or
        // it would be an uncaught exception of the kernel (a server sending more than the cap).
        response.body.on('error', () => undefined);
        response.body.destroy();
        throw error;
      }
      const rid = registerBody(ctx, response.body, current.url, kept);
      return { status: response.statusCode, statusText: STATUS_CODES[response.statusCode] ?? '', headers, rid, url: current.url.href, redirected: hop > 0 };
    }
    throw new DenoOpError('TypeError', 'Fetch failed: too many redirects');
  },
});
