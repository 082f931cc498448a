/**
 * The port a persona's scrub fills: what the loop hands its steps to keep the persona's
 * secrets out of what they write. The implementation (its secret values by value, then the
 * pattern rules of strings.ts) is features/secret-values.
 */
export interface Scrubber {
  /** plain text */
  text(text: string): string;
  /** records: strings and keys at any depth; numbers untouched */
  deep<T>(value: T): T;
  /** `deep` with the secret values only: for records the event log redacts by pattern itself */
  values<T>(value: T): T;
  /** JSON text, re-serialized only when something changed */
  json(jsonText: string): string;
  bytes(data: Buffer): Buffer;
}
