/**
 * Node's legacy URL API (`url.parse`, `url.format`, `url.resolve`, the `Url` class), after
 * Node's lib/url.js: field order, host lowercasing, auth decoding, auto-escaping of unsafe
 * characters, `parseQueryString`, `slashesDenoteHost`.
 */
import { invalidArgType } from '../node-errors/index.ts';
import { parse as parseQuery, stringify as stringifyQuery } from './querystring.ts';

const slashedProtocol = new Set(['http', 'http:', 'https', 'https:', 'ftp', 'ftp:', 'gopher', 'gopher:', 'file', 'file:', 'ws', 'ws:', 'wss', 'wss:']);
const hostlessProtocol = new Set(['javascript', 'javascript:']);
const unsafeProtocol = new Set(['javascript', 'javascript:']);
const protocolPattern = /^[a-z0-9.+-]+:/i;
const portPattern = /:[0-9]*$/;
const hostPattern = /^\/\/[^@/]+@[^@/]+/;
const simplePathPattern = /^(\/\/?(?!\/)[^?\s]*)(\?[^\s]*)?$/;
const hostnameMaxLen = 255;
// characters that end the host (the rest is path, query or fragment)
const hostEndingChars = ['/', '?', '#'];
// characters that are never part of a host
const nonHostChars = ['<', '>', '"', '`', ' ', '\r', '\n', '\t', '{', '}', '|', '\\', '^', "'", '%', ';', '/', '?', '#'];
const autoEscape: Record<string, string> = {
  '\t': '%09', '\n': '%0A', '\r': '%0D', ' ': '%20', '"': '%22', "'": '%27', '<': '%3C', '>': '%3E', '\\': '%5C', '^': '%5E', '`': '%60', '{': '%7B', '|': '%7C', '}': '%7D',
};

export class Url {
  protocol: string | null = null;
  slashes: boolean | null = null;
  auth: string | null = null;
  host: string | null = null;
  port: string | null = null;
  hostname: string | null = null;
  hash: string | null = null;
  search: string | null = null;
  query: string | Record<string, unknown> | null = null;
  pathname: string | null = null;
  path: string | null = null;
  href: string | null = null;

