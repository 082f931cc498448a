/**
 * `manifest.json` of an evidence package: what was evaluated (the input path, its digest
 * and a digest per source file), under which rules (kernel version, gate profile and
 * sandbox profile with their digests), what each check found (status, reason, raw output
 * file and its digest), the limitations, the verdict, and an inventory of every other
 * file in the package with its sha256. `runtimectl evidence verify` re-hashes against it.
 */
import path from 'node:path';
import { z } from 'zod';
import { limitsSchema } from '../../../kernel/manifest/sandbox-profile.ts';

export const EVIDENCE_FORMAT = 'runtimectl-evidence/1';
export const MANIFEST_FILE = 'manifest.json';

export const digestSchema = z.string().regex(/^sha256:[0-9a-f]{64}$/, 'must be sha256:<64 lower-case hex digits>');

/** A path inside the package: relative, POSIX, normalised, never leaving it. */
export const packagePathSchema = z
  .string()
  .min(1)
  .max(4096)
  .refine((p) => !p.includes('\\') && !p.includes('\0') && !path.posix.isAbsolute(p) && path.posix.normalize(p) === p && !p.split('/').some((s) => s === '..' || s === '.' || s === ''), 'must be a normalised relative path inside the package');

export const packageFileSchema = z.strictObject({
  path: packagePathSchema,
  type: z.enum(['file', 'symlink']),
  bytes: z.number().int().min(0),
  /** of the bytes, or of a symlink's target text */
  sha256: digestSchema,
});
export type PackageFile = z.output<typeof packageFileSchema>;

export const CHECK_STATUSES = ['passed', 'failed', 'unavailable'] as const;
export const VERDICTS = ['accepted', 'rejected', 'incomplete'] as const;
export type Verdict = (typeof VERDICTS)[number];

/** Exit status of `runtimectl gate` for each verdict. */
export const VERDICT_EXIT: Readonly<Record<Verdict, 0 | 1 | 3>> = { accepted: 0, rejected: 1, incomplete: 3 };

export const checkRecordSchema = z.strictObject({
  name: z.string().min(1),
  status: z.enum(CHECK_STATUSES),
  reason: z.string(),
  /** false for a check the profile may leave unavailable */
  required: z.boolean(),
  output: packagePathSchema,
  sha256: digestSchema,
});
export type CheckRecord = z.output<typeof checkRecordSchema>;

export const evidenceManifestSchema = z.strictObject({
  format: z.literal(EVIDENCE_FORMAT),
  kind: z.literal('gate'),
  created_at: z.string(),
  kernel: z.strictObject({ version: z.string().min(1) }),
  input: z.strictObject({
    /** the draft folder as given to the gate (absolute) */
    path: z.string().min(1),
    name: z.string().min(1),
    /** sha256 of the sorted lines `<sha256> <path>\n` of `files` */
    digest: digestSchema,
    /** where the copy is, inside the package */
    copy: packagePathSchema,
    files: z.array(
      z.strictObject({
        path: packagePathSchema,
        type: z.enum(['file', 'symlink']),
        bytes: z.number().int().min(0),
        sha256: digestSchema,
        target: z.string().optional(),
      }),
    ),
  }),
  gate: z.strictObject({
    profile: z.string().min(1),
    file: z.string().min(1),
    digest: digestSchema,
    sandbox: z.strictObject({ name: z.string().min(1), file: z.string().min(1), digest: digestSchema }),
    limits: limitsSchema,
    checks: z.array(z.string()),
    may_be_unavailable: z.array(z.string()),
  }),
  checks: z.array(checkRecordSchema),
  limitations: z.array(z.strictObject({ check: z.string(), reason: z.string() })),
  verdict: z.enum(VERDICTS),
  exit_status: z.union([z.literal(0), z.literal(1), z.literal(3)]),
  /** what became of an accepted verdict: the review queue it went to, or why none */
  proposal: z.string(),
  /** every file of the package except manifest.json */
  files: z.array(packageFileSchema),
});
export type EvidenceManifest = z.output<typeof evidenceManifestSchema>;
