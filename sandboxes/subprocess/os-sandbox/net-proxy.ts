/**
 * The kernel's network door for a sandboxed child. The child has no network of its own (a
 * private network namespace with only loopback); its HTTP(S)_PROXY points at a small bridge
 * inside the sandbox, which hands each connection to this proxy over a Unix socket bound
 * into the sandbox. Here every connection is checked against the grant (the same question
 * the broker asks for `fetch`: `host:port` against `net`) and audited, granted or denied,
 * before anything is resolved or dialled.
 *
 * Two request forms, as HTTP proxies take them: `CONNECT host:port` (TLS and anything else:
 * the proxy only pipes bytes, it never sees inside) and absolute-form plain HTTP
 * (`GET http://host:port/path`), forwarded request by request, each one checked (a redirect
 * is the client's next request, checked the same).
 *
 * The target is put in its one spelling before the check (kernel/permissions/net-address.ts:
 * `127.1`, `2130706433`, `0x7f000001`, `0177.0.0.1`, `[::ffff:127.0.0.1]` are `127.0.0.1`;
 * a zone id or anything unparsable is refused), a granted name is resolved once and every
 * address it answers is checked against the deny side (sandboxes/deno/ops/checked-address.ts), and
 * the connection goes to the address that was checked, never re-resolved.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { DeniedAddressError, resolveChecked, type CheckedAddress } from '../../deno/ops/checked-address.ts';
import { canonicalHostPort, netAliases } from '../../../kernel/permissions/net-address.ts';

export interface NetPolicy {
  /** whether `host:port` (canonical) may be reached (the grant's answer) */
  allows(hostPort: string): boolean;
  /** whether an address a granted name resolved to (canonical `host:port`) is denied */
  denies(hostPort: string): boolean;
  /** one call per connection or request, after the decision */
  audit(hostPort: string, granted: boolean): void;
}

/**
 * The policy of a grant: `query` is the grant's answer for a canonical `host:port` and its
 * other names (PermissionGate.query with netAliases: a loopback is denied by any of its names).
 */
export function gateNetPolicy(query: (hostPort: string, aliases: string[]) => 'granted' | 'denied' | 'prompt', audit: NetPolicy['audit']): NetPolicy {
  return {
    allows: (target) => query(target, netAliases(target)) === 'granted',
    denies: (address) => query(address, netAliases(address)) === 'denied',
    audit,
  };
}

export interface NetRecord {
  granted: string[];
  denied: string[];
}

const MAX_RECORDED = 50;

/** `host:port` in the one spelling the grant is checked in (`[v6]:port` for IPv6), or undefined when malformed. */
export function hostPort(host: string, port: number): string | undefined {
  return canonicalHostPort(host, port);
}

