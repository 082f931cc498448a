/**
 * Reads a YAML (or JSON) file and validates it with a zod schema. A bad file is refused
 * with one line naming the file, the field path and the reason; nothing is returned in its
 * place. This is the only way the kernel reads a manifest.
 */
import path from 'node:path';
import { parseDocument } from 'yaml';
import type { z } from 'zod';
import { isKernelError, kernelError } from '../errors.ts';
import { READ_CAPS, readFileCapped } from '../storage/safe-read.ts';
import { shownPath } from '../shown-path.ts';

import { describeZodIssues } from '../contracts/zod-error.ts';

export { describeZodError, describeZodIssues, formatFieldPath } from '../contracts/zod-error.ts';

/** Problems named in one manifest error; past this many the line says how many more there are. */
const MAX_PROBLEMS_SHOWN = 20;

/**
 * Validates an already-parsed value; `where` names its source in the error. Every problem
 * of the file is in the one line (`file: a.b: reason; c: reason`), so a file with several
 * mistakes is fixed in one go; `details.problems` lists them as `{field, reason}`.
 */
export function validateManifest<S extends z.ZodType>(schema: S, value: unknown, where: string): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) {
    const problems = describeZodIssues(result.error);
    const { field, reason } = problems[0]!;
    const shown = problems.slice(0, MAX_PROBLEMS_SHOWN).map((p) => `${p.field}: ${p.reason}`);
    const more = problems.length > MAX_PROBLEMS_SHOWN ? `; and ${problems.length - MAX_PROBLEMS_SHOWN} more` : '';
    throw kernelError('RTC_ERR_MANIFEST_INVALID', `${where}: ${shown.join('; ')}${more}`, {
      details: { file: where, field, reason, issues: result.error.issues.length, problems },
    });
  }
  return result.data;
}

/** Limits every YAML or JSON document the kernel parses is held to (a manifest is small and shallow). */
export const PARSE_LIMITS = {
  /** bytes of one file (the read is refused beyond this) */
  bytes: READ_CAPS.manifest,
  /** nesting of mappings and sequences */
  depth: 64,
  /** alias dereferences while building the value: an alias bomb is refused, not expanded */
  aliases: 100,
} as const;

/** Where parseYaml's text starts in its file (front matter starts at line 2 of SKILL.md). */
export interface ParseYamlOptions {
  firstLine?: number;
}

function yamlError(where: string, what: string, text?: string, offset?: number, options: ParseYamlOptions = {}): never {
  let at = '';
  let position: { line: number; column: number } | undefined;
  if (text !== undefined && offset !== undefined) {
    const before = text.slice(0, offset);
    position = { line: before.split('\n').length + (options.firstLine ?? 1) - 1, column: offset - before.lastIndexOf('\n') };
    at = `:${position.line}:${position.column}`;
  }
  throw kernelError('RTC_ERR_MANIFEST_YAML', `${where}${at}: ${what}`, { details: { file: where, what, ...(position ?? {}) } });
}

/**
 * The bytes of a manifest as text: UTF-8 (a byte-order mark is dropped), with no control
 * characters but tab and line breaks (YAML forbids them; they mean a binary file).
 */
export function decodeManifestText(bytes: Uint8Array, where: string): string {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    const bad = firstInvalidUtf8(bytes);
    throw kernelError('RTC_ERR_MANIFEST_YAML', `${where}: not UTF-8 text (invalid byte 0x${(bytes[bad] ?? 0).toString(16).padStart(2, '0')} at offset ${bad}); a manifest is UTF-8 YAML or JSON`, { details: { file: where } });
  }
  return text;
}

/** YAML's printable set: no control characters but tab and line breaks (they mean a binary file). */
function refuseControlCharacters(text: string, where: string, options: ParseYamlOptions): void {
  const control = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.exec(text);
  if (control) yamlError(where, `holds a control character (U+${control[0].charCodeAt(0).toString(16).padStart(4, '0')}): binary data, not YAML or JSON`, text, control.index, options);
}

/** Offset of the first byte that breaks UTF-8 (for the message). */
function firstInvalidUtf8(bytes: Uint8Array): number {
  for (let i = 0; i < bytes.length; ) {
    const b = bytes[i]!;
    const need = b < 0x80 ? 0 : b >= 0xc2 && b < 0xe0 ? 1 : b >= 0xe0 && b < 0xf0 ? 2 : b >= 0xf0 && b < 0xf5 ? 3 : -1;
    if (need < 0) return i;
    for (let k = 1; k <= need; k++) if (((bytes[i + k] ?? 0) & 0xc0) !== 0x80) return i;
    i += need + 1;
  }
  return bytes.length;
}

/**
 * Deepest flow nesting (`[`, `{`) outside quotes and comments, stopping past `limit`: deep
 * nesting is refused before the parser recurses into it.
 */
