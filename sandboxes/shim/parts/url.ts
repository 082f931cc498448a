/**
 * `URL` and `URLSearchParams` from core-js (a WHATWG-conformant parser), with Deno's face:
 * a parse error is `TypeError: Invalid URL: '<input>'` (`with base '<base>'` when one was
 * given), and the console shows a URL's components and a URLSearchParams' pairs as Deno does.
 */
import { defineGlobal } from '../parts-loader.ts';
import { PRIVATE_INSPECT, inspectAs, inspectEntriesAs } from '../web/inspect.ts';

declare const require: (id: string) => unknown;

require('core-js/modules/web.url.js');
require('core-js/modules/web.url.can-parse.js');
require('core-js/modules/web.url.parse.js');
require('core-js/modules/web.url.to-json.js');
require('core-js/modules/web.url-search-params.js');
require('core-js/modules/web.url-search-params.delete.js');
require('core-js/modules/web.url-search-params.has.js');
require('core-js/modules/web.url-search-params.size.js');

type Ctor = { new (...args: unknown[]): object; prototype: object };
const g = globalThis as unknown as Record<string, Ctor>;
const CoreURL = g.URL!;
const CoreSearchParams = g.URLSearchParams!;

/**
 * A function wrapper rather than a subclass: core-js makes URLs inside `URL.parse` and
 * `searchParams` with its own constructor, and those must still be `instanceof URL`, so the
 * wrapper shares core-js's prototype.
 */
function URL(this: unknown, url: unknown, base?: unknown): object {
  if (new.target === undefined) throw new TypeError("Class constructor URL cannot be invoked without 'new'");
  if (arguments.length === 0) throw new TypeError("Failed to construct 'URL': 1 argument required, but only 0 present");
  try {
    return Reflect.construct(CoreURL, base === undefined ? [url] : [url, base], new.target);
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    throw new TypeError(`Invalid URL: '${String(url)}'${base === undefined ? '' : ` with base '${String(base)}'`}`);
  }
}
URL.prototype = CoreURL.prototype;
Object.defineProperty(URL, 'length', { value: 1 });
Object.defineProperty(CoreURL.prototype, 'constructor', { value: URL, writable: true, configurable: true, enumerable: false });
for (const key of Reflect.ownKeys(CoreURL)) {
  if (key === 'prototype' || key === 'length' || key === 'name') continue;
  Object.defineProperty(URL, key, Object.getOwnPropertyDescriptor(CoreURL, key)!);
}
// Deno's argument check for the static helpers
for (const name of ['canParse', 'parse'] as const) {
  const core = (CoreURL as unknown as Record<string, (...a: unknown[]) => unknown>)[name];
  if (typeof core !== 'function') continue;
  Object.defineProperty(URL, name, {
    value: { [name](...args: unknown[]) {
      if (args.length === 0) throw new TypeError(`Failed to execute '${name}' on 'URL': 1 argument required, but only 0 present`);
      return core.apply(CoreURL, args);
    } }[name],
    writable: true,
    configurable: true,
    enumerable: false,
  });
}

function URLSearchParams(this: unknown, init?: unknown): object {
  if (new.target === undefined) throw new TypeError("Class constructor URLSearchParams cannot be invoked without 'new'");
  if (init !== null && typeof init === 'object' && typeof (init as Iterable<unknown>)[Symbol.iterator] === 'function') {
    for (const pair of init as Iterable<unknown>) {
      if (pair === null || typeof pair !== 'object' || typeof (pair as Iterable<unknown>)[Symbol.iterator] !== 'function' || [...(pair as Iterable<unknown>)].length !== 2) {
        throw new TypeError('Each query pair must be an iterable [name, value] tuple');
      }
    }
  }
  return Reflect.construct(CoreSearchParams, init === undefined ? [] : [init], new.target);
}
URLSearchParams.prototype = CoreSearchParams.prototype;
Object.defineProperty(URLSearchParams, 'length', { value: 0 });
Object.defineProperty(CoreSearchParams.prototype, 'constructor', { value: URLSearchParams, writable: true, configurable: true, enumerable: false });

const URL_FIELDS = ['href', 'origin', 'protocol', 'username', 'password', 'host', 'hostname', 'port', 'pathname', 'hash', 'search'] as const;

Object.defineProperty(CoreURL.prototype, PRIVATE_INSPECT, {
  value(this: Record<string, unknown>) {
    if (this === CoreURL.prototype) return 'URL {}';
    return inspectAs('URL', Object.fromEntries(URL_FIELDS.map((k) => [k, this[k]])));
  },
});
Object.defineProperty(CoreSearchParams.prototype, PRIVATE_INSPECT, {
  value(this: Iterable<[string, string]>) {
    if (this === CoreSearchParams.prototype) return 'URLSearchParams {}';
    return inspectEntriesAs('URLSearchParams', [...this]);
  },
});

defineGlobal('URL', URL);
defineGlobal('URLSearchParams', URLSearchParams);

export { URL, URLSearchParams };
