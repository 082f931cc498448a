/**
 * What keeps the console safe by default (features/console/README.md, "Safety"):
 *
 * - **Who may decide.** The server holds an operator credential only when started with one
 *   (`serve --operator`); then it prints a login URL with a random access token. The token is
 *   one-time and short-lived: the first browser that opens the URL within LOGIN_TTL gets a
 *   session cookie (HttpOnly, SameSite=Strict) and the token is spent; a second browser with
 *   the same URL is refused. A session ends on logout (POST /logout, from the console's own
 *   page), after SESSION_IDLE without a request, or SESSION_MAX after login, whichever is
 *   first. Whenever the token is spent or has expired, the server mints a new one and prints
 *   its URL where `serve` runs (the operator's terminal), so the operator can log in again
 *   without a restart. Without a live session every page is read-only and every
 *   state-changing request is refused (RTC_ERR_CONSOLE_AUTH). A server started without a
 *   credential cannot decide at all, whatever a request carries.
 * - **Cross-site requests.** A state-changing request must come from the console's own origin
 *   (Origin, else Sec-Fetch-Site: same-origin; a request with neither is refused) and carry
 *   the session's form token, which only the console's own pages hold (RTC_ERR_CONSOLE_CSRF).
 * - **DNS rebinding.** Every request's Host is checked, whatever address the server is bound
 *   to (a wildcard such as 0.0.0.0 or ::, one interface, a host name): its port must be the
 *   console's, and its name the bound address, a loopback name, an IP address (a rebinding
 *   page's Host is always its own domain name, never an address), or a name the operator
 *   allowed (`serve --allow-host NAME`). Anything else is refused before any page is read
 *   (RTC_ERR_CONSOLE_REQUEST): a hostile page cannot point its own name at the console and
 *   read the fleet.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import { kernelError } from '../../kernel/errors.ts';

export const SESSION_COOKIE = 'rtc_console';

/** How long a printed login URL stays valid, unused. */
export const LOGIN_TTL_MS = 15 * 60_000;
/** A session with no request for this long is over. */
export const SESSION_IDLE_MS = 30 * 60_000;
/** A session is over this long after its login, however active. */
export const SESSION_MAX_MS = 12 * 3_600_000;

export function randomToken(): string {
  return randomBytes(32).toString('base64url');
}

export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Loopback names and addresses. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127(?:\.\d{1,3}){3}$/.test(host);
}

/** Why a login or a session was refused, for the one-line error. */
export type LoginRefusal = 'no-credential' | 'wrong' | 'used' | 'expired';

export interface SessionTimes {
  loginTtlMs?: number;
  idleMs?: number;
  maxMs?: number;
}

export interface Sessions {
  /** the access token the current login URL carries; undefined when the server holds no credential */
  readonly accessToken: string | undefined;
  /** a new session for a browser that presented the current access token (which is then spent), or why not */
  open(token: string, nowMs: number): { session: string; csrf: string; maxAgeSeconds: number } | { refused: LoginRefusal };
  /** the form token of a live session (its idle clock restarted), or undefined; an expired one is ended */
  csrfOf(session: string | undefined, nowMs: number): string | undefined;
  /** whether `session` was live and is ended now (logout) */
  close(session: string | undefined): boolean;
}

/**
 * The console's login and sessions. `onNewToken` is told each new access token after the first
 * (the one spent, or expired): `serve` prints its URL for the operator.
 */
