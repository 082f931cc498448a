/**
 * `fetch`, `Headers`, `Request`, `Response`: a buffered subset. The host performs the
 * request through undici after the broker checks `net` for the host and for every
 * redirect hop; bodies travel as base64 and are capped by the transfer limit.
 */
import { callAsync } from '../host.ts';
import { base64ToBytes, bytesToBase64 } from '../web/base64.ts';
import { TextDecoder, TextEncoder } from '../web/text-encoding.ts';
import { defineGlobal } from '../parts-loader.ts';

type HeadersInit = Headers | Record<string, string> | [string, string][];

export class Headers {
  #map = new Map<string, string>();

  constructor(init?: HeadersInit) {
    if (init instanceof Headers) init.forEach((v, k) => this.append(k, v));
    else if (Array.isArray(init)) for (const [k, v] of init) this.append(k, v);
    else if (init) for (const k of Object.keys(init)) this.append(k, init[k]!);
  }

  append(name: string, value: string): void {
    const key = String(name).toLowerCase();
    const prev = this.#map.get(key);
    this.#map.set(key, prev === undefined ? String(value) : `${prev}, ${value}`);
  }

  set(name: string, value: string): void {
    this.#map.set(String(name).toLowerCase(), String(value));
  }

  get(name: string): string | null {
    return this.#map.get(String(name).toLowerCase()) ?? null;
  }

  has(name: string): boolean {
    return this.#map.has(String(name).toLowerCase());
  }

  delete(name: string): void {
    this.#map.delete(String(name).toLowerCase());
  }

  forEach(fn: (value: string, key: string, parent: Headers) => void): void {
    for (const [k, v] of this.entries()) fn(v, k, this);
  }

  *entries(): IterableIterator<[string, string]> {
    yield* [...this.#map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }

  *keys(): IterableIterator<string> {
    for (const [k] of this.entries()) yield k;
  }

  *values(): IterableIterator<string> {
    for (const [, v] of this.entries()) yield v;
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }
}

type BodyInit = string | ArrayBuffer | ArrayBufferView | URLSearchParams | null | undefined;

function bodyToBytes(body: BodyInit): Uint8Array | null {
  if (body === null || body === undefined) return null;
  if (typeof body === 'string') return new TextEncoder().encode(body);
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  if (ArrayBuffer.isView(body)) return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  return new TextEncoder().encode(String(body));
}

class Body {
  #bytes: Uint8Array | null;
  #used = false;

  constructor(bytes: Uint8Array | null) {
    this.#bytes = bytes;
  }

  get bodyUsed(): boolean {
    return this.#used;
  }

  #take(): Uint8Array {
    if (this.#used) throw new TypeError('Body already consumed.');
    this.#used = true;
    return this.#bytes ?? new Uint8Array(0);
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = this.#take();
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }

  async bytes(): Promise<Uint8Array> {
    return this.#take().slice();
  }

  async text(): Promise<string> {
    return new TextDecoder().decode(this.#take());
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }
}

export class Response extends Body {
  readonly status: number;
  readonly statusText: string;
  readonly headers: Headers;
  readonly url: string;
  readonly redirected: boolean;
  readonly type = 'basic';

  constructor(body?: BodyInit, init: { status?: number; statusText?: string; headers?: HeadersInit } = {}, meta: { url?: string; redirected?: boolean } = {}) {
    super(bodyToBytes(body));
    this.status = init.status ?? 200;
    this.statusText = init.statusText ?? '';
    this.headers = new Headers(init.headers);
    this.url = meta.url ?? '';
    this.redirected = meta.redirected ?? false;
  }

  get ok(): boolean {
    return this.status >= 200 && this.status < 300;
  }

  static json(data: unknown, init: { status?: number; headers?: HeadersInit } = {}): Response {
    const headers = new Headers(init.headers);
    if (!headers.has('content-type')) headers.set('content-type', 'application/json');
    return new Response(JSON.stringify(data), { ...init, headers });
  }
}

export class Request extends Body {
  readonly url: string;
  readonly method: string;
  readonly headers: Headers;
  readonly redirect: string;
  readonly bodyBytes: Uint8Array | null;

  constructor(input: string | URL | Request, init: { method?: string; headers?: HeadersInit; body?: BodyInit; redirect?: string } = {}) {
    const base = input instanceof Request ? input : undefined;
    const bytes = init.body !== undefined ? bodyToBytes(init.body) : (base?.bodyBytes ?? null);
    super(bytes);
    this.bodyBytes = bytes;
    this.url = base ? base.url : String(input);
    this.method = (init.method ?? base?.method ?? 'GET').toUpperCase();
    this.headers = new Headers(init.headers ?? base?.headers);
    this.redirect = init.redirect ?? base?.redirect ?? 'follow';
  }
}

interface FetchAnswer {
  status: number;
  statusText: string;
  headers: [string, string][];
  body: string;
  url: string;
  redirected: boolean;
}

export async function fetch(input: string | URL | Request, init?: { method?: string; headers?: HeadersInit; body?: BodyInit; redirect?: string }): Promise<Response> {
  const request = new Request(input, init);
  const answer = await callAsync<FetchAnswer>('net.fetch', {
    url: request.url,
    method: request.method,
    headers: [...request.headers],
    body: request.bodyBytes ? bytesToBase64(request.bodyBytes) : null,
    redirect: request.redirect,
  });
  const nullBody = answer.status === 204 || answer.status === 304 || request.method === 'HEAD';
  return new Response(nullBody ? null : base64ToBytes(answer.body), { status: answer.status, statusText: answer.statusText, headers: answer.headers }, { url: answer.url, redirected: answer.redirected });
}

defineGlobal('fetch', fetch);
defineGlobal('Headers', Headers);
defineGlobal('Request', Request);
defineGlobal('Response', Response);
