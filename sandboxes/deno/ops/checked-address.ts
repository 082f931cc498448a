/**
 * Where a granted name really goes, checked before any byte is sent. A grant speaks of names
 * and addresses; a name that passes may still resolve to an address the grant denies
 * (`--allow-net --deny-net=127.0.0.1` and a host whose DNS answer is 127.0.0.1). So every
 * connection the kernel makes for sandboxed code (a `fetch`, and each connection through the
 * OS sandbox's proxy) resolves the name once here, checks every address of the answer against
 * the deny side of the grant (each in the one spelling of net-address.ts, with its loopback
 * aliases), and connects to the address that was checked: nothing resolves the name again
 * between the check and the connect (no DNS rebinding window).
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { buildConnector } from 'undici';
import { canonicalHost, netAliases } from '../../../kernel/permissions/net-address.ts';
import { undiciLoaded } from './undici.ts';

/** Whether an address (canonical `host:port`, with its other names) is denied by the grant. */
export type AddressDenied = (hostPort: string, aliases: string[]) => boolean;

/** A name whose answer holds a denied address: the connection is refused (the proxy's 403, fetch's NotCapable). */
export class DeniedAddressError extends Error {
  readonly code = 'RTC_NET_DENIED_ADDRESS';
  /** the name as asked for, and the denied address it resolved to, as `host:port` */
  readonly requested: string;
  readonly address: string;
  constructor(requested: string, address: string) {
    super(`${requested} resolves to ${address}, which the grant denies`);
    this.requested = requested;
    this.address = address;
  }
}

export interface CheckedAddress {
  /** the address to connect to (no brackets) */
  address: string;
  family: 4 | 6;
}

/**
 * Resolves `host` (a URL hostname: an IPv6 literal in brackets) and checks every address it
 * answers against `denied`; returns the first, to connect to. A literal is checked as it is.
 */
export async function resolveChecked(host: string, port: number, denied: AddressDenied): Promise<CheckedAddress> {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  const literal = isIP(bare);
  const answers = literal !== 0 ? [{ address: bare, family: literal }] : await lookup(bare, { all: true, verbatim: true });
  if (answers.length === 0) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${bare}`), { code: 'ENOTFOUND' });
  for (const answer of answers) {
    const canonical = canonicalHost(answer.address);
    const hostPort = `${canonical ?? answer.address}:${port}`;
    if (canonical === undefined || denied(hostPort, netAliases(hostPort))) throw new DeniedAddressError(`${host}:${port}`, hostPort);
  }
  const first = answers[0]!;
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}

/**
 * undici's connector with the name resolved and checked first: the socket is opened to the
 * checked address; the TLS server name (and the Host header) stay the name asked for.
 */
export function checkedConnector(denied: AddressDenied): buildConnector.connector {
  const base = undiciLoaded().buildConnector({});
  return (options, callback) => {
    const port = Number(options.port) || (options.protocol === 'https:' ? 443 : 80);
    resolveChecked(options.hostname, port, denied).then(
      (checked) => base({ ...options, hostname: checked.address }, callback),
      (error: Error) => callback(error, null),
    );
  };
}