/** A CONNECT authority: `host:port` or `[v6]:port`, nothing else (no userinfo, no path). */
function parseAuthority(authority: string): { host: string; port: number } | undefined {
  const m = /^(\[[^\]\s]+\]|[^:[\]\s/@?#]+):(\d{1,5})$/.exec(authority.trim());
  if (!m) return undefined;
  return { host: m[1]!, port: Number(m[2]) };
}

export class NetProxy {
  readonly socketPath: string;
  readonly record: NetRecord = { granted: [], denied: [] };
  readonly #dir: string;
  readonly #server: http.Server;
  readonly #policy: NetPolicy;
  readonly #sockets = new Set<net.Socket>();

  private constructor(dir: string, policy: NetPolicy) {
    this.#dir = dir;
    this.socketPath = path.join(dir, 'proxy.sock');
    this.#policy = policy;
    this.#server = http.createServer((req, res) => this.#forward(req, res));
    this.#server.on('connect', (req: http.IncomingMessage, socket: net.Socket, head: Buffer) => this.#tunnel(req, socket, head));
    this.#server.on('connection', (socket: net.Socket) => {
      this.#sockets.add(socket);
      socket.on('close', () => this.#sockets.delete(socket));
    });
    this.#server.on('clientError', (_error, socket) => socket.destroy());
  }

  /** A proxy on a fresh Unix socket in a folder only the kernel can enter. */
  /**
   * The same, listening once this returns: binding and listening on a Unix socket are
   * synchronous in Node, only the 'listening' event waits (for spawn(), which answers at
   * once). A later server error closes it; the child then reaches nothing, as if refused.
   */
  static startNow(policy: NetPolicy): NetProxy {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'runtimectl-net-'));
    const proxy = new NetProxy(dir, policy);
    proxy.#server.once('error', () => void proxy.close());
    proxy.#server.listen(proxy.socketPath);
    return proxy;
  }

  static async start(policy: NetPolicy): Promise<NetProxy> {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'runtimectl-net-'));
    const proxy = new NetProxy(dir, policy);
    await new Promise<void>((resolve, reject) => {
      proxy.#server.once('error', reject);
      proxy.#server.listen(proxy.socketPath, () => resolve());
    });
    return proxy;
  }

  /** The folder holding the socket (bound into the sandbox). */
  get dir(): string {
    return this.#dir;
  }

  #decide(target: string | undefined, shown: string): boolean {
    const granted = target !== undefined && this.#policy.allows(target);
    this.#record(target ?? shown, granted);
    return granted;
  }

  #record(value: string, granted: boolean): void {
    this.#policy.audit(value, granted);
    const list = granted ? this.record.granted : this.record.denied;
    if (list.length < MAX_RECORDED && !list.includes(value)) list.push(value);
  }

  #track(socket: net.Socket): net.Socket {
    this.#sockets.add(socket);
    socket.on('close', () => this.#sockets.delete(socket));
    return socket;
  }

  /** Resolves a granted target and checks every address it answers; undefined (and audited, denied) when one is denied. */
  async #resolve(target: string, host: string, port: number): Promise<CheckedAddress | { refused: string }> {
    try {
      return await resolveChecked(host, port, (address) => this.#policy.denies(address));
    } catch (error) {
      if (error instanceof DeniedAddressError) {
        this.#record(error.address, false);
        return { refused: `net access to ${target} is not granted: it resolves to ${error.address}, which is denied` };
      }
      return { refused: `${target}: ${(error as Error).message}` };
    }
  }

  #tunnel(req: http.IncomingMessage, client: net.Socket, head: Buffer): void {
    const authority = parseAuthority(req.url ?? '');
    const target = authority ? hostPort(authority.host, authority.port) : undefined;
    client.on('error', () => client.destroy());
    if (!this.#decide(target, req.url ?? '?')) {
      client.end(`HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain\r\nconnection: close\r\n\r\nruntimectl: net access to ${target ?? req.url} is not granted\n`);
      return;
    }
    void this.#resolve(target!, authority!.host, authority!.port).then((checked) => {
      if ('refused' in checked) {
        client.end(`HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain\r\nconnection: close\r\n\r\nruntimectl: ${checked.refused}\n`);
        return;
      }
      this.#pipe(client, head, checked, authority!.port);
    });
  }

  #pipe(client: net.Socket, head: Buffer, checked: CheckedAddress, port: number): void {
    if (client.destroyed) return;
    const upstream = this.#track(net.connect({ host: checked.address, port, family: checked.family }));
    upstream.once('connect', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', (error) => {
      if (client.writable && upstream.connecting) client.end(`HTTP/1.1 502 Bad Gateway\r\nconnection: close\r\n\r\n${(error as Error).message}\n`);
      else client.destroy();
    });
    client.on('close', () => upstream.destroy());
  }

  #forward(req: http.IncomingMessage, res: http.ServerResponse): void {
    let url: URL | undefined;
    try {
      url = new URL(req.url ?? '');
    } catch {
      url = undefined;
    }
    if (!url || url.protocol !== 'http:') {
      this.#decide(undefined, req.url ?? '?');
      res.writeHead(400, { 'content-type': 'text/plain', connection: 'close' }).end('runtimectl: the proxy takes CONNECT or absolute http:// requests\n');
      return;
    }
    const port = url.port === '' ? 80 : Number(url.port);
    const target = hostPort(url.hostname, port);
    if (!this.#decide(target, `${url.hostname}:${port}`)) {
      res.writeHead(403, { 'content-type': 'text/plain', connection: 'close' }).end(`runtimectl: net access to ${target} is not granted\n`);
      return;
    }
    void this.#resolve(target!, url.hostname, port).then((checked) => {
      if ('refused' in checked) {
        res.writeHead(403, { 'content-type': 'text/plain', connection: 'close' }).end(`runtimectl: ${checked.refused}\n`);
        return;
      }
      this.#send(req, res, url, port, checked);
    });
  }

  #send(req: http.IncomingMessage, res: http.ServerResponse, url: URL, port: number, checked: CheckedAddress): void {
    const headers = { ...req.headers };
    delete headers['proxy-connection'];
    delete headers['proxy-authorization'];
    // To the address that was checked; the Host header stays the name the client asked for.
    const upstream = http.request({ host: checked.address, family: checked.family, port, method: req.method, path: `${url.pathname}${url.search}`, headers, agent: false }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', (error) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain', connection: 'close' });
      res.end(`runtimectl: ${error.message}\n`);
    });
    upstream.on('socket', (s) => this.#track(s));
    req.pipe(upstream);
  }

  /** Ends every connection and removes the socket's folder. */
  async close(): Promise<void> {
    for (const s of this.#sockets) s.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
    rmSync(this.#dir, { recursive: true, force: true });
  }
}
