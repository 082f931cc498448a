/**
 * Secrets by value: the values of the variables a persona hands its plugins and their
 * subprocesses (its profile's `env`) are secrets whatever they look like. A key printed by
 * an executor (`Authorization: Bearer $OPENAI_API_KEY` on stderr), echoed in a reply, or
 * read by a plugin and written to a file is replaced by `[REDACTED:<NAME>]` in everything
 * the kernel writes or prints for that persona: events, traces and their blobs, session
 * files, brain.json, the ledger and memory bindings, `run`'s own output. Pattern rules
 * (strings.ts: `sk-...`, `hf_...`, bearer headers) apply on top, for secrets that did not
 * come from the environment.
 *
 * Only strings are touched, never numbers, so usage counters (`total_tokens`) stay intact.
 * A value shorter than MIN_SECRET_LENGTH, or made of digits only, is not treated as a
 * secret: replacing `1` or `8080` everywhere would wreck every record and hide nothing.
 *
 * The same scrub runs before a trace is recorded and on what a replay produces, and it is
 * idempotent, so a replayed cycle gives the recorded bytes: the replayed plugin only ever
 * sees the scrubbed record.
 */
import type { Scrubber as ScrubberPort } from '../../kernel/redact/scrubber.ts';
import { REDACTED, mayHoldSecret, scrubString } from '../../kernel/redact/strings.ts';

/** Shorter values are not scrubbed (too likely to occur by chance). */
export const MIN_SECRET_LENGTH = 8;

interface Entry {
  name: string;
  value: string;
  placeholder: string;
}

const escapeJson = (text: string) => JSON.stringify(text).slice(1, -1);
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Whether an environment value is treated as a secret. */
export function isSecretValue(value: string): boolean {
  return value.length >= MIN_SECRET_LENGTH && !/^\d+$/.test(value) && value.trim() !== '' && !value.includes(REDACTED.slice(0, 9));
}

export class SecretValues {
  readonly #entries: Entry[] = [];
  #pattern: RegExp | undefined;
  #forms = new Map<string, string>();
  #needles: [Buffer, Buffer][] = [];

  /** The secret values among `env` (by variable name), skipping the names in `exclude`. */
  static fromEnv(env: Readonly<Record<string, string | undefined>>, exclude: Iterable<string> = []): SecretValues {
    const skip = new Set(exclude);
    const secrets = new SecretValues();
    for (const [name, value] of Object.entries(env)) if (!skip.has(name) && typeof value === 'string') secrets.add(name, value);
    return secrets;
  }

  /** Several personas' secrets as one (the CLI prints lines of every persona it runs). */
  static union(all: Iterable<SecretValues>): SecretValues {
    const out = new SecretValues();
    for (const s of all) for (const e of s.#entries) out.add(e.name, e.value);
    return out;
  }

  add(name: string, value: string): void {
    if (!isSecretValue(value) || this.#entries.some((e) => e.value === value)) return;
    this.#entries.push({ name, value, placeholder: `[REDACTED:${name.replace(/[^A-Za-z0-9_]/g, '_')}]` });
    this.#pattern = undefined;
  }

  get size(): number {
    return this.#entries.length;
  }

  /** The variable names whose values are scrubbed (never the values). */
  get names(): string[] {
    return this.#entries.map((e) => e.name);
  }

  #compile(): void {
    // Each value as written raw, and as JSON text holds it (escaped once, and twice for JSON
    // inside a JSON string: a CLI's JSON events kept in a trace): longest first, so a value
    // that contains another is replaced whole.
    const forms = new Map<string, string>();
    for (const e of this.#entries) {
      const once = escapeJson(e.value);
      for (const form of [e.value, once, escapeJson(once)]) if (!forms.has(form)) forms.set(form, e.placeholder);
    }
    const sorted = [...forms.keys()].sort((a, b) => b.length - a.length);
    this.#forms = new Map(sorted.map((f) => [f, forms.get(f)!]));
    this.#pattern = new RegExp(sorted.map(escapeRegExp).join('|'), 'g');
    this.#needles = sorted.map((f) => [Buffer.from(f, 'utf8'), Buffer.from(forms.get(f)!, 'utf8')]);
  }

