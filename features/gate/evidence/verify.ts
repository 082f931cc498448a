/**
 * Re-hashes an evidence package against what was recorded: the manifest.json against the
 * digest it was selected with, then every file the manifest lists (the inventory, each
 * check's raw output, each source file of the input and the input digest itself). Every
 * difference is reported, none stops the others being checked: a file changed, missing,
 * or present without being listed.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { sha256 } from '../../../sandboxes/loader/bundle.ts';
import { describeZodError } from '../../../kernel/manifest/load.ts';
import { legacyTreeDigest, treeDigest } from './digest.ts';
import { hashEntry, listPackageFiles } from './inventory.ts';
import { EVIDENCE_FORMAT, evidenceManifestSchema, MANIFEST_FILE, type EvidenceManifest } from './manifest-schema.ts';
import { EVIDENCE_FORMAT_V1, evidenceManifestSchemaV1, type EvidenceManifestV1 } from './manifest-schema-v1.ts';

/** The schema and input digest of each format this kernel verifies. */
function formatOf(value: unknown): { schema: typeof evidenceManifestSchema | typeof evidenceManifestSchemaV1; inputDigest: (files: EvidenceManifest['input']['files']) => string } | null {
  const format = (value as { format?: unknown } | null)?.format;
  if (format === EVIDENCE_FORMAT) return { schema: evidenceManifestSchema, inputDigest: treeDigest };
  if (format === EVIDENCE_FORMAT_V1) return { schema: evidenceManifestSchemaV1, inputDigest: legacyTreeDigest };
  return null;
}

export type ProblemKind = 'missing' | 'changed' | 'unlisted' | 'invalid' | 'manifest-changed' | 'input-digest';

export interface EvidenceProblem {
  kind: ProblemKind;
  /** the file, relative to the package */
  path: string;
  expected?: string;
  actual?: string;
  detail: string;
}

export interface PackageVerification {
  ok: boolean;
  /** the package folder and its manifest.json */
  dir: string;
  manifest: string;
  /** sha256 of manifest.json as it is now (undefined when it is missing) */
  digest?: string;
  verdict?: string;
  /** each check's name and status, as the manifest records them */
  checks?: { name: string; status: string; required: boolean; reason: string }[];
  problems: EvidenceProblem[];
}

/** A package folder, or a manifest.json path, to the folder and its manifest. */
export function locatePackage(target: string): { dir: string; manifest: string } {
  const isFile = existsSync(target) ? statSync(target).isFile() : target.endsWith('.json');
  if (isFile) return { dir: path.dirname(target), manifest: target };
  return { dir: target, manifest: path.join(target, MANIFEST_FILE) };
}

function checkFile(dir: string, rel: string, expected: string, problems: EvidenceProblem[], what: string): void {
  const file = path.join(dir, rel);
  let hashed;
  try {
    hashed = hashEntry(file);
  } catch {
    problems.push({ kind: 'missing', path: rel, expected, detail: `${what} is missing` });
    return;
  }
  if (hashed.type === 'other') {
    problems.push({ kind: 'changed', path: rel, expected, detail: `${what} is no longer a file` });
    return;
  }
  if (hashed.sha256 !== expected) problems.push({ kind: 'changed', path: rel, expected, actual: hashed.sha256, detail: `${what} does not match its recorded sha256` });
}

export function verifyPackage(target: string, expectedDigest?: string): PackageVerification {
  const { dir, manifest } = locatePackage(path.resolve(target));
  const problems: EvidenceProblem[] = [];
  const done = (extra: Partial<PackageVerification> = {}): PackageVerification => ({ ok: problems.length === 0, dir, manifest, problems, ...extra });
  let bytes: Buffer;
  try {
    bytes = readFileSync(manifest);
  } catch {
    problems.push({ kind: 'missing', path: path.basename(manifest), ...(expectedDigest ? { expected: expectedDigest } : {}), detail: 'the manifest is missing' });
    return done();
  }
  const digest = `sha256:${sha256(bytes)}`;
  if (expectedDigest !== undefined && digest !== expectedDigest) {
    problems.push({ kind: 'manifest-changed', path: path.basename(manifest), expected: expectedDigest, actual: digest, detail: 'the manifest is not the one that was selected' });
  }
  let parsed: EvidenceManifest | EvidenceManifestV1;
  let inputDigest: (files: EvidenceManifest['input']['files']) => string;
  try {
    const value: unknown = JSON.parse(bytes.toString('utf8'));
    const format = formatOf(value);
    if (!format) {
      problems.push({ kind: 'invalid', path: path.basename(manifest), detail: `format: not one this kernel reads (${EVIDENCE_FORMAT} or ${EVIDENCE_FORMAT_V1})` });
      return done({ digest });
    }
    inputDigest = format.inputDigest;
    const result = format.schema.safeParse(value);
    if (!result.success) {
      const { field, reason } = describeZodError(result.error);
      problems.push({ kind: 'invalid', path: path.basename(manifest), detail: `${field}: ${reason}` });
      return done({ digest });
    }
    parsed = result.data;
  } catch (error) {
    problems.push({ kind: 'invalid', path: path.basename(manifest), detail: `not valid JSON (${(error as Error).message.split('\n')[0]})` });
    return done({ digest });
  }

  const listed = new Map(parsed.files.map((f) => [f.path, f]));
  for (const file of parsed.files) checkFile(dir, file.path, file.sha256, problems, 'the file');
  for (const check of parsed.checks) {
    const entry = listed.get(check.output);
    if (!entry) checkFile(dir, check.output, check.sha256, problems, `the output of check ${check.name}`);
    else if (entry.sha256 !== check.sha256) problems.push({ kind: 'invalid', path: check.output, expected: check.sha256, actual: entry.sha256, detail: `check ${check.name} and the inventory record different digests` });
  }
  for (const file of parsed.input.files) {
    const rel = `${parsed.input.copy}/${file.path}`;
    if (!listed.has(rel)) checkFile(dir, rel, file.sha256, problems, `source file ${file.path}`);
    else if (listed.get(rel)!.sha256 !== file.sha256) problems.push({ kind: 'invalid', path: rel, expected: file.sha256, actual: listed.get(rel)!.sha256, detail: `the input and the inventory record different digests for ${file.path}` });
  }
  const recomputed = inputDigest(parsed.input.files);
  if (recomputed !== parsed.input.digest) problems.push({ kind: 'input-digest', path: path.basename(manifest), expected: parsed.input.digest, actual: recomputed, detail: 'the input digest does not match its per-file digests' });
  for (const rel of listPackageFiles(dir, new Set([path.basename(manifest)]))) {
    if (!listed.has(rel)) problems.push({ kind: 'unlisted', path: rel, detail: 'a file the manifest does not list was added to the package' });
  }
  return done({ digest, verdict: parsed.verdict, checks: parsed.checks.map((c) => ({ name: c.name, status: c.status, required: c.required, reason: c.reason })) });
}
