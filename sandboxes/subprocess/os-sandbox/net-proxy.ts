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
 * (`GET http://host:port/path`), forwarded request by request, each one checked.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export interface NetPolicy {
  /** whether `host:port` may be reached (the grant's answer) */
  allows(hostPort: string): boolean;
  /** one call per connection or request, after the decision */
  audit(hostPort: string, granted: boolean): void;
}

export interface NetRecord {
  granted: string[];
  denied: string[];
}

const MAX_RECORDED = 50;

/** `host:port` as the broker writes it (`[v6]:port` for IPv6), or undefined when malformed. */
export function hostPort(host: string, port: number): string | undefined {
  if (!Number.isInteger(port) || port < 1 || port > 65535) return undefined;
  const h = host.toLowerCase();
  if (h === '' || /[\s/@]/.test(h)) return undefined;
  return `${h.includes(':') && !h.startsWith('[') ? `[${h}]` : h}:${port}`;
}

function parseAuthority(authority: string): { host: string; port: number } | undefined {
  const m = /^(\[[0-9a-f:.]+\]|[^:\[\]]+):(\d{1,5})$/i.exec(authority.trim());
  if (!m) return undefined;
  return { host: m[1]!, port: Number(m[2]) };
}

function bare(host: string): string {
  return host.startsWith('[') ? host.slice(1, -1) : host;
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
    this.#policy.audit(target ?? shown, granted);
    const list = granted ? this.record.granted : this.record.denied;
    if (list.length < MAX_RECORDED && !list.includes(target ?? shown)) list.push(target ?? shown);
    return granted;
  }

  #track(socket: net.Socket): net.Socket {
    this.#sockets.add(socket);
    socket.on('close', () => this.#sockets.delete(socket));
    return socket;
  }

  #tunnel(req: http.IncomingMessage, client: net.Socket, head: Buffer): void {
    const authority = parseAuthority(req.url ?? '');
    const target = authority ? hostPort(authority.host, authority.port) : undefined;
    client.on('error', () => client.destroy());
    if (!this.#decide(target, req.url ?? '?')) {
      client.end(`HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain\r\nconnection: close\r\n\r\nruntimectl: net access to ${target ?? req.url} is not granted\n`);
      return;
    }
    const upstream = this.#track(net.connect({ host: bare(authority!.host), port: authority!.port }));
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
    const headers = { ...req.headers };
    delete headers['proxy-connection'];
    delete headers['proxy-authorization'];
    const upstream = http.request({ host: bare(url.hostname), port, method: req.method, path: `${url.pathname}${url.search}`, headers, agent: false }, (up) => {
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