  /** Every occurrence of a secret value (raw or JSON-escaped) replaced by its placeholder. */
  scrubText(text: string): string {
    if (this.#entries.length === 0) return text;
    if (this.#pattern === undefined) this.#compile();
    this.#pattern!.lastIndex = 0;
    return this.#pattern!.test(text) ? text.replace(this.#pattern!, (m) => this.#forms.get(m) ?? REDACTED) : text;
  }

  /** scrubText for JSON text (the placeholders need no escaping, so the text stays valid JSON). */
  scrubJsonText(json: string): string {
    return this.scrubText(json);
  }

  /** The same on bytes (a file written as bytes): each form's UTF-8 bytes are replaced. */
  scrubBytes(bytes: Buffer): Buffer {
    if (this.#entries.length === 0) return bytes;
    if (this.#pattern === undefined) this.#compile();
    let out = bytes;
    for (const [needle, placeholder] of this.#needles) {
      if (out.indexOf(needle) === -1) continue;
      const parts: Buffer[] = [];
      let from = 0;
      for (let at = out.indexOf(needle); at !== -1; at = out.indexOf(needle, from)) {
        parts.push(out.subarray(from, at), placeholder);
        from = at + needle.length;
      }
      parts.push(out.subarray(from));
      out = Buffer.concat(parts);
    }
    return out;
  }
}

/**
 * The persona's whole scrub: its secret values, then the pattern rules. `text` for plain
 * text, `deep` for records (strings and keys at any depth; numbers untouched), `json` for
 * JSON text (the trace's effect texts; the text is re-serialized only when something changed).
 * The kernel's port (kernel/redact/scrubber.ts), with the secret values it scrubs.
 */
export interface Scrubber extends ScrubberPort {
  readonly secrets: SecretValues;
}

const MAX_DEPTH = 64;

export function scrubber(secrets: SecretValues = new SecretValues()): Scrubber {
  const text = (s: string) => scrubString(secrets.scrubText(s));
  const valuesOnly = (s: string) => secrets.scrubText(s);
  const walker = (onString: (s: string) => string) => {
    const walk = (value: unknown, depth: number): unknown => {
      if (typeof value === 'string') return onString(value);
      if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return value;
      if (Array.isArray(value)) {
        let changed = false;
        const out = value.map((v) => {
          const w = walk(v, depth + 1);
          if (w !== v) changed = true;
          return w;
        });
        return changed ? out : value;
      }
      if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null) return value;
      let changed = false;
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) {
        const key = onString(k);
        const w = walk(v, depth + 1);
        if (w !== v || key !== k) changed = true;
        if (key === '__proto__') Object.defineProperty(out, key, { value: w, enumerable: true, writable: true, configurable: true });
        else out[key] = w;
      }
      return changed ? out : value;
    };
    return walk;
  };
  const walk = walker(text);
  const walkValues = walker(valuesOnly);
  return {
    secrets,
    text,
    deep: <T>(value: T) => walk(value, 0) as T,
    // Nothing to look for: the record comes back as it is, without a walk.
    values: <T>(value: T) => (secrets.size === 0 ? value : (walkValues(value, 0) as T)),
    json(jsonText) {
      const valued = secrets.scrubJsonText(jsonText);
      // Pattern rules work on strings, not on JSON text (a header rule runs to the end of a
      // line, and JSON text has none): parse, scrub the strings, write it again if anything changed.
      if (!mayHoldSecret(valued)) return valued;
      let parsed: unknown;
      try {
        parsed = JSON.parse(valued);
      } catch {
        return valued;
      }
      const scrubbed = walk(parsed, 0);
      return scrubbed === parsed ? valued : JSON.stringify(scrubbed);
    },
    bytes: (data) => secrets.scrubBytes(data),
  };
}
