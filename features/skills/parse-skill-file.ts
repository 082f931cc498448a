/**
 * Reads one `SKILL.md`: splits the YAML front matter from the body, validates the front
 * matter, and checks that `name` equals the folder's name. A malformed file is not thrown
 * but returned as a refusal naming the field and the reason, so one bad skill never stops
 * the others from loading.
 */
import { createHash } from 'node:crypto';
import { isMap, isNode, isScalar, parseDocument, type Document } from 'yaml';
import type { z } from 'zod';
import { decodeManifestText, formatFieldPath, parseYaml } from '../../kernel/manifest/load.ts';

/** A KernelError's message without its leading `SKILL.md: ` (the refusal names the file itself). */
function errorMessageAfterWhere(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/^SKILL\.md(:\d+:\d+)?: /, '');
}
import { SKILL_BODY_ADVISED_LINES, SkillFrontmatterSchema, type SkillFrontmatter } from './frontmatter-schema.ts';

/** Pseudo-field names used when the fault is not in one front matter key. */
export const FIELD_FILE = '(file)';
export const FIELD_FRONT_MATTER = '(front matter)';

const ALLOWED_KEYS = Object.keys(SkillFrontmatterSchema.shape).join(', ');

export type ParsedSkillFile =
  | { ok: true; frontmatter: SkillFrontmatter; body: string; bodyLines: number; digest: string; warnings: string[] }
  | { ok: false; field: string; reason: string };

export function skillDigest(bytes: Uint8Array): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

interface SplitFile {
  yamlText: string;
  /** 1-based line of the first front matter line, to report YAML errors at file lines. */
  yamlFirstLine: number;
  body: string;
}

/** Front matter is the text between a first line `---` and the next line `---`. */
function splitFrontmatter(text: string): SplitFile | { field: string; reason: string } {
  const unBom = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const lines = unBom.split('\n');
  if ((lines[0] ?? '').trimEnd() !== '---') {
    return { field: FIELD_FRONT_MATTER, reason: 'missing: the file must start with a "---" line opening the YAML front matter' };
  }
  const close = lines.findIndex((line, i) => i > 0 && line.trimEnd() === '---');
  if (close === -1) return { field: FIELD_FRONT_MATTER, reason: 'not closed: no "---" line ends the YAML front matter' };
  return {
    yamlText: lines.slice(1, close).join('\n'),
    yamlFirstLine: 2,
    body: lines.slice(close + 1).join('\n'),
  };
}

function describeIssue(issue: z.core.$ZodIssue): { field: string; reason: string } {
  if (issue.code === 'invalid_union') {
    // One alternative got past the value's type (a list with a bad item): its issue says more.
    const deeper = issue.errors.find((branch) => (branch[0]?.path.length ?? 0) > 0)?.[0];
    if (deeper) return { field: formatFieldPath([...issue.path, ...deeper.path]), reason: deeper.message };
  }
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0] ?? '?';
    return { field: formatFieldPath([...issue.path, key]), reason: `is not an Agent Skills front matter field (allowed: ${ALLOWED_KEYS})` };
  }
  return { field: formatFieldPath(issue.path), reason: issue.message };
}

/** Front matter fields whose value is text: a plain scalar there is read as written. */
const TEXT_FIELDS = new Set(['name', 'description', 'license', 'compatibility']);

/**
 * A plain scalar YAML would read as a number, boolean or null is read as the text it was
 * written with (`version: 1.0` is "1.0", `name: 2024` is "2024", `enabled: true` is "true"),
 * as the reference validator reads it (strictyaml: every scalar is a string). Only the text
 * fields and metadata values are read this way; lists and mappings stay what they are.
 */
function plainText(node: unknown): unknown {
  if (isScalar(node) && node.type === 'PLAIN' && typeof node.value !== 'string') return node.source ?? String(node.value);
  return undefined;
}

