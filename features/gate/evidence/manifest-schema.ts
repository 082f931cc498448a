/**
 * `manifest.json` of an evidence package, format 2 (`runtimectl-evidence/2`): what was
 * evaluated (the input path, its digest and a digest per source file), under which rules
 * (kernel version, gate profile and sandbox profile with their digests, and each check
 * plugin with its manifest digest, bundle digest and grant), what each check found (status,
 * reason, what it did not evaluate, raw output file and its digest), the limitations, the
 * verdict, and an inventory of every other file in the package with its sha256.
 * `runtimectl evidence verify` re-hashes against it (and still reads format 1,
 * manifest-schema-v1.ts).
 */
import path from 'node:path';
import { z } from 'zod';
import { GATE_CHECK_STATUSES } from '../../../kernel/contracts/gate-check.ts';
import { permissionsSchema } from '../../../kernel/manifest/permissions-schema.ts';
import { limitsSchema } from '../../../kernel/manifest/sandbox-profile.ts';

export const EVIDENCE_FORMAT = 'runtimectl-evidence/2';
export const MANIFEST_FILE = 'manifest.json';

export const digestSchema = z.string().regex(/^sha256:[0-9a-f]{64}$/, 'must be sha256:<64 lower-case hex digits>');

/** A path inside the package: relative, POSIX, normalised, never leaving it, no control character. */
export const packagePathSchema = z
  .string()
  .min(1)
  .max(4096)
  .refine(
    (p) =>
      !/[\\\u0000-\u001f\u007f-\u009f\u2028\u2029]/u.test(p) &&
      !path.posix.isAbsolute(p) &&
      path.posix.normalize(p) === p &&
      !p.split('/').some((s) => s === '..' || s === '.' || s === ''),
    'must be a normalised relative path inside the package, without control characters or backslashes',
  );

export const packageFileSchema = z.strictObject({
  path: packagePathSchema,
  type: z.enum(['file', 'symlink']),
  bytes: z.number().int().min(0),
  /** of the bytes, or of a symlink's target text */
  sha256: digestSchema,
});
export type PackageFile = z.output<typeof packageFileSchema>;

export const VERDICTS = ['accepted', 'rejected', 'incomplete'] as const;
export type Verdict = (typeof VERDICTS)[number];

/** Exit status of `runtimectl gate` for each verdict. */
export const VERDICT_EXIT: Readonly<Record<Verdict, 0 | 1 | 3>> = { accepted: 0, rejected: 1, incomplete: 3 };

export const checkRecordSchema = z.strictObject({
  name: z.string().min(1),
  status: z.enum(GATE_CHECK_STATUSES),
  reason: z.string(),
  /** false for a check the profile may leave unavailable */
  required: z.boolean(),
  /** true when the gate itself broke while running the check (never tolerated) */
  internal: z.boolean(),
  /** what the check looked at but cannot vouch for */
  not_evaluated: z.array(z.string()),
  output: packagePathSchema,
  sha256: digestSchema,
});
export type CheckRecord = z.output<typeof checkRecordSchema>;

/** A check plugin as it ran: which code, from where, granted what. */
export const checkPluginRecordSchema = z.strictObject({
  name: z.string().min(1),
  plugin: z.string().min(1),
  version: z.string().min(1),
  /** the plugin folder (relative to the project when inside it) */
  dir: z.string().min(1),
  manifest_sha256: digestSchema,
  /** sha256 of the bundle the isolate ran (null when it never loaded) */
  bundle_sha256: digestSchema.nullable(),
  sandbox: z.string().min(1),
  grant: z.strictObject({ allow: permissionsSchema, bindings: z.array(z.string()) }),
  reads: z.array(z.string()),
});

export const LIMITATION_KINDS = ['unavailable', 'not-applicable', 'not-evaluated'] as const;

export const limitationSchema = z.strictObject({
  /** the check, or `gate` for what no check of any profile can establish */
  check: z.string().min(1),
  kind: z.enum(LIMITATION_KINDS),
  reason: z.string(),
});
export type Limitation = z.output<typeof limitationSchema>;

/** What was evaluated: the same shape in formats 1 and 2 (only the digest's rule differs). */
export const inputSchema = z.strictObject({
  /** the draft folder as given to the gate (absolute) */
  path: z.string().min(1),
  name: z.string().min(1),
  /** format 2: evidence/digest.ts treeDigest of `files` (JSON of [path, type, sha256]); format 1: legacyTreeDigest */
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
});

export const evidenceManifestSchema = z.strictObject({
  format: z.literal(EVIDENCE_FORMAT),
  kind: z.literal('gate'),
  created_at: z.string(),
  kernel: z.strictObject({ version: z.string().min(1) }),
  input: inputSchema,
  gate: z.strictObject({
    profile: z.string().min(1),
    file: z.string().min(1),
    digest: digestSchema,
    sandbox: z.strictObject({ name: z.string().min(1), file: z.string().min(1), digest: digestSchema }),
    limits: limitsSchema,
    checks: z.array(checkPluginRecordSchema),
    may_be_unavailable: z.array(z.string()),
  }),
  checks: z.array(checkRecordSchema),
  /** everything the verdict does not vouch for: never empty */
  limitations: z.array(limitationSchema).min(1),
  verdict: z.enum(VERDICTS),
  exit_status: z.union([z.literal(0), z.literal(1), z.literal(3)]),
  /** what became of an accepted verdict: the review queue it went to, or why none */
  proposal: z.string(),
  /** every file of the package except manifest.json */
  files: z.array(packageFileSchema),
});
export type EvidenceManifest = z.output<typeof evidenceManifestSchema>;
