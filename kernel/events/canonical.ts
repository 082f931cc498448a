/**
 * Canonical JSON: object keys sorted (by UTF-16 code units, as Array.prototype.sort does),
 * no whitespace, otherwise exactly JSON.stringify's rules (undefined and functions dropped
 * from objects and turned to null in arrays, non-finite numbers to null, toJSON honoured).
 * It is what an event's hash covers, so the same value always gives the same bytes, and
 * canonicalJson(JSON.parse(canonicalJson(x))) === canonicalJson(x).
 */
import { kernelError } from '../errors.ts';

export function canonicalJson(value: unknown): string {
  const out = write(value, new Set());
  if (out === undefined) throw kernelError('RTC_ERR_EVENTS_INVALID', 'a value with no JSON form cannot be hashed');
  return out;
}

function write(value: unknown, ancestors: Set<object>): string | undefined {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? JSON.stringify(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      throw kernelError('RTC_ERR_EVENTS_INVALID', `a bigint (${value}) has no JSON form; store it as a string`);
    case 'object': {
      if (value === null) return 'null';
      const toJSON = (value as { toJSON?: unknown }).toJSON;
      if (typeof toJSON === 'function') return write(toJSON.call(value), ancestors);
      if (ancestors.has(value)) throw kernelError('RTC_ERR_EVENTS_INVALID', 'a value refers to itself and has no JSON form');
      ancestors.add(value);
      try {
        if (Array.isArray(value)) return `[${value.map((item) => write(item, ancestors) ?? 'null').join(',')}]`;
        const parts: string[] = [];
        for (const key of Object.keys(value).sort()) {
          const item = write((value as Record<string, unknown>)[key], ancestors);
          if (item !== undefined) parts.push(`${JSON.stringify(key)}:${item}`);
        }
        return `{${parts.join(',')}}`;
      } finally {
        ancestors.delete(value);
      }
    }
    default:
      return undefined;
  }
}
