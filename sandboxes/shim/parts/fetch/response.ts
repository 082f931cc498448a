/** `Response`, with the Fetch standard's checks and Deno's messages. */
import { PRIVATE_INSPECT, inspectAs } from '../../web/inspect.ts';
import { Body, extractBody, mixBody, type BodyInit, type BodySource } from './body.ts';
import { Headers, guardHeaders, type HeadersInit } from './headers.ts';

const NULL_BODY = new Set([101, 103, 204, 205, 304]);
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export interface ResponseInit {
  status?: number;
  statusText?: string;
  headers?: HeadersInit;
}

interface ResponseMeta {
  type: 'basic' | 'cors' | 'default' | 'error' | 'opaque' | 'opaqueredirect';
  url: string;
  redirected: boolean;
}

const INTERNAL = Symbol('internal');
let bodyOf: (r: Response) => Body;

export class Response {
  readonly #status: number;
  readonly #statusText: string;
  readonly #headers: Headers;
  readonly #meta: ResponseMeta;
  readonly #body: Body;

  constructor(body: BodyInit = null, init: ResponseInit = {}, ...internal: unknown[]) {
    const o = init ?? {};
    if (typeof o !== 'object') throw new TypeError("Failed to construct 'Response': Argument 2 can not be converted to a dictionary.");
    const status = o.status === undefined ? 200 : o.status === null ? 0 : Number(o.status);
    const meta = internal[0] === INTERNAL ? (internal[1] as ResponseMeta & { source?: BodySource | null }) : undefined;
    if (!meta && (status < 200 || status > 599) && status !== 101) {
      throw new RangeError(`The status provided (${status}) is not equal to 101 and outside the range [200, 599]`);
    }
    const statusText = o.statusText === undefined ? '' : String(o.statusText);
    if (/[^\t\u0020-\u007e\u0080-\u00ff]/.test(statusText)) throw new TypeError(`Invalid status text: "${statusText}"`);
    this.#status = status;
    this.#statusText = statusText;
    this.#headers = new Headers(o.headers);
    this.#meta = meta ? { type: meta.type, url: meta.url, redirected: meta.redirected } : { type: 'default', url: '', redirected: false };
    const headers = this.#headers;
    const contentType = () => headers.get('content-type');
    if (meta && 'source' in meta) {
      this.#body = new Body(meta.source ?? null, contentType);
    } else if (body !== null && body !== undefined) {
      if (NULL_BODY.has(status)) throw new TypeError('Response with null body status cannot have body');
      const extracted = extractBody(body)!;
      if (extracted.contentType !== null && !headers.has('content-type')) headers.append('content-type', extracted.contentType);
      this.#body = new Body(extracted.source, contentType);
    } else {
      this.#body = new Body(null, contentType);
    }
    guardHeaders(headers, meta ? 'immutable' : 'response');
  }

  static {
    bodyOf = (r) => r.#body;
  }

  static error(): Response {
    return new Response(null, { status: 0 }, INTERNAL, { type: 'error', url: '', redirected: false, source: null });
  }

  static redirect(url: string | { href: string }, status = 302): Response {
    const URLClass = (globalThis as unknown as { URL: new (u: string) => { href: string } }).URL;
    const href = new URLClass(String(url)).href;
    if (!REDIRECTS.has(Number(status))) throw new RangeError(`Invalid redirect status code: ${status}`);
    const response = new Response(null, { status, headers: { location: href } });
    return response;
  }

  static json(data: unknown, init: ResponseInit = {}): Response {
    const text = JSON.stringify(data);
    if (text === undefined) throw new TypeError('Value is not JSON serializable');
    const headers = new Headers(init?.headers);
    if (!headers.has('content-type')) headers.set('content-type', 'application/json');
    return new Response(text, { ...init, headers });
  }

  get type(): string {
    return this.#meta.type;
  }
  get url(): string {
    return this.#meta.url;
  }
  get redirected(): boolean {
    return this.#meta.redirected;
  }
  get status(): number {
    return this.#status;
  }
  get ok(): boolean {
    return this.#status >= 200 && this.#status <= 299;
  }
  get statusText(): string {
    return this.#statusText;
  }
  get headers(): Headers {
    return this.#headers;
  }

  clone(): Response {
    const body = this.#body.clone();
    const copy = new Response(null, { status: this.#status, statusText: this.#statusText, headers: this.#headers }, INTERNAL, { ...this.#meta, source: null });
    copy.#body.replaceWith(body);
    return copy;
  }

  get [Symbol.toStringTag](): string {
    return 'Response';
  }

  [PRIVATE_INSPECT](): unknown {
    if (!(#status in this)) return 'Response';
    return inspectAs('Response', {
      body: this.#body.stream, bodyUsed: this.#body.used, headers: this.#headers, ok: this.ok, redirected: this.redirected,
      status: this.#status, statusText: this.#statusText, url: this.url,
    });
  }
}
mixBody(Response.prototype, (self) => bodyOf(self as Response));

/** A response made by fetch: its headers are immutable, its body streams from the host. */
export function fetchedResponse(init: { status: number; statusText: string; headers: [string, string][] }, meta: ResponseMeta, source: BodySource | null): Response {
  return new Response(null, { status: init.status, statusText: init.statusText, headers: init.headers }, INTERNAL, { ...meta, source });
}
