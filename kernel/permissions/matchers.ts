/**
 * How one allow or deny value covers a requested value, per permission kind, following
 * Deno's rules (measured in ../../../shared/design/SANDBOX-HAZARDS.md):
 * - paths cover themselves and everything beneath them;
 * - a net entry without a port covers every port; `*.example.com` covers the bare domain
 *   and every subdomain; hosts are compared in one spelling (net-address.ts), so `127.1`,
 *   `0x7f000001` and `[::ffff:127.0.0.1]` are `127.0.0.1`;
 * - env names match exactly, or by prefix when the entry ends in `*` (`AWS_*`);
 * - run: an allow entry is the absolute path a program resolved to and covers exactly that
 *   path; a deny entry that is a name covers any path whose file is that name (run-grants.ts).
 */
import type { PermissionName } from './descriptors.ts';
import { canonicalNetValue } from './net-address.ts';
import { runAllowCovers, runDenyCovers } from './run-grants.ts';

export function pathCovers(entry: string, path: string): boolean {
  if (entry === path || entry === '/') return true;
  return path.startsWith(entry.endsWith('/') ? entry : `${entry}/`);
}

export interface NetAddress {
  host: string;
  port?: number;
}

/** Parses `host`, `host:port`, `[v6]`, `[v6]:port` as written in a flag or a request. */
export function parseNetAddress(value: string): NetAddress {
  const trimmed = value.trim().toLowerCase();
  if (trimmed.startsWith('[')) {
    const close = trimmed.indexOf(']');
    const host = trimmed.slice(0, close + 1);
    const rest = trimmed.slice(close + 1);
    return rest.startsWith(':') ? { host, port: Number(rest.slice(1)) } : { host };
  }
  const colon = trimmed.lastIndexOf(':');
  if (colon > 0 && trimmed.indexOf(':') === colon && /^\d+$/.test(trimmed.slice(colon + 1))) {
    return { host: trimmed.slice(0, colon), port: Number(trimmed.slice(colon + 1)) };
  }
  return { host: trimmed };
}

/** Both sides in the one spelling of an address first (net-address.ts): `127.1` is `127.0.0.1`. */
export function netCovers(entry: string, requested: string): boolean {
  const want = parseNetAddress(canonicalNetValue(requested));
  const have = parseNetAddress(canonicalNetValue(entry));
  if (have.port !== undefined && have.port !== want.port) return false;
  if (have.host.startsWith('*.')) {
    const base = have.host.slice(2);
    return want.host === base || want.host.endsWith(`.${base}`);
  }
  return have.host === want.host;
}

export function envCovers(entry: string, name: string): boolean {
  if (entry.endsWith('*')) return name.startsWith(entry.slice(0, -1));
  return entry === name;
}

export function covers(kind: PermissionName, entry: string, value: string, side: 'allow' | 'deny' = 'allow'): boolean {
  switch (kind) {
    case 'read':
    case 'write':
    case 'ffi':
      return pathCovers(entry, value);
    case 'net':
    case 'import':
      return netCovers(entry, value);
    case 'env':
      return envCovers(entry, value);
    case 'run':
      return side === 'allow' ? runAllowCovers(entry, value) : runDenyCovers(entry, value);
    case 'sys':
      return entry === value;
  }
}
