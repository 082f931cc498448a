/**
 * Evidence format 1 (`runtimectl-evidence/1`), as packages written before gate checks were
 * plugins recorded it; kept so `evidence verify` still checks them (their input digest is
 * the line format, evidence/digest.ts legacyTreeDigest). New packages are format 2
 * (manifest-schema.ts).
 */
import { z } from 'zod';
import { limitsSchema } from '../../../kernel/manifest/sandbox-profile.ts';
import { digestSchema, inputSchema, packageFileSchema, packagePathSchema, VERDICTS } from './manifest-schema.ts';

export const EVIDENCE_FORMAT_V1 = 'runtimectl-evidence/1';

const checkRecordSchemaV1 = z.strictObject({
  name: z.string().min(1),
  status: z.enum(['passed', 'failed', 'unavailable']),
  reason: z.string(),
  required: z.boolean(),
  output: packagePathSchema,
  sha256: digestSchema,
});

export const evidenceManifestSchemaV1 = z.strictObject({
  format: z.literal(EVIDENCE_FORMAT_V1),
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
    checks: z.array(z.string()),
    may_be_unavailable: z.array(z.string()),
  }),
  checks: z.array(checkRecordSchemaV1),
  limitations: z.array(z.strictObject({ check: z.string(), reason: z.string() })),
  verdict: z.enum(VERDICTS),
  exit_status: z.union([z.literal(0), z.literal(1), z.literal(3)]),
  proposal: z.string(),
  files: z.array(packageFileSchema),
});
export type EvidenceManifestV1 = z.output<typeof evidenceManifestSchemaV1>;
