/**
 * Everything the console renders passes through one scrub: the kernel's (kernel/redact
 * `scrubber`) pattern rules on every string, at any depth. Records, traces and session files
 * were already scrubbed by value when the loop wrote them (the persona's own secret values,
 * which only the loop knows); the console applies the pattern rules again on the way to the
 * page, so a key that reached a file some other way (a check's raw output, a hand-edited
 * file) is not shown either, and so is any text the console composes from them.
 */
import { scrubber, type Scrubber } from '../secret-values/secret-values.ts';

export type ConsoleScrub = Pick<Scrubber, 'text' | 'deep'>;

export function consoleScrub(): ConsoleScrub {
  const s = scrubber();
  return { text: (t) => s.text(t), deep: (v) => s.deep(v) };
}
