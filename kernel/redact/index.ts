/** Secret scrubbing for everything the kernel writes: events, manifests, log lines. */
export { redact, redactRecord, REDACTED } from './redact.ts';
export { mayHoldSecret, scrubString } from './strings.ts';
export type { Scrubber } from './scrubber.ts';
export { USAGE_FIELDS, classifyKey, isUsageKey, keyWords, secretKeyRule, type KeyClass } from './keys.ts';
export { redactedCanonicalJson } from './redacted-json.ts';
