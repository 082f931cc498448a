/**
 * Secrets out of an effect before it is recorded, also where JSON-level scrubbing cannot see
 * them: some ops carry bytes as base64 (a command's stdin, stdout and stderr, fs.readFile's answer,
 * fs.writeFile's data, a fetch body), and `Bearer sk-...` in base64 is still the key. For
 * those fields the bytes are decoded, scrubbed (the persona's secret values; the pattern
 * rules where the bytes are UTF-8 text) and encoded again, only when something changed.
 *
 * The recorder applies it to what it writes and the replay to what the code asks, before the
 * path codec: a replayed plugin is answered from the scrubbed record, so what it asks again
 * scrubs to the recorded text.
 */
import type { Scrubber } from '../secret-values/secret-values.ts';

/** Where each op carries bytes: field paths into the args, and into the answer's `ok`. */
const BASE64_FIELDS: Record<string, { args?: string[][]; answer?: string[][] }> = {
  'run.output': { args: [['input']], answer: [['stdout'], ['stderr']] },
  'fs.readFile': { answer: [[]] },
  'fs.writeFile': { args: [['base64']] },
  'net.fetch': { args: [['body']], answer: [['body']] },
  // Streams and open files (chunks, reads and writes) carry their bytes as base64 too.
  'fs.file.read': { answer: [[]] },
  'fs.file.write': { args: [['base64']] },
  'net.read': { answer: [[]] },
  'run.read': { answer: [[]] },
  'run.write': { args: [['base64']] },
};

const UTF8 = new TextDecoder('utf-8', { fatal: true });

function scrubBase64(value: string, scrub: Scrubber): string {
  if (value === '') return value;
  const bytes = Buffer.from(value, 'base64');
  // Not base64 of these bytes after all (a shape the op never makes): leave it.
  if (bytes.toString('base64') !== value) return value;
  let out = scrub.bytes(bytes);
  try {
    const text = UTF8.decode(out);
    const scrubbed = scrub.text(text);
    if (scrubbed !== text) out = Buffer.from(scrubbed, 'utf8');
  } catch {
    // binary: the values alone
  }
  return out === bytes ? value : out.toString('base64');
}

/**
 * Walks the parsed value: strings at a base64 field get scrubBase64, every other string (and
 * key) the text scrub. Base64 text is never given to the pattern rules (they would find
 * nothing real in it, slowly, and could match by chance and corrupt the bytes).
 */
function walk(value: unknown, at: string[], fields: readonly string[][], scrub: Scrubber): unknown {
  const isField = fields.some((f) => f.length === at.length && f.every((k, i) => k === at[i]));
  if (typeof value === 'string') return isField ? scrubBase64(value, scrub) : scrub.text(value);
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((v, i) => {
      const w = walk(v, [...at, String(i)], fields, scrub);
      if (w !== v) changed = true;
      return w;
    });
    return changed ? out : value;
  }
  let changed = false;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const key = scrub.text(k);
    const w = walk(v, [...at, k], fields, scrub);
    if (w !== v || key !== k) changed = true;
    out[key] = w;
  }
  return changed ? out : value;
}

/** The JSON text of an effect's args or answer, scrubbed: the bytes inside it too (see the top of this file). */
export function scrubEffectText(op: string, part: 'args' | 'answer', json: string, scrub: Scrubber): string {
  const fields = BASE64_FIELDS[op]?.[part];
  if (fields === undefined) return scrub.json(json);
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return scrub.json(json);
  }
  const paths = part === 'answer' ? fields.map((f) => ['ok', ...f]) : fields;
  const scrubbed = walk(parsed, [], paths, scrub);
  return scrubbed === parsed ? json : JSON.stringify(scrubbed);
}
