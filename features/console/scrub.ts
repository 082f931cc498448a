/**
 * Everything the console renders passes through one scrub: the kernel's pattern rules
 * (kernel/redact) on every string, at any depth. Records in the logs were scrubbed when they
 * were written; files such as a session's stdout or a gate check's raw output are scrubbed
 * here, on the way to the page, and so is any text the console itself composes from them.
 */
import { scrubString } from '../../kernel/redact/index.ts';

export interface ConsoleScrub {
  text(text: string): string;
  deep<T>(value: T): T;
}

export function consoleScrub(): ConsoleScrub {
  const text = (s: string) => scrubString(s);
  const walk = (value: unknown, depth: number): unknown => {
    if (typeof value === 'string') return text(value);
    if (value === null || typeof value !== 'object' || depth > 64) return value;
    if (Array.isArray(value)) return value.map((v) => walk(v, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[text(k)] = walk(v, depth + 1);
    return out;
  };
  return { text, deep: <T>(value: T) => walk(value, 0) as T };
}