  parse(url: string, parseQueryString = false, slashesDenoteHost = false): this {
    if (typeof url !== 'string') throw invalidArgType('url', 'of type string', url);
    // Backslashes before the query become slashes, as browsers treat them.
    let rest = url.trim();
    const qIndex = rest.search(/[?#]/);
    const before = qIndex === -1 ? rest : rest.slice(0, qIndex);
    rest = before.replace(/\\/g, '/') + (qIndex === -1 ? '' : rest.slice(qIndex));

    if (!slashesDenoteHost && !/#/.test(rest)) {
      const simple = simplePathPattern.exec(rest);
      if (simple) {
        this.path = rest;
        this.href = rest;
        this.pathname = simple[1]!;
        if (simple[2]) {
          this.search = simple[2];
          this.query = parseQueryString ? parseQuery(this.search.slice(1)) : this.search.slice(1);
        } else if (parseQueryString) {
          this.search = null;
          this.query = Object.create(null) as Record<string, unknown>;
        }
        return this;
      }
    }

    const proto = protocolPattern.exec(rest);
    let lowerProto = '';
    if (proto) {
      lowerProto = proto[0].toLowerCase();
      this.protocol = lowerProto;
      rest = rest.slice(proto[0].length);
    }

    let slashes = false;
    if (slashesDenoteHost || proto || hostPattern.test(rest)) {
      slashes = rest.startsWith('//');
      if (slashes && !(proto && hostlessProtocol.has(lowerProto))) {
        rest = rest.slice(2);
        this.slashes = true;
      }
    }

    if (!hostlessProtocol.has(lowerProto) && (slashes || (proto && !slashedProtocol.has(lowerProto)))) {
      let hostEnd = -1;
      for (const c of hostEndingChars) {
        const i = rest.indexOf(c);
        if (i !== -1 && (hostEnd === -1 || i < hostEnd)) hostEnd = i;
      }
      const atSign = hostEnd === -1 ? rest.lastIndexOf('@') : rest.lastIndexOf('@', hostEnd);
      if (atSign !== -1) {
        this.auth = decodeURIComponent(rest.slice(0, atSign));
        rest = rest.slice(atSign + 1);
      }
      hostEnd = -1;
      for (const c of nonHostChars) {
        const i = rest.indexOf(c);
        if (i !== -1 && (hostEnd === -1 || i < hostEnd)) hostEnd = i;
      }
      if (hostEnd === -1) hostEnd = rest.length;
      this.host = rest.slice(0, hostEnd);
      rest = rest.slice(hostEnd);
      this.#parseHost();
      if (typeof this.hostname !== 'string') this.hostname = '';
      const hostname = this.hostname;
      const ipv6Hostname = hostname.startsWith('[') && hostname.endsWith(']');
      if (!ipv6Hostname) {
        const invalid = /[^A-Za-z0-9_.+-]/.exec(hostname);
        if (invalid && !/[^\x00-\x7f]/.test(invalid[0])) {
          // the rest of the host after an invalid character belongs to the path
          const at = invalid.index;
          rest = `/${hostname.slice(at)}${rest}`;
          this.hostname = hostname.slice(0, at);
        }
      }
      if (this.hostname.length > hostnameMaxLen) this.hostname = '';
      else if (!ipv6Hostname) this.hostname = toASCII(this.hostname.toLowerCase());
      const p = this.port ? `:${this.port}` : '';
      const h = this.hostname || '';
      this.host = h + p;
      if (ipv6Hostname) {
        this.hostname = this.hostname.slice(1, -1);
        if (!rest.startsWith('/')) rest = `/${rest}`;
      }
    }

    if (!unsafeProtocol.has(lowerProto)) {
      rest = rest.replace(/[\t\n\r "'<>\\^`{|}]/g, (c) => autoEscape[c]!);
    }

    const hash = rest.indexOf('#');
    if (hash !== -1) {
      this.hash = rest.slice(hash);
      rest = rest.slice(0, hash);
    }
    const qm = rest.indexOf('?');
    if (qm !== -1) {
      this.search = rest.slice(qm);
      this.query = rest.slice(qm + 1);
      if (parseQueryString) this.query = parseQuery(this.query);
      rest = rest.slice(0, qm);
    } else if (parseQueryString) {
      this.search = null;
      this.query = Object.create(null) as Record<string, unknown>;
    }
    if (rest.length > 0) this.pathname = rest;
    else if (slashedProtocol.has(lowerProto) && this.hostname) this.pathname = '/';
    if (this.pathname !== null || this.search !== null) this.path = (this.pathname ?? '') + (this.search ?? '');
    this.href = this.format();
    return this;
  }

  #parseHost(): void {
    let host = this.host ?? '';
    const port = portPattern.exec(host);
    if (port) {
      if (port[0] !== ':') this.port = port[0].slice(1);
      host = host.slice(0, host.length - port[0].length);
    }
    if (host) this.hostname = host;
  }

  format(): string {
    let auth = this.auth ?? '';
    if (auth) auth = `${encodeURIComponent(auth).replace(/%3A/i, ':')}@`;
    let protocol = this.protocol ?? '';
    let pathname = this.pathname ?? '';
    let hash = this.hash ?? '';
    let host = '';
    let query = '';
    if (this.host) host = auth + this.host;
    else if (this.hostname) {
      host = auth + (this.hostname.includes(':') && !(this.hostname.startsWith('[')) ? `[${this.hostname}]` : this.hostname);
      if (this.port) host += `:${this.port}`;
    }
    if (this.query !== null && typeof this.query === 'object') query = stringifyQuery(this.query);
    let search = this.search || (query && `?${query}`) || '';
    if (protocol && !protocol.endsWith(':')) protocol += ':';
    pathname = pathname.replace(/[?#]/g, (c) => encodeURIComponent(c));
    if (this.slashes || slashedProtocol.has(protocol)) {
      if (this.slashes || host) {
        if (pathname && !pathname.startsWith('/')) pathname = `/${pathname}`;
        host = `//${host}`;
      } else if (protocol.toLowerCase() === 'file:') {
        host = '//';
      }
    }
    search = search.replace(/#/g, '%23');
    if (hash && !hash.startsWith('#')) hash = `#${hash}`;
    if (search && !search.startsWith('?')) search = `?${search}`;
    return protocol + host + pathname + search + hash;
  }

  resolve(relative: string): string {
    return urlResolve(this.format(), relative);
  }
}

/** Node's punycode toASCII for the labels of a host that are not ASCII (the WHATWG parser does it). */
function toASCII(host: string): string {
  if (!/[^\x00-\x7f]/.test(host)) return host;
  try {
    return new URL(`http://${host}`).hostname;
  } catch {
    return '';
  }
}

export function urlParse(url: unknown, parseQueryString?: boolean, slashesDenoteHost?: boolean): Url {
  if (url instanceof Url) return url;
  const u = new Url();
  u.parse(url as string, Boolean(parseQueryString), Boolean(slashesDenoteHost));
  return u;
}

export function urlFormat(obj: unknown, options?: { auth?: boolean; fragment?: boolean; search?: boolean; unicode?: boolean }): string {
  if (typeof obj === 'string') return urlParse(obj).format();
  if (obj === null || typeof obj !== 'object') throw invalidArgType('urlObject', 'one of type object or string', obj);
  const URLClass = (globalThis as unknown as { URL: new (u: string) => URL }).URL;
  if (obj instanceof URLClass) {
    const u = new URLClass((obj as URL).href);
    if (options?.auth === false) {
      u.username = '';
      u.password = '';
    }
    if (options?.fragment === false) u.hash = '';
    if (options?.search === false) u.search = '';
    return u.href;
  }
  return Url.prototype.format.call(obj as Url);
}

export function urlResolve(source: string, relative: string): string {
  const URLClass = (globalThis as unknown as { URL: new (u: string, b?: string) => URL }).URL;
  try {
    return new URLClass(relative, new URLClass(source).href).href;
  } catch {
    if (/^[a-z][a-z0-9+.-]*:/i.test(relative) || relative.startsWith('/')) return relative;
    const base = source.slice(0, source.lastIndexOf('/') + 1);
    const parts: string[] = [];
    for (const seg of (base + relative).split('/')) {
      if (seg === '..') parts.pop();
      else if (seg !== '.') parts.push(seg);
    }
    return parts.join('/');
  }
}
