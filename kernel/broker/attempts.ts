/**
 * What a call *attempts*, read from its raw arguments before anything else looks at them.
 *
 * The broker audits each permission check it makes. But a call can be answered before its
 * check is ever made: its arguments do not parse (`env: {X: 1}`), the program is not found
 * on PATH (Deno's order: NotFound before `run` is checked), a bad port (a TypeError before
 * `net`), the write quota, a transfer cap, a script that already exited, an API the sandbox
 * does not implement. Without this, such an attempt left nothing in the audit, and a draft
 * that wrapped `new Deno.Command('sh').output()` in try/catch was accepted with "nothing was
 * refused" (issue 24, item 4).
 *
 * So every op that reaches outside the isolate declares `attempts`: the (kind, value) pairs
 * it tries, computed leniently from the raw arguments (never throwing: a value it cannot read
 * is the whole kind). When a call ends without an audited decision on one of them, the broker
 * audits it there, before the answer leaves: `denied` unless the live grant covers it, with
 * the reason that says why no check was made (broker.ts, `#settle`). The order in which an op
 * makes its checks can then no longer hide an attempt.
 */
import path from 'node:path';
import { PERMISSION_NAMES, type PermissionName } from '../permissions/descriptors.ts';
import type { BrokerContext } from './op.ts';
import { canonicalHost, canonicalHostPort } from '../permissions/net-address.ts';

export interface Attempt {
  /** a Deno permission kind, or `binding` (a kernel binding, by name) */
  kind: PermissionName | 'binding';
  /** undefined: the whole kind (the value could not be read, or the call wants all of it) */
  value?: string;
}

/**
 * An op's attempts from its raw arguments (already an object: see rawObject). It must not
 * throw: a value it cannot read is the whole kind (the broker fails closed if one does).
 */
export type AttemptsOf = (raw: Record<string, unknown>, ctx: BrokerContext) => Attempt[];

/** The raw arguments as an object, whatever the script sent. */
export function rawObject(raw: unknown): Record<string, unknown> {
  return raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
}

/** A path as the op would check it, or undefined when the argument is not a path at all. */
export function lenientPath(cwd: string, value: unknown): string | undefined {
  // Not a path (or the empty one, which names nothing): the whole kind.
  if (typeof value !== 'string' || value === '') return undefined;
  // NUL and the empty path are refused by the op's parse; what they name is still an attempt there.
  return path.resolve(cwd, value.replace(/\0/g, ''));
}

/** `kind` on the path in each key (`read` of `from`, `write` of `to`...). */
export function pathAttempts(...pairs: [kind: 'read' | 'write', key: string][]): AttemptsOf {
  return (raw, ctx) => pairs.map(([kind, key]) => ({ kind, value: lenientPath(ctx.cwd, raw[key]) }));
}

/** The host:port a URL reaches, as `net` checks it (with the scheme's default port); undefined when it has none. */
export function urlHostPort(url: URL): string | undefined {
  if (url.hostname === '') return undefined;
  const defaults: Record<string, number> = { 'http:': 80, 'https:': 443, 'ws:': 80, 'wss:': 443, 'ftp:': 21 };
  const port = url.port === '' ? defaults[url.protocol] : Number(url.port);
  if (port === undefined) return canonicalHost(url.hostname) ?? url.hostname;
  // the spelling the grant is checked in (net-address.ts), so an attempt names what was checked
  return canonicalHostPort(url.hostname, port) ?? `${url.hostname}:${port}`;
}

/**
 * What fetching a URL attempts: `read` of the path for `file:` (Deno reads local files that
 * way), `net` of host:port for anything with a host, nothing for `data:` and `blob:` (no
 * effect outside the isolate), the whole `net` kind when the URL does not parse.
 */
export function urlAttempts(raw: unknown): Attempt[] {
  if (typeof raw !== 'string') return [{ kind: 'net' }];
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return [{ kind: 'net' }];
  }
  if (url.protocol === 'data:' || url.protocol === 'blob:') return [];
  if (url.protocol === 'file:') {
    let p: string;
    try {
      p = decodeURIComponent(url.pathname);
    } catch {
      p = url.pathname;
    }
    return [{ kind: 'read', value: p }];
  }
  const hostPort = urlHostPort(url);
  return [hostPort === undefined ? { kind: 'net' } : { kind: 'net', value: hostPort }];
}

/** `kind` with the string in `key` as its value (an env name, a sys kind), else the whole kind. */
export function valueAttempt(kind: PermissionName, key: string): AttemptsOf {
  return (raw) => [typeof raw[key] === 'string' ? { kind, value: raw[key] as string } : { kind }];
}

/** A kernel binding by name (bindings.ts): granted when the plugin declares it and its grantor grants it. */
export function bindingAttempt(name: string): AttemptsOf {
  return () => [{ kind: 'binding', value: name }];
}

/** Whether the live grant covers `attempt` (the whole kind only when nothing of it is denied). */
export function attemptGranted(ctx: BrokerContext, attempt: Attempt): boolean {
  if (attempt.kind === 'binding') {
    const b = ctx.bindings;
    if (attempt.value === undefined) return false;
    // A persona binding is declared and granted; a storage binding is handed with the plugin's storage.
    return (b !== undefined && b.declared.includes(attempt.value) && b.granted.includes(attempt.value)) || ctx.storage?.declared.includes(attempt.value) === true;
  }
  const answer = ctx.gate.query(attempt.kind, attempt.value);
  return answer.state === 'granted' && (attempt.value !== undefined || !answer.partial);
}

/**
 * What a report of an unsupported API attempted (broker.ts, `attempt.unsupported`): the
 * attempts of the op it names, or its own list; and whatever either became inside the
 * isolate (a script can poison what the shim builds it with), the API's own `kind`.
 */
export function reportedAttempts(raw: Record<string, unknown>, opAttempts: AttemptsOf | undefined, ctx: BrokerContext): Attempt[] {
  const known = (kind: unknown): kind is PermissionName => typeof kind === 'string' && (PERMISSION_NAMES as readonly string[]).includes(kind);
  let attempts: Attempt[] = [];
  try {
    if (opAttempts) attempts = opAttempts(rawObject(raw.args), ctx);
    else if (Array.isArray(raw.attempts)) {
      attempts = raw.attempts.flatMap((a): Attempt[] => {
        const o = rawObject(a);
        if (!known(o.kind)) return [];
        if (typeof o.value !== 'string') return [{ kind: o.kind }];
        // Paths as every op checks them: absolute against the script's cwd.
        const isPath = o.kind === 'read' || o.kind === 'write' || o.kind === 'ffi';
        return [{ kind: o.kind, value: isPath ? (lenientPath(ctx.cwd, o.value) ?? o.value) : o.value }];
      });
    }
  } catch {
    attempts = [];
  }
  if (known(raw.kind) && !attempts.some((a) => a.kind === raw.kind)) attempts.push({ kind: raw.kind });
  return attempts;
}

/** The whole of `kind` (Deno.env.toObject, a symlink's unscoped read and write). */
export function wholeKind(...kinds: PermissionName[]): AttemptsOf {
  return () => kinds.map((kind) => ({ kind }));
}
