/**
 * redact(value): a deep copy with every secret replaced by "[REDACTED]", at any depth and
 * inside arrays, judged by key name (keys.ts) and by what a string looks like (strings.ts).
 * Redaction by path (a logger's `redact` option, whose wildcard matches one level only) would
 * let a secret three levels down through, so the kernel scrubs whole objects with this before
 * anything is logged, hashed or written.
 *
 * It never throws: cycles become "[Circular]", getters that throw become "[Unreadable]",
 * and non-plain objects are copied into plain JSON-friendly data (Map -> object, Set ->
 * array, Error -> {type, message, stack, ...}, binary -> a size note, never its bytes).
 */
import { classifyKey, isUsageKey, type KeyClass } from './keys.ts';
import { REDACTED, scrubString } from './strings.ts';

export { REDACTED } from './strings.ts';

/** Deeper than this is cut off: logs and events are not the place for such structures. */
export const MAX_DEPTH = 64;

/** `secret`: everything below a secret key is replaced except usage counters. */
type Mode = 'normal' | 'secret';

export function redact(value: unknown): unknown {
  return walk(value, 'normal', new Set(), 0);
}

/** redact() for the common case of a record in, a record out (events, log objects). */
export function redactRecord(value: Record<string, unknown>): Record<string, unknown> {
  const out = redact(value);
  return out !== null && typeof out === 'object' && !Array.isArray(out) ? (out as Record<string, unknown>) : { value: out };
}

function walk(value: unknown, mode: Mode, ancestors: Set<object>, depth: number): unknown {
  switch (typeof value) {
    case 'string':
      return mode === 'secret' ? REDACTED : scrubString(value);
    case 'number':
    case 'bigint':
      return mode === 'secret' ? REDACTED : value;
    case 'boolean':
    case 'undefined':
      return value;
    case 'function':
    case 'symbol':
      return undefined;
    case 'object':
      if (value === null) return null;
      if (ancestors.has(value)) return '[Circular]';
      if (depth >= MAX_DEPTH) return '[Truncated]';
      ancestors.add(value);
      try {
        return copyObject(value, mode, ancestors, depth + 1);
      } catch {
        return '[Unreadable]';
      } finally {
        ancestors.delete(value);
      }
    default:
      return undefined;
  }
}

function copyObject(value: object, mode: Mode, ancestors: Set<object>, depth: number): unknown {
  if (Array.isArray(value)) {
    const out: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) out[i] = walk(readIndex(value, i), mode, ancestors, depth);
    return out;
  }
  if (value instanceof Date) return new Date(value.getTime());
  if (ArrayBuffer.isView(value)) return `[${value.constructor.name} ${value.byteLength} bytes]`;
  if (value instanceof ArrayBuffer || value instanceof SharedArrayBuffer) return `[${value.constructor.name} ${value.byteLength} bytes]`;
  if (value instanceof RegExp) return walk(String(value), mode, ancestors, depth);
  if (value instanceof Map) {
    const out: Record<string, unknown> = {};
    for (const [key, entry] of value) copyField(out, String(key), entry, mode, ancestors, depth);
    return out;
  }
  if (value instanceof Set) return [...value].map((entry) => walk(entry, mode, ancestors, depth));
  if (value instanceof Error) return copyError(value, mode, ancestors, depth);
  // Objects that say how they serialize (URL, Decimal, ...) are redacted in that form.
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function' && Object.getPrototypeOf(value) !== Object.prototype) {
    return walk(toJSON.call(value), mode, ancestors, depth);
  }
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) copyField(out, key, readKey(value, key), mode, ancestors, depth);
  return out;
}

function copyError(error: Error, mode: Mode, ancestors: Set<object>, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  copyField(out, 'type', error.constructor?.name ?? error.name, mode, ancestors, depth);
  copyField(out, 'message', error.message, mode, ancestors, depth);
  if (error.stack !== undefined) copyField(out, 'stack', error.stack, mode, ancestors, depth);
  for (const key of Object.keys(error)) copyField(out, key, readKey(error, key), mode, ancestors, depth);
  if (error.cause !== undefined && !('cause' in out)) copyField(out, 'cause', error.cause, mode, ancestors, depth);
  return out;
}

export interface KeyInfo {
  /** The key as written in the copy (a key that itself looks like a secret is scrubbed). */
  written: string;
  /** `written` as a JSON object key with its colon (`"written":`), and with a comma before it, for redacted-json.ts. */
  json: string;
  jsonAfterComma: string;
  usage: boolean;
  kind: KeyClass;
}

/**
 * Judging a key costs a few regexes; the same few hundred keys come back on every event,
 * so the verdicts are kept. Bounded: cleared when full, so odd keys cannot grow it forever.
 */
const keyCache = new Map<string, KeyInfo>();
const KEY_CACHE_LIMIT = 4096;

export function keyInfo(key: string): KeyInfo {
  let info = keyCache.get(key);
  if (info === undefined) {
    const written = scrubString(key);
    const json = `${JSON.stringify(written)}:`;
    info = { written, json, jsonAfterComma: `,${json}`, usage: isUsageKey(key), kind: classifyKey(key) };
    if (keyCache.size >= KEY_CACHE_LIMIT) keyCache.clear();
    keyCache.set(key, info);
  }
  return info;
}

function copyField(out: Record<string, unknown>, key: string, entry: unknown, mode: Mode, ancestors: Set<object>, depth: number): void {
  const info = keyInfo(key);
  setOwn(out, info.written, redactField(info, entry, mode, ancestors, depth));
}

function redactField(info: KeyInfo, entry: unknown, mode: Mode, ancestors: Set<object>, depth: number): unknown {
  // A usage counter keeps its number even under a secret key (`credentials.input_tokens`).
  if (typeof entry === 'number' && info.usage) return entry;
  if (mode === 'secret') return walk(entry, 'secret', ancestors, depth);
  switch (info.kind) {
    case 'secret':
      return walk(entry, 'secret', ancestors, depth);
    case 'scalar-secret':
      return entry !== null && typeof entry === 'object' ? walk(entry, 'normal', ancestors, depth) : walk(entry, 'secret', ancestors, depth);
    default:
      return walk(entry, 'normal', ancestors, depth);
  }
}

/** A property read that survives a throwing getter: it gives "[Unreadable]" (shared with redacted-json.ts). */
export function readKey(value: object, key: string): unknown {
  try {
    return (value as Record<string, unknown>)[key];
  } catch {
    return '[Unreadable]';
  }
}

export function readIndex(value: unknown[], index: number): unknown {
  try {
    return value[index];
  } catch {
    return '[Unreadable]';
  }
}

/** Plain assignment of `__proto__` would change the copy's prototype instead of adding a key. */
function setOwn(out: Record<string, unknown>, key: string, entry: unknown): void {
  if (key === '__proto__') Object.defineProperty(out, key, { value: entry, enumerable: true, writable: true, configurable: true });
  else out[key] = entry;
}
