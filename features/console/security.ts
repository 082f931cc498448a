/**
 * What keeps the console safe by default (features/console/README.md, "Safety"):
 *
 * - **Who may decide.** The server holds an operator credential only when started with one
 *   (`serve --operator`); then it prints a login URL with a random access token once. Opening
 *   it gives this browser a session cookie (HttpOnly, SameSite=Strict); without that session
 *   every page is read-only and every state-changing request is refused (RTC_ERR_CONSOLE_AUTH).
 *   A server started without a credential cannot decide at all, whatever a request carries.
 * - **Cross-site requests.** A state-changing request must come from the console's own origin
 *   (Origin, else Sec-Fetch-Site: same-origin; a request with neither is refused) and carry
 *   the session's form token, which only the console's own pages hold (RTC_ERR_CONSOLE_CSRF).
 * - **DNS rebinding.** A request whose Host is not one the console serves is refused before
 *   any page is read (RTC_ERR_CONSOLE_REQUEST): a hostile page cannot point its own name at
 *   127.0.0.1 and read the fleet.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { kernelError } from '../../kernel/errors.ts';

export const SESSION_COOKIE = 'rtc_console';

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

export interface Sessions {
  /** the access token the login URL carries; undefined when the server holds no credential */
  readonly accessToken: string | undefined;
  /** a new session for a browser that presented the access token; its form token */
  open(token: string): { session: string; csrf: string } | undefined;
  /** the form token of a live session, or undefined */
  csrfOf(session: string | undefined): string | undefined;
}

export function sessions(withCredential: boolean): Sessions {
  const accessToken = withCredential ? randomToken() : undefined;
  const live = new Map<string, string>();
  return {
    accessToken,
    open(token) {
      if (accessToken === undefined || !sameSecret(token, accessToken)) return undefined;
      const session = randomToken();
      const csrf = randomToken();
      live.set(session, csrf);
      return { session, csrf };
    },
    csrfOf(session) {
      return session === undefined ? undefined : live.get(session);
    },
  };
}

export interface HostRule {
  /** the address the server is bound to */
  bind: string;
  port: () => number;
}

/** Host header values the console answers: the bound address and, on loopback, the loopback names. */
export function checkHost(hostHeader: string | undefined, rule: HostRule): void {
  const port = rule.port();
  const wildcard = rule.bind === '0.0.0.0' || rule.bind === '::';
  if (wildcard) return;
  const bound = rule.bind.includes(':') ? `[${rule.bind}]` : rule.bind;
  const allowed = new Set([`${bound}:${port}`]);
  if (isLoopback(rule.bind)) for (const name of ['localhost', '127.0.0.1', '[::1]']) allowed.add(`${name}:${port}`);
  if (hostHeader === undefined || !allowed.has(hostHeader.toLowerCase())) {
    throw kernelError('RTC_ERR_CONSOLE_REQUEST', `host ${JSON.stringify(hostHeader ?? '')} is not one this console serves (${[...allowed].join(', ')})`);
  }
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
