/**
 * One spelling per network address, before any allow or deny check (the broker's `fetch`, the
 * OS sandbox's proxy, `Deno.permissions`, the grant entries themselves). A denied
 * `127.0.0.1` must not pass as `127.1`, `2130706433`, `0x7f000001`, `0177.0.0.1`,
 * `127.0.0.1.`, `[::ffff:127.0.0.1]`, `[::ffff:7f00:1]`, `[0:0:0:0:0:ffff:127.0.0.1]` or
 * `[::127.0.0.1]`; `EXAMPLE.com.` is `example.com`, and `bücher.example` its punycode.
 *
 * The WHATWG URL parser does the parsing (it is what `fetch` and every browser use: every
 * IPv4 shorthand, octal, hex and decimal form, IDNA, IPv6 compression), node:net's `isIP`
 * says what came out; what is added here: an IPv4-mapped or IPv4-compatible IPv6 address is
 * its IPv4 address, one trailing dot of a name goes, and what cannot be an address (a zone id
 * `fe80::1%eth0`, spaces, an empty host) is undefined, which every caller refuses.
 *
 * A name that passes is still only a name: what it resolves to is checked too, after the
 * lookup, and the connection goes to the address that was checked (resolved-address.ts).
 */
import { isIP } from 'node:net';

const cache = new Map<string, string | undefined>();
const CACHE_MAX = 4096;

/** The IPv4 address an IPv4-mapped (`::ffff:a.b.c.d`) or IPv4-compatible (`::a.b.c.d`) IPv6 address carries. */
function embeddedIpv4(compressed: string): string | undefined {
  const m = /^::(?:ffff:)?([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(compressed);
  if (!m) return undefined;
  const hi = parseInt(m[1]!, 16);
  const lo = parseInt(m[2]!, 16);
  // `::` and `::1` are IPv6's own unspecified and loopback addresses, not IPv4 ones
  if (!compressed.startsWith('::ffff:') && hi === 0) return undefined;
  return `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
}

function canonical(raw: string): string | undefined {
  let host = raw.trim();
  if (host === '') return undefined;
  if (host.startsWith('[') !== host.endsWith(']')) return undefined;
  if (host.startsWith('[')) host = host.slice(1, -1);
  // a zone id names an interface of this host, not an address a grant can speak of
  if (host.includes('%')) return undefined;
  if (isIP(host) === 6 || host.includes(':')) {
    if (isIP(host) !== 6) return undefined;
    let compressed: string;
    try {
      compressed = new URL(`http://[${host}]/`).hostname.slice(1, -1);
    } catch {
      return undefined;
    }
    return embeddedIpv4(compressed) ?? `[${compressed}]`;
  }
  let parsed: string;
  try {
    const url = new URL(`http://${host}/`);
    // anything the parser read as more than a host (`a@b`, `a/b`, `a?b`, `a#b`) is no host
    if (url.username !== '' || url.password !== '' || url.port !== '' || url.pathname !== '/' || url.search !== '' || url.hash !== '') return undefined;
    parsed = url.hostname;
  } catch {
    return undefined;
  }
  if (parsed.endsWith('.') && parsed.length > 1) parsed = parsed.slice(0, -1);
  if (parsed === '' || parsed.endsWith('.')) return undefined;
  return parsed;
}

/**
 * The one spelling of a host (no port): an IPv4 address dotted, an IPv6 one compressed in
 * brackets, a name lower-case ASCII without its trailing dot. Undefined when it is none of
 * these. A wildcard `*.example.com` (grant entries) keeps its `*.` and canonicalizes the rest.
 */
export function canonicalHost(host: string): string | undefined {
  if (host.startsWith('*.')) {
    const rest = canonicalHost(host.slice(2));
    return rest === undefined || rest.startsWith('[') || isIP(rest) !== 0 ? undefined : `*.${rest}`;
  }
  if (cache.has(host)) return cache.get(host);
  const value = canonical(host);
  if (cache.size >= CACHE_MAX) cache.clear();
  cache.set(host, value);
  return value;
}

/** `host:port` in the one spelling (`[v6]:port` for IPv6), or undefined for a bad host or port. */
export function canonicalHostPort(host: string, port: number): string | undefined {
  if (!Number.isInteger(port) || port < 1 || port > 65535) return undefined;
  const h = canonicalHost(host);
  return h === undefined ? undefined : `${h}:${port}`;
}

/**
 * A `host`, `host:port`, `[v6]` or `[v6]:port` value (a grant entry, a permission query) in
 * the one spelling; a value that is no address is returned as written, lower-cased, so it
 * matches only itself (Deno's grammar decides what an entry may be, not this).
 */
export function canonicalNetValue(value: string): string {
  const trimmed = value.trim();
  let host = trimmed;
  let port = '';
  if (trimmed.startsWith('[')) {
    const close = trimmed.indexOf(']');
    if (close > 0) {
      host = trimmed.slice(0, close + 1);
      port = trimmed.slice(close + 1);
    }
  } else {
    const colon = trimmed.lastIndexOf(':');
    if (colon > 0 && trimmed.indexOf(':') === colon) {
      host = trimmed.slice(0, colon);
      port = trimmed.slice(colon);
    } else if (colon > 0 && isIP(trimmed) === 6) {
      // a bare IPv6 address without brackets
      host = trimmed;
    }
  }
  if (port !== '' && !/^:\d{1,5}$/.test(port)) return trimmed.toLowerCase();
  const h = canonicalHost(host);
  return h === undefined ? trimmed.toLowerCase() : `${h}${port}`;
}

/** The loopback, by every name a grant may use for it: one deny of any of them denies them all. */
const LOOPBACK = ['localhost', '127.0.0.1', '[::1]'];

function isLoopbackHost(host: string): boolean {
  if (host === 'localhost' || host.endsWith('.localhost') || host === '[::1]' || host === '[::]') return true;
  // 127.0.0.0/8 is the loopback net; 0.0.0.0/8 ("this host") is reached as the loopback by connect(2)
  return isIP(host) === 4 && (host.startsWith('127.') || host.startsWith('0.'));
}

/**
 * Other names of the same place, for deny checks (PermissionGate.query's aliases): a loopback
 * address or name (`127.0.0.2`, `0.0.0.0`, `[::]`, `localhost`, `x.localhost`) is also
 * `localhost`, `127.0.0.1` and `[::1]`, with the same port. `hostPort` is canonical.
 */
export function netAliases(hostPort: string): string[] {
  const colon = hostPort.lastIndexOf(':');
  const bracket = hostPort.lastIndexOf(']');
  const [host, port] = colon > bracket ? [hostPort.slice(0, colon), hostPort.slice(colon)] : [hostPort, ''];
  if (!isLoopbackHost(host)) return [];
  return LOOPBACK.filter((h) => h !== host).map((h) => `${h}${port}`);
}
