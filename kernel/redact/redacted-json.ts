/**
 * redactedCanonicalJson(record): canonicalJson(redactRecord(record)) in one walk, for the
 * event log's hot path, without building the redacted copy only to serialize it.
 *
 * It covers plain data (plain objects, arrays, strings, finite and non-finite numbers,
 * booleans, null, undefined, functions and symbols) and gives up, returning undefined, on
 * anything where redact() or canonicalJson() has a rule of its own: class instances, Maps,
 * Sets, Dates, Errors, binary, a toJSON method, bigints, keys that redaction
 * rewrites, cycles and deep nesting, or a Proxy that throws. The caller then takes the
 * two-step path, so the text is always byte-for-byte what the two steps give
 * (test/events/redacted-json.test.ts checks both on random values).
 */
import { keyInfo, MAX_DEPTH, readIndex, readKey, type KeyInfo } from './redact.ts';
import { REDACTED, scrubString } from './strings.ts';

const REDACTED_JSON = JSON.stringify(REDACTED);

/** Deeper than this (or a cycle, which is endlessly deep) goes the two-step way, which cuts off at MAX_DEPTH. */
const FAST_DEPTH = MAX_DEPTH / 2;

/** Thrown (and caught below) to leave the fast path; never escapes this module. */
const GIVE_UP = Symbol('give up');

export function redactedCanonicalJson(record: Record<string, unknown>): string | undefined {
  try {
    return objectJson(record, false, 0);
  } catch {
    // GIVE_UP, or a Proxy trap that threw: the two-step path knows what to make of either.
    return undefined;
  }
}

/** redact()'s copy of a plain object (keys judged one by one), as canonical JSON. */
function objectJson(value: object, secret: boolean, depth: number): string {
  if (depth >= FAST_DEPTH) throw GIVE_UP;
  // Plain objects only; with no prototype, redact() would call an own toJSON, which is left to it.
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && (proto !== null || typeof (value as { toJSON?: unknown }).toJSON === 'function')) throw GIVE_UP;
  const keys = sortKeys(Object.keys(value));
  let out = '{';
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const info = keyInfo(key);
    // A key that itself looks like a secret is rewritten, and two keys could then collide.
    if (info.written !== key) throw GIVE_UP;
    const item = fieldJson(info, readKey(value, key), secret, depth + 1);
    if (item === undefined) continue;
    out += (out.length === 1 ? info.json : info.jsonAfterComma) + item;
  }
  return `${out}}`;
}

/**
 * Array#sort's order for distinct strings (UTF-16 code units, which is what `<` compares),
 * by insertion in place: payload objects have a handful of keys, and the built-in sort
 * allocates a work copy on every call.
 */
function sortKeys(keys: string[]): string[] {
  if (keys.length > 32) return keys.sort();
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i]!;
    let j = i - 1;
    while (j >= 0 && keys[j]! > key) {
      keys[j + 1] = keys[j]!;
      j--;
    }
    keys[j + 1] = key;
  }
  return keys;
}

/** redact.ts redactField, then canonical JSON. */
function fieldJson(info: KeyInfo, entry: unknown, secret: boolean, depth: number): string | undefined {
  // A usage counter keeps its number even under a secret key.
  if (typeof entry === 'number' && info.usage) return numberJson(entry);
  if (secret || info.kind === 'secret') return valueJson(entry, true, depth);
  if (info.kind === 'scalar-secret') return valueJson(entry, entry === null || typeof entry !== 'object', depth);
  return valueJson(entry, false, depth);
}

/** redact.ts walk, then canonical JSON; undefined where the value is dropped. */
function valueJson(value: unknown, secret: boolean, depth: number): string | undefined {
  switch (typeof value) {
    case 'string':
      return secret ? REDACTED_JSON : JSON.stringify(scrubString(value));
    case 'number':
      return secret ? REDACTED_JSON : numberJson(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      // Redacted under a secret key; otherwise canonicalJson refuses it, with its own error.
      if (secret) return REDACTED_JSON;
      throw GIVE_UP;
    case 'object':
      if (value === null) return 'null';
      return Array.isArray(value) ? arrayJson(value, secret, depth) : objectJson(value, secret, depth);
    default:
      // undefined, functions and symbols: dropped from objects, null in arrays.
      return undefined;
  }
}

function arrayJson(value: unknown[], secret: boolean, depth: number): string {
  if (depth >= FAST_DEPTH) throw GIVE_UP;
  const length = value.length;
  let out = '[';
  for (let i = 0; i < length; i++) {
    if (i > 0) out += ',';
    out += valueJson(readIndex(value, i), secret, depth + 1) ?? 'null';
  }
  return `${out}]`;
}

/** JSON.stringify of a number: finite numbers as Number#toString writes them, the rest null. */
function numberJson(value: number): string {
  return Number.isFinite(value) ? String(value) : 'null';
}
