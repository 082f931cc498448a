/**
 * `current.json`: which published evidence is current, each entry a name, the package
 * (its folder or its manifest.json; a relative path is read from the folder of
 * current.json) and the sha256 of its manifest.json when it was selected. Only this file
 * says what is current; a package not named here is historical, however new.
 *
 *   { "selected": [ { "name": "skill/triage", "path": "evidence/triage-1", "digest": "sha256:..." } ] }
 */
import { existsSync, readFileSync } from 'node:fs';
import { replaceFileDurably } from '../../../kernel/storage/durable-files.ts';
import path from 'node:path';
import { z } from 'zod';
import { kernelError } from '../../../kernel/errors.ts';
import { shownPath } from '../../../kernel/shown-path.ts';
import { describeZodError } from '../../../kernel/manifest/load.ts';
import { digestSchema } from './manifest-schema.ts';

export const selectionNameSchema = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:/@+-]*$/, 'must start with a letter or digit and hold only letters, digits and . _ : / @ + -');

export const selectedEvidenceSchema = z.strictObject({
  name: selectionNameSchema,
  path: z.string().min(1).max(4096).describe('an evidence package folder or its manifest.json; relative to the folder of current.json'),
  digest: digestSchema.describe('sha256 of the package manifest.json when it was selected'),
});
export type SelectedEvidence = z.output<typeof selectedEvidenceSchema>;

export const currentSelectionSchema = z
  .strictObject({
    selected: z.array(selectedEvidenceSchema),
  })
  .superRefine((value, ctx) => {
    const seen = new Set<string>();
    value.selected.forEach((entry, i) => {
      if (seen.has(entry.name)) ctx.addIssue({ code: 'custom', path: ['selected', i, 'name'], message: `"${entry.name}" is selected twice` });
      seen.add(entry.name);
    });
  })
  .describe('Evidence selected as current, by path and digest');
export type CurrentSelection = z.output<typeof currentSelectionSchema>;

export function readCurrent(file: string, displayRoot = process.cwd()): CurrentSelection {
  const where = shownPath(file, displayRoot);
  if (!existsSync(file)) throw kernelError('RTC_ERR_EVIDENCE_NOT_FOUND', `${where}: no such file`, { details: { file: where } });
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw kernelError('RTC_ERR_EVIDENCE_INVALID', `${where}: not valid JSON (${(error as Error).message.split('\n')[0]})`, { details: { file: where } });
  }
  const result = currentSelectionSchema.safeParse(value);
  if (!result.success) {
    const { field, reason } = describeZodError(result.error);
    throw kernelError('RTC_ERR_EVIDENCE_INVALID', `${where}: ${field}: ${reason}`, { details: { file: where, field, reason } });
  }
  return result.data;
}

export function writeCurrent(file: string, selection: CurrentSelection): void {
  replaceFileDurably(file, `${JSON.stringify(currentSelectionSchema.parse(selection), null, 2)}\n`);
}

/** Where an entry's package is: relative paths are read from the folder of current.json. */
export function resolveSelected(currentFile: string, entry: Pick<SelectedEvidence, 'path'>): string {
  return path.resolve(path.dirname(currentFile), entry.path);
}
