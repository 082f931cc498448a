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

import { describeZodError, formatFieldPath } from './zod-error.ts';

export { describeZodError, formatFieldPath } from './zod-error.ts';

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
  const where = rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : file;
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
