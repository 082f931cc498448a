/**
 * `Headers` as the Fetch standard and Deno have them: names and values are validated
 * (Deno's messages), iteration is sorted and combines repeated names except `set-cookie`,
 * `getSetCookie()` gives the cookies one by one, and a guard makes the headers of an
 * error or fetched response immutable.
 */
import { PRIVATE_INSPECT, inspectPrefixed } from '../../web/inspect.ts';
import { requireArgs } from '../events/event.ts';

export type HeadersInit = Headers | Record<string, string> | Iterable<Iterable<string>>;

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Leading and trailing HTTP whitespace goes; NUL, CR and LF are refused. */
function normalizeValue(value: unknown): string {
  const v = String(value).replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, '');
  if (/[\0\r\n]/.test(v) || /[^\u0000-\u00ff]/.test(v)) throw new TypeError(`Invalid header value: "${v}"`);
  return v;
}

function checkName(name: unknown): string {
  const n = String(name);
  if (!TOKEN.test(n)) throw new TypeError(`Invalid header name: "${n}"`);
  return n.toLowerCase();
}

type Guard = 'none' | 'request' | 'response' | 'immutable';

/** The raw list, repeats apart, for sending. (Module functions, not members: scripts cannot reach them.) */
export let headerList: (headers: Headers) => [string, string][];
export let guardHeaders: (headers: Headers, guard: Guard) => Headers;

export class Headers {
  /** [lowercased name, value] in insertion order; repeats kept apart (set-cookie needs them) */
  #list: [string, string][] = [];
  #guard: Guard = 'none';

  constructor(init?: HeadersInit) {
    if (init === undefined || init === null) return;
    if (init instanceof Headers) {
      for (const [k, v] of init.#list) this.#list.push([k, v]);
      return;
    }
    if (typeof init !== 'object') {
      throw new TypeError("Failed to construct 'Headers': Argument 1 The provided value is not of type '(sequence<sequence<ByteString>> or record<ByteString, ByteString>)'");
    }
    if (typeof (init as Iterable<unknown>)[Symbol.iterator] === 'function') {
      for (const pair of init as Iterable<Iterable<string>>) {
        if (pair === null || typeof pair !== 'object' || typeof (pair as Iterable<string>)[Symbol.iterator] !== 'function') {
          throw new TypeError("Failed to construct 'Headers': Argument 1 The provided value is not of type '(sequence<sequence<ByteString>> or record<ByteString, ByteString>)'");
        }
        const items = [...pair];
        if (items.length !== 2) throw new TypeError(`Invalid header: length must be 2, but is ${items.length}`);
        this.append(items[0]!, items[1]!);
      }
      return;
    }
    for (const key of Object.keys(init)) this.append(key, (init as Record<string, string>)[key]!);
  }

  #mutable(): void {
    if (this.#guard === 'immutable') throw new TypeError('Cannot change headers: headers are immutable');
  }

  append(name: string, value: string): void {
    requireArgs(arguments.length, 2, 'append', 'Headers');
    const key = checkName(name);
    const v = normalizeValue(value);
    this.#mutable();
    this.#list.push([key, v]);
  }

  set(name: string, value: string): void {
    requireArgs(arguments.length, 2, 'set', 'Headers');
    const key = checkName(name);
    const v = normalizeValue(value);
    this.#mutable();
    const at = this.#list.findIndex(([k]) => k === key);
    if (at === -1) this.#list.push([key, v]);
    else {
      this.#list[at] = [key, v];
      this.#list = this.#list.filter(([k], i) => k !== key || i === at);
    }
  }

  get(name: string): string | null {
    requireArgs(arguments.length, 1, 'get', 'Headers');
    const key = checkName(name);
    const values = this.#list.filter(([k]) => k === key).map(([, v]) => v);
    return values.length === 0 ? null : values.join(', ');
  }

  getSetCookie(): string[] {
    return this.#list.filter(([k]) => k === 'set-cookie').map(([, v]) => v);
  }

  has(name: string): boolean {
    requireArgs(arguments.length, 1, 'has', 'Headers');
    const key = checkName(name);
    return this.#list.some(([k]) => k === key);
  }

  delete(name: string): void {
    requireArgs(arguments.length, 1, 'delete', 'Headers');
    const key = checkName(name);
    this.#mutable();
    this.#list = this.#list.filter(([k]) => k !== key);
  }

  forEach(callback: (value: string, key: string, parent: Headers) => void, thisArg?: unknown): void {
    requireArgs(arguments.length, 1, 'forEach', 'Headers');
    for (const [k, v] of this.entries()) callback.call(thisArg, v, k, this);
  }

  /** The standard's "sort and combine". */
  #sorted(): [string, string][] {
    const names = [...new Set(this.#list.map(([k]) => k))].sort();
    const out: [string, string][] = [];
    for (const name of names) {
      if (name === 'set-cookie') for (const v of this.getSetCookie()) out.push([name, v]);
      else out.push([name, this.#list.filter(([k]) => k === name).map(([, v]) => v).join(', ')]);
    }
    return out;
  }

  *entries(): IterableIterator<[string, string]> {
    yield* this.#sorted();
  }

  *keys(): IterableIterator<string> {
    for (const [k] of this.#sorted()) yield k;
  }

  *values(): IterableIterator<string> {
    for (const [, v] of this.#sorted()) yield v;
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }

  get [Symbol.toStringTag](): string {
    return 'Headers';
  }

  [PRIVATE_INSPECT](): unknown {
    if (!(#list in this)) return 'Headers';
    return inspectPrefixed('Headers', this.#sorted());
  }

  static {
    headerList = (headers) => headers.#list.map(([k, v]) => [k, v]);
    guardHeaders = (headers, guard) => {
      headers.#guard = guard;
      return headers;
    };
  }
}

