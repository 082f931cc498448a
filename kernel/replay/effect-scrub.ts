/**
 * Secrets out of an effect before it is recorded, also where JSON-level scrubbing cannot see
 * them: some ops carry bytes as base64 (a command's stdout and stderr, fs.readFile's answer,
 * fs.writeFile's data, a fetch body), and `Bearer sk-...` in base64 is still the key. For
 * those fields the bytes are decoded, scrubbed (the persona's secret values; the pattern
 * rules where the bytes are UTF-8 text) and encoded again, only when something changed.
 *
 * The recorder applies it to what it writes and the replay to what the code asks, before the
 * path codec: a replayed plugin is answered from the scrubbed record, so what it asks again
 * scrubs to the recorded text.
 */
import type { Scrubber } from '../redact/secret-values.ts';

/** Where each op carries bytes: field paths into the args, and into the answer's `ok`. */
const BASE64_FIELDS: Record<string, { args?: string[][]; answer?: string[][] }> = {
  'run.output': { answer: [['stdout'], ['stderr']] },
  'fs.readFile': { answer: [[]] },
  'fs.writeFile': { args: [['base64']] },
  'net.fetch': { args: [['body']], answer: [['body']] },
};

function scrubBase64(value: string, scrub: Scrubber): string {
  const bytes = Buffer.from(value, 'base64');
  // Not base64 of these bytes after all (a shape the op never makes): leave it.
  if (bytes.toString('base64') !== value) return value;
  let out = scrub.bytes(bytes);
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(out);
    const scrubbed = scrub.text(text);
    if (scrubbed !== text) out = Buffer.from(scrubbed, 'utf8');
  } catch {
    // binary: the values alone
  }
  return out === bytes ? value : out.toString('base64');
}

/** Applies scrubBase64 at `field` under `root`; true when it changed something. */
function scrubAt(root: unknown, field: string[], scrub: Scrubber): { value: unknown; changed: boolean } {
  if (field.length === 0) {
    if (typeof root !== 'string') return { value: root, changed: false };
    const next = scrubBase64(root, scrub);
    return { value: next, changed: next !== root };
  }
  if (root === null || typeof root !== 'object' || Array.isArray(root)) return { value: root, changed: false };
  const [head, ...rest] = field as [string, ...string[]];
  const inner = scrubAt((root as Record<string, unknown>)[head], rest, scrub);
  return inner.changed ? { value: { ...(root as Record<string, unknown>), [head]: inner.value }, changed: true } : { value: root, changed: false };
}

/** The JSON text of an effect's args or answer with the bytes inside it scrubbed (then `scrub.json` for the rest). */
export function scrubEffectText(op: string, part: 'args' | 'answer', json: string, scrub: Scrubber): string {
  const fields = BASE64_FIELDS[op]?.[part];
  if (fields !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(json);
    } catch {
      return scrub.json(json);
    }
    let changed = false;
    let value = part === 'answer' ? (parsed as { ok?: unknown })?.ok : parsed;
    if (value !== undefined) {
      for (const field of fields) {
        const next = scrubAt(value, field, scrub);
        value = next.value;
        changed ||= next.changed;
      }
    }
    if (changed) json = JSON.stringify(part === 'answer' ? { ...(parsed as object), ok: value } : value);
  }
  return scrub.json(json);
}
