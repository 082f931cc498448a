/** `Request`, with the Fetch standard's checks and Deno's messages. */
import { PRIVATE_INSPECT, inspectAs } from '../../web/inspect.ts';
import { AbortSignal, abortSignal, followSignal, newAbortSignal } from '../events/abort.ts';
import { Body, extractBody, mixBody, type BodyInit } from './body.ts';
import { Headers, guardHeaders, type HeadersInit } from './headers.ts';

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const NORMALIZED = new Set(['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT']);
const FORBIDDEN = new Set(['CONNECT', 'TRACE', 'TRACK']);

export interface RequestInit {
  method?: string;
  headers?: HeadersInit;
  body?: BodyInit;
  redirect?: 'follow' | 'error' | 'manual';
  signal?: AbortSignal | null;
  cache?: string;
  credentials?: string;
  integrity?: string;
  keepalive?: boolean;
  mode?: string;
  referrer?: string;
  referrerPolicy?: string;
  priority?: string;
  /** Deno's own (a Deno.HttpClient): not supported in the sandbox, ignored */
  client?: unknown;
}

function normalizeMethod(method: unknown): string {
  const m = String(method);
  if (!TOKEN.test(m)) throw new TypeError('Method is not valid');
  const upper = m.toUpperCase();
  if (FORBIDDEN.has(upper)) throw new TypeError('Method is forbidden');
  return NORMALIZED.has(upper) ? upper : m;
}

function parseUrl(input: unknown): string {
  const URLClass = (globalThis as unknown as { URL: new (u: string) => { href: string } }).URL;
  return new URLClass(String(input)).href;
}

let bodyOf: (r: Request) => Body;

export class Request {
  readonly #url: string;
  readonly #method: string;
  readonly #headers: Headers;
  readonly #redirect: string;
  readonly #signal: AbortSignal;
  readonly #body: Body;
  readonly #extra: { cache: string; credentials: string; integrity: string; keepalive: boolean; mode: string; referrer: string; referrerPolicy: string; priority: string };

  constructor(input: string | { href: string } | Request, init: RequestInit = {}) {
    if (arguments.length < 1) throw new TypeError("Failed to construct 'Request': 1 argument required, but only 0 present");
    const base = input instanceof Request ? input : undefined;
    this.#url = base ? base.#url : parseUrl(input);
    const o = init ?? {};
    this.#method = o.method !== undefined ? normalizeMethod(o.method) : ((base && base.#method) ?? 'GET');
    this.#redirect = o.redirect ?? (base && base.#redirect) ?? 'follow';
    if (!['follow', 'error', 'manual'].includes(this.#redirect)) {
      throw new TypeError(`Failed to construct 'Request': The provided value '${this.#redirect}' is not a valid enum value of type RequestRedirect`);
    }
    this.#extra = {
      cache: o.cache ?? (base && base.#extra.cache) ?? 'default',
      credentials: o.credentials ?? (base && base.#extra.credentials) ?? 'same-origin',
      integrity: o.integrity ?? (base && base.#extra.integrity) ?? '',
      keepalive: o.keepalive ?? (base && base.#extra.keepalive) ?? false,
      mode: o.mode ?? (base && base.#extra.mode) ?? 'cors',
      referrer: o.referrer ?? (base && base.#extra.referrer) ?? 'about:client',
      referrerPolicy: o.referrerPolicy ?? (base && base.#extra.referrerPolicy) ?? '',
      priority: o.priority ?? (base && base.#extra.priority) ?? 'auto',
    };
    if (!['high', 'low', 'auto'].includes(this.#extra.priority)) {
      throw new TypeError(`Failed to construct 'Request': The provided value '${this.#extra.priority}' is not a valid enum value of type RequestPriority`);
    }
    if (this.#extra.mode === 'navigate') throw new TypeError("Failed to construct 'Request': Request mode 'navigate' is not allowed");
    if (this.#extra.cache === 'only-if-cached' && this.#extra.mode !== 'same-origin') {
      throw new TypeError("Failed to construct 'Request': 'only-if-cached' can be set only with 'same-origin' mode");
    }
    this.#headers = new Headers(o.headers ?? (base && base.#headers));
    // A request's signal follows the one it was given (or the request it copies).
    this.#signal = newAbortSignal();
    const follow = o.signal !== undefined ? o.signal : (base && base.#signal);
    if (follow) {
      if (!(follow instanceof AbortSignal)) throw new TypeError("Failed to construct 'Request': member signal is not of type AbortSignal.");
      if (follow.aborted) abortSignal(this.#signal, follow.reason);
      else followSignal(follow, () => abortSignal(this.#signal, follow.reason));
    }
    const headers = this.#headers;
    const contentType = () => headers.get('content-type');
    if (o.body !== undefined && o.body !== null) {
      if (this.#method === 'GET' || this.#method === 'HEAD') throw new TypeError('Request with GET/HEAD method cannot have body');
      const extracted = extractBody(o.body)!;
      if (extracted.contentType !== null && !headers.has('content-type')) headers.append('content-type', extracted.contentType);
      this.#body = new Body(extracted.source, contentType);
    } else if (base && o.body === undefined) {
      this.#body = new Body(base.#body.take(), contentType);
    } else {
      this.#body = new Body(null, contentType);
    }
    guardHeaders(this.#headers, 'request');
  }

  static {
    bodyOf = (r) => r.#body;
  }

  get method(): string {
    return this.#method;
  }
  get url(): string {
    return this.#url;
  }
  get headers(): Headers {
    return this.#headers;
  }
  get redirect(): string {
    return this.#redirect;
  }
  get cache(): string {
    return this.#extra.cache;
  }
  get credentials(): string {
    return this.#extra.credentials;
  }
  get integrity(): string {
    return this.#extra.integrity;
  }
  get keepalive(): boolean {
    return this.#extra.keepalive;
  }
  get mode(): string {
    return this.#extra.mode;
  }
  get referrer(): string {
    return this.#extra.referrer;
  }
  get referrerPolicy(): string {
    return this.#extra.referrerPolicy;
  }
  get priority(): string {
    return this.#extra.priority;
  }
  get signal(): AbortSignal {
    return this.#signal;
  }

  clone(): Request {
    const body = this.#body.clone();
    const copy = new Request(this.#url, { method: this.#method, headers: this.#headers, redirect: this.#redirect as 'follow', signal: this.#signal, ...this.#extra });
    copy.#body.replaceWith(body);
    return copy;
  }

  get [Symbol.toStringTag](): string {
    return 'Request';
  }

  [PRIVATE_INSPECT](): unknown {
    if (!(#url in this)) return 'Request';
    return inspectAs('Request', { bodyUsed: this.#body.used, headers: this.#headers, method: this.#method, redirect: this.#redirect, url: this.#url });
  }
}
mixBody(Request.prototype, (self) => bodyOf(self as Request));

/** The body a request carries, for fetch. */
export function requestBody(request: Request): Body {
  return bodyOf(request);
}