export function sessions(withCredential: boolean, nowMs: number, times: SessionTimes = {}, onNewToken?: (token: string, why: 'used' | 'expired') => void): Sessions {
  const loginTtl = times.loginTtlMs ?? LOGIN_TTL_MS;
  const idle = times.idleMs ?? SESSION_IDLE_MS;
  const max = times.maxMs ?? SESSION_MAX_MS;
  let token = withCredential ? { value: randomToken(), mintedAt: nowMs } : undefined;
  /** tokens spent or expired: a second use of one says so, rather than "wrong" */
  const spent = new Map<string, 'used' | 'expired'>();
  const live = new Map<string, { csrf: string; openedAt: number; seenAt: number }>();
  const renew = (why: 'used' | 'expired', at: number) => {
    spent.set(token!.value, why);
    token = { value: randomToken(), mintedAt: at };
    onNewToken?.(token.value, why);
  };
  return {
    get accessToken() {
      return token?.value;
    },
    open(presented, at) {
      if (token === undefined) return { refused: 'no-credential' };
      if (at - token.mintedAt > loginTtl) renew('expired', at);
      if (!sameSecret(presented, token.value)) {
        for (const [old, why] of spent) if (sameSecret(presented, old)) return { refused: why };
        return { refused: 'wrong' };
      }
      renew('used', at);
      const session = randomToken();
      const csrf = randomToken();
      live.set(session, { csrf, openedAt: at, seenAt: at });
      return { session, csrf, maxAgeSeconds: Math.floor(max / 1000) };
    },
    csrfOf(session, at) {
      if (session === undefined) return undefined;
      const s = live.get(session);
      if (s === undefined) return undefined;
      if (at - s.seenAt > idle || at - s.openedAt > max) {
        live.delete(session);
        return undefined;
      }
      s.seenAt = at;
      return s.csrf;
    },
    close(session) {
      return session !== undefined && live.delete(session);
    },
  };
}

export interface HostRule {
  /** the address (or name) the server is bound to */
  bind: string;
  port: () => number;
  /** names the operator allowed (`serve --allow-host`), lower case */
  allowed?: readonly string[];
}

/** A Host header as name and port (80 when it names none), or undefined when it is not one. */
export function parseHost(header: string): { name: string; port: number } | undefined {
  const m = /^(\[[0-9a-f:.]+\]|[^:\[\]@/\s]+)(?::(\d{1,5}))?$/i.exec(header);
  if (!m) return undefined;
  const port = m[2] === undefined ? 80 : Number(m[2]);
  if (port > 65535) return undefined;
  // A name written with its final dot is the same name.
  return { name: m[1]!.toLowerCase().replace(/\.$/, ''), port };
}

/** An IP address written as browsers write one in a URL (dotted quad, or IPv6 in brackets). */
function isAddress(name: string): boolean {
  if (name.startsWith('[') && name.endsWith(']')) return isIP(name.slice(1, -1)) === 6;
  return isIP(name) === 4;
}

/** The names a Host header may carry for this console, as shown in a refusal. */
export function allowedHosts(rule: HostRule): string[] {
  const bind = rule.bind.toLowerCase();
  const wildcard = bind === '0.0.0.0' || bind === '::';
  const names = new Set<string>();
  if (!wildcard) names.add(isIP(bind) === 6 ? `[${bind}]` : bind);
  for (const name of ['localhost', '127.0.0.1', '[::1]']) names.add(name);
  for (const name of rule.allowed ?? []) names.add(name.toLowerCase());
  return [...names];
}

/** Host header values the console answers (see the top of this file). */
export function checkHost(hostHeader: string | undefined, rule: HostRule): void {
  const port = rule.port();
  const names = allowedHosts(rule);
  const parsed = hostHeader === undefined ? undefined : parseHost(hostHeader);
  // On a loopback bind only loopback names; elsewhere also any address (which no rebinding page can send).
  const addressOk = (name: string) => !isLoopback(rule.bind) && isAddress(name);
  if (parsed !== undefined && parsed.port === port && (names.includes(parsed.name) || addressOk(parsed.name))) return;
  const hint = isLoopback(rule.bind) ? '' : '; an address, or a name passed to serve --allow-host';
  throw kernelError('RTC_ERR_CONSOLE_REQUEST', `host ${JSON.stringify(hostHeader ?? '')} is not one this console serves (port ${port}: ${names.join(', ')}${hint})`);
}

/** A state-changing request's origin: its Origin is the console's, else Sec-Fetch-Site says same-origin. */
export function checkSameOrigin(headers: { origin?: string; secFetchSite?: string; host?: string }): void {
  if (headers.origin !== undefined && headers.origin !== 'null') {
    let host: string | undefined;
    try {
      host = new URL(headers.origin).host;
    } catch {
      host = undefined;
    }
    if (host === undefined || host !== headers.host) throw kernelError('RTC_ERR_CONSOLE_CSRF', `a request from ${headers.origin} may not change state here (only this console's own pages may)`);
    return;
  }
  if (headers.secFetchSite === 'same-origin') return;
  throw kernelError('RTC_ERR_CONSOLE_CSRF', `a state-changing request must come from this console's own page (Origin ${headers.origin ?? 'missing'}, Sec-Fetch-Site ${headers.secFetchSite ?? 'missing'})`);
}