function readFrontmatter(doc: Document, value: unknown): unknown {
  if (!isMap(doc.contents) || value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const out = value as Record<string, unknown>;
  for (const pair of doc.contents.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : undefined;
    if (key === undefined) continue;
    const text = TEXT_FIELDS.has(key) ? plainText(pair.value) : undefined;
    if (text !== undefined) out[key] = text;
    if (key === 'metadata' && isMap(pair.value)) {
      const metadata: Record<string, unknown> = {};
      for (const entry of pair.value.items) {
        const name = isScalar(entry.key) ? ((plainText(entry.key) as string | undefined) ?? String(entry.key.value)) : String(entry.key);
        const node = entry.value;
        metadata[name] = plainText(node) ?? (isNode(node) ? node.toJS(doc) : node);
      }
      out.metadata = metadata;
    }
  }
  return out;
}

/** Counts lines the way an editor does: a trailing newline does not start a new line. */
function countLines(text: string): number {
  const trimmed = text.replace(/^\n+/, '').replace(/\n+$/, '');
  return trimmed === '' ? 0 : trimmed.split('\n').length;
}

/**
 * Parses the bytes of `<folder>/SKILL.md`. `folderName` is the name of the skill's folder,
 * which the front matter `name` must equal.
 */
export function parseSkillFile(bytes: Uint8Array, folderName: string): ParsedSkillFile {
  let decoded: string;
  try {
    decoded = decodeManifestText(bytes, 'SKILL.md');
  } catch (error) {
    return { ok: false, field: FIELD_FILE, reason: errorMessageAfterWhere(error) };
  }
  const text = decoded.replace(/\r\n/g, '\n');
  const split = splitFrontmatter(text);
  if ('field' in split) return { ok: false, ...split };

  // The kernel's one YAML parser, with its limits (alias bombs, depth, duplicate keys, binary).
  let value: unknown;
  try {
    value = parseYaml(split.yamlText, 'SKILL.md', { firstLine: split.yamlFirstLine });
  } catch (error) {
    const d = (error as { details?: { line?: number; column?: number; what?: string } }).details ?? {};
    const at = d.line !== undefined ? ` at line ${d.line}, column ${d.column}` : '';
    return { ok: false, field: FIELD_FRONT_MATTER, reason: `invalid YAML${at}: ${d.what ?? errorMessageAfterWhere(error)}` };
  }
  // The kernel's parser accepted the text (its limits hold); the nodes say how each scalar was written.
  value = readFrontmatter(parseDocument(split.yamlText, { prettyErrors: false, uniqueKeys: true }), value);
  if (value === null || value === undefined) return { ok: false, field: FIELD_FRONT_MATTER, reason: 'is empty; name and description are required' };
  if (typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, field: FIELD_FRONT_MATTER, reason: 'must be a YAML mapping of fields' };
  }

  // Names are compared and kept NFKC-normalised (the reference's rule): `café` written
  // decomposed is the skill in the folder `café`.
  const record = value as Record<string, unknown>;
  if (typeof record.name === 'string') record.name = record.name.normalize('NFKC');
  const result = SkillFrontmatterSchema.safeParse(record);
  if (!result.success) {
    const first = result.error.issues[0];
    return { ok: false, ...(first ? describeIssue(first) : { field: FIELD_FRONT_MATTER, reason: 'invalid' }) };
  }
  if (result.data.name !== folderName.normalize('NFKC')) {
    return { ok: false, field: 'name', reason: `must equal the folder name "${folderName}" (got "${result.data.name}")` };
  }

  const bodyLines = countLines(split.body);
  const warnings: string[] = [];
  if (bodyLines >= SKILL_BODY_ADVISED_LINES) {
    warnings.push(`body is ${bodyLines} lines; under ${SKILL_BODY_ADVISED_LINES} is advised (move detail into referenced files)`);
  }
  return { ok: true, frontmatter: result.data, body: split.body, bodyLines, digest: skillDigest(bytes), warnings };
}