function flowDepthOver(text: string, limit: number): number | undefined {
  let depth = 0;
  let quote: string | undefined;
  let comment = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (comment) {
      if (c === '\n') comment = false;
      continue;
    }
    if (quote !== undefined) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote) quote = undefined;
      continue;
    }
    if (c === '"' || c === "'") {
      // Only a quote that opens a scalar starts a string (`it's` in a plain scalar does not).
      const prev = text[i - 1];
      if (prev === undefined || /[\s[{,:-]/.test(prev)) quote = c;
    } else if (c === '#' && (i === 0 || /\s/.test(text[i - 1]!))) comment = true;
    else if (c === '[' || c === '{') {
      depth += 1;
      if (depth > limit) return i;
    } else if ((c === ']' || c === '}') && depth > 0) depth -= 1;
  }
  return undefined;
}

/** True when the value nests deeper than `limit` (block nesting the pre-scan cannot see). */
function deeperThan(value: unknown, limit: number, depth = 0): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (depth >= limit) return true;
  for (const item of Array.isArray(value) ? value : Object.values(value)) if (deeperThan(item, limit, depth + 1)) return true;
  return false;
}

/**
 * Parses YAML (or JSON, which the same parser reads) with limits: a syntax error, a duplicate
 * key, an alias bomb, nesting deeper than PARSE_LIMITS.depth, or anything the parser chokes on
 * is RTC_ERR_MANIFEST_YAML naming the file (and line and column where known). Never throws
 * anything else, so one bad file is that file's error and nothing more.
 */
export function parseYaml(text: string, where: string, options: ParseYamlOptions = {}): unknown {
  if (text.length > PARSE_LIMITS.bytes) yamlError(where, `${text.length} characters is over the ${PARSE_LIMITS.bytes}-byte cap`);
  refuseControlCharacters(text, where, options);
  const deep = flowDepthOver(text, PARSE_LIMITS.depth);
  if (deep !== undefined) yamlError(where, `nested deeper than ${PARSE_LIMITS.depth} levels`, text, deep, options);
  let doc: ReturnType<typeof parseDocument>;
  try {
    doc = parseDocument(text, { prettyErrors: false, uniqueKeys: true });
  } catch (error) {
    yamlError(where, error instanceof RangeError ? `nested too deeply to parse (over ${PARSE_LIMITS.depth} levels)` : `cannot be parsed (${(error as Error).message.split('\n')[0]})`);
  }
  const first = doc.errors[0];
  if (first) {
    const message = first.message.split('\n')[0] ?? 'invalid';
    yamlError(where, /call stack/i.test(message) ? `nested too deeply to parse (over ${PARSE_LIMITS.depth} levels)` : message, text, first.pos[0], options);
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: PARSE_LIMITS.aliases });
  } catch (error) {
    const message = (error as Error).message ?? String(error);
    if (/alias/i.test(message)) yamlError(where, `aliases expand beyond ${PARSE_LIMITS.aliases} references (an alias bomb?); refused`);
    yamlError(where, error instanceof RangeError ? `nested too deeply to parse (over ${PARSE_LIMITS.depth} levels)` : `cannot be read as data (${message.split('\n')[0]})`);
  }
  if (deeperThan(value, PARSE_LIMITS.depth)) yamlError(where, `nested deeper than ${PARSE_LIMITS.depth} levels`);
  return value;
}

/** The text of a manifest file: capped, regular files only, UTF-8; a missing file is RTC_ERR_MANIFEST_NOT_FOUND. */
export function readManifestText(file: string, where: string): string {
  return readManifestSource(file, where).text;
}

/** readManifestText with the bytes as read (what a digest is taken of). */
export function readManifestSource(file: string, where: string): { bytes: Buffer; text: string } {
  let bytes: Buffer | undefined;
  try {
    bytes = readFileCapped(file, { maxBytes: PARSE_LIMITS.bytes, shown: where });
  } catch (error) {
    throw kernelError('RTC_ERR_MANIFEST_NOT_FOUND', isKernelError(error) ? error.message : `${where}: cannot read (${(error as NodeJS.ErrnoException).code ?? 'error'})`, { details: { file: where } });
  }
  if (bytes === undefined) throw kernelError('RTC_ERR_MANIFEST_NOT_FOUND', `${where}: no such file`, { details: { file: where } });
  return { bytes, text: decodeManifestText(bytes, where) };
}

export function readManifestFile<S extends z.ZodType>(schema: S, file: string, displayRoot = process.cwd()): z.output<S> {
  // Relative to displayRoot (the folder the command runs in) when inside it; a file elsewhere is named by its absolute path.
  const where = shownPath(file, displayRoot);
  return validateManifest(schema, parseYaml(readManifestText(file, where), where), where);
}
