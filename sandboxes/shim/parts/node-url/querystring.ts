/** `node:querystring`, after Node's lib/querystring.js: `+` as space, repeated keys as arrays, maxKeys. */
import { nodeError } from '../node-errors/index.ts';

export function escape(str: unknown): string {
  const s = typeof str === 'string' ? str : typeof str === 'object' ? String(str) : `${str as string}`;
  try {
    return encodeURIComponent(s);
  } catch {
    throw nodeError(URIError, 'ERR_INVALID_URI', 'URI malformed');
  }
}

export function unescape(str: string, decodeSpaces = false): string {
  const s = decodeSpaces ? str.replace(/\+/g, ' ') : str;
  try {
    return decodeURIComponent(s);
  } catch {
    // Node falls back to a byte-wise unescape that leaves bad sequences as they are
    return s.replace(/%([0-9a-fA-F]{2})/g, (m, hex: string) => {
      const code = Number.parseInt(hex, 16);
      return code < 0x80 ? String.fromCharCode(code) : m;
    });
  }
}

function stringifyPrimitive(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (typeof v === 'bigint') return String(v);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  return '';
}

export function stringify(obj: unknown, sep = '&', eq = '=', options: { encodeURIComponent?: (s: string) => string } = {}): string {
  const encode = options.encodeURIComponent ?? escape;
  if (obj === null || typeof obj !== 'object') return '';
  const fields: string[] = [];
  for (const key of Object.keys(obj)) {
    const value = (obj as Record<string, unknown>)[key];
    const ks = encode(stringifyPrimitive(key)) + eq;
    if (Array.isArray(value)) {
      for (const item of value) fields.push(ks + encode(stringifyPrimitive(item)));
    } else {
      fields.push(ks + encode(stringifyPrimitive(value)));
    }
  }
  return fields.join(sep);
}

export function parse(qs: unknown, sep = '&', eq = '=', options: { maxKeys?: number; decodeURIComponent?: (s: string) => string } = {}): Record<string, string | string[]> {
  const obj = Object.create(null) as Record<string, string | string[]>;
  if (typeof qs !== 'string' || qs.length === 0) return obj;
  const maxKeys = typeof options.maxKeys === 'number' ? options.maxKeys : 1000;
  const decode = options.decodeURIComponent ?? ((s: string) => unescape(s, true));
  let pairs = qs.split(sep || '&');
  if (maxKeys > 0 && pairs.length > maxKeys) pairs = pairs.slice(0, maxKeys);
  for (const pair of pairs) {
    if (pair.length === 0 && pairs.length > 1) continue;
    const idx = pair.indexOf(eq || '=');
    const rawKey = idx >= 0 ? pair.slice(0, idx) : pair;
    const rawValue = idx >= 0 ? pair.slice(idx + (eq || '=').length) : '';
    const key = decode(rawKey.replace(/\+/g, ' '));
    const value = decode(rawValue.replace(/\+/g, ' '));
    const existing = obj[key];
    if (existing === undefined) obj[key] = value;
    else if (Array.isArray(existing)) existing.push(value);
    else obj[key] = [existing, value];
  }
  return obj;
}

export const querystring = { parse, stringify, escape, unescape, decode: parse, encode: stringify, unescapeBuffer: (s: string) => new TextEncoder().encode(unescape(s)) };
