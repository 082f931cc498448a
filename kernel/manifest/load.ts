/**
 * Reads a YAML (or JSON) file and validates it with a zod schema. A bad file is refused
 * with one line naming the file, the field path and the reason; nothing is returned in its
 * place. This is the only way the kernel reads a manifest.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseDocument } from 'yaml';
import type { z } from 'zod';
import { kernelError } from '../errors.ts';

/** `a.b[2].c` from a zod issue path. */
export function formatFieldPath(parts: readonly PropertyKey[]): string {
  let out = '';
  for (const part of parts) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out === '' ? '(root)' : out;
}

/** The first issue of a failed parse, as `field.path: reason`. */
export function describeZodError(error: z.ZodError): { field: string; reason: string } {
  return describeIssue(error.issues[0]);
}

type Issue = z.ZodError['issues'][number];

function describeIssue(found: Issue | undefined): { field: string; reason: string } {
  let issue = found;
  if (!issue) return { field: '(root)', reason: 'invalid' };
  // A value that fits no branch of a union: name the fault of the branch it came closest to
  // (the deepest first issue), not zod's bare "Invalid input" (a union's own message stands).
  while (issue.code === 'invalid_union' && issue.errors.length > 0 && issue.message === 'Invalid input') {
    const prefix = issue.path;
    const best: Issue | undefined = issue.errors
      .map((branch) => branch[0])
      .filter((i): i is Issue => i !== undefined)
      .sort((a, b) => b.path.length - a.path.length)[0];
    if (!best) break;
    issue = { ...best, path: [...prefix, ...best.path] } as Issue;
  }
  // An unknown key is named as the field itself, not as its parent.
  if (issue.code === 'unrecognized_keys' && issue.keys.length > 0) {
    return { field: formatFieldPath([...issue.path, issue.keys[0]!]), reason: `unknown key "${issue.keys[0]!}" (not in the schema)` };
  }
  return { field: formatFieldPath(issue.path), reason: issue.message };
}

/** Validates an already-parsed value; `where` names its source in the error. */
export function validateManifest<S extends z.ZodType>(schema: S, value: unknown, where: string): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) {
    const { field, reason } = describeZodError(result.error);
    throw kernelError('RTC_ERR_MANIFEST_INVALID', `${where}: ${field}: ${reason}`, {
      details: { file: where, field, reason, issues: result.error.issues.length },
    });
  }
  return result.data;
}

/** Parses YAML text; a syntax error names the file, line and column. */
export function parseYaml(text: string, where: string): unknown {
  const doc = parseDocument(text, { prettyErrors: false, uniqueKeys: true });
  const first = doc.errors[0];
  if (first) {
    const offset = first.pos[0];
    const before = text.slice(0, offset);
    const line = before.split('\n').length;
    const col = offset - before.lastIndexOf('\n');
    const at = `:${line}:${col}`;
    throw kernelError('RTC_ERR_MANIFEST_YAML', `${where}${at}: ${first.message.split('\n')[0]}`, { details: { file: where } });
  }
  return doc.toJS();
}

export function readManifestFile<S extends z.ZodType>(schema: S, file: string, displayRoot = process.cwd()): z.output<S> {
  // Relative to displayRoot when inside it; a file elsewhere is named by its absolute path.
  const rel = path.relative(displayRoot, file);
  const where = rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : path.resolve(file);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw kernelError('RTC_ERR_MANIFEST_NOT_FOUND', `${where}: no such file`, { details: { file: where } });
    throw kernelError('RTC_ERR_MANIFEST_NOT_FOUND', `${where}: cannot read (${code ?? 'error'})`, { details: { file: where } });
  }
  return validateManifest(schema, parseYaml(text, where), where);
}
