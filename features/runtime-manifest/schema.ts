/**
 * `scidex-runtime.yaml`: the small manifest a runnable repo carries so the substrate can
 * register it and a runtime can start it (spec 001, "Runtime Manifests"). Unknown keys are
 * refused at every level, so a typo (`memory_gib`) is an error, not a silent default.
 */
import { z } from 'zod';

export const RUNTIME_KINDS = [
  'space',
  'local-container',
  'mcp-server',
  'http-service',
  'bwrap-subprocess',
  'batch-job',
  'notebook-worker',
  'simulator-service',
] as const;

const nonEmpty = z.string().min(1, 'must not be empty');
const required = (what: string) => ({ error: (issue: { input: unknown }) => (issue.input === undefined ? `is required (${what})` : undefined) });
const uniqueStrings = z
  .array(nonEmpty)
  .refine((items) => new Set(items).size === items.length, 'must not repeat an entry');

export const RuntimeResourcesSchema = z.strictObject({
  cpu: z.number().positive('must be a positive number of cores').optional(),
  memory_gb: z.number().positive('must be a positive number of gigabytes').optional(),
  /** false/true, 'optional' (uses one when present), 'required', or a count of GPUs. */
  gpu: z
    .union([z.boolean(), z.enum(['optional', 'required']), z.number().int().nonnegative()], {
      error: 'must be true, false, "optional", "required" or a whole number of GPUs',
    })
    .optional(),
});

export const RuntimeSubstrateSchema = z.strictObject({
  registers_as: z.string(required('the substrate kind this runtime registers as')).min(1, 'must not be empty'),
  result_type: nonEmpty.optional(),
  provenance_required: z.boolean().optional(),
});

export const ScidexRuntimeManifestSchema = z
  .strictObject({
    artifact_ref: z
      .string(required('KIND:NAME, e.g. benchmark:kinase-binding'))
      .regex(/^[a-z][a-z0-9_-]*:\S+$/, 'must be KIND:NAME, e.g. benchmark:kinase-binding'),
    runtime_kind: z.enum(RUNTIME_KINDS, {
      error: (issue) => `${issue.input === undefined ? 'is required; ' : ''}must be one of ${RUNTIME_KINDS.join(', ')}`,
    }),
    entrypoint: nonEmpty.optional(),
    image: nonEmpty.optional(),
    ports: z
      .array(z.number().int('must be a whole number').min(1, 'must be 1-65535').max(65535, 'must be 1-65535'))
      .refine((ports) => new Set(ports).size === ports.length, 'must not repeat a port')
      .optional(),
    resources: RuntimeResourcesSchema.optional(),
    inputs: uniqueStrings.optional(),
    outputs: uniqueStrings.optional(),
    substrate: RuntimeSubstrateSchema.optional(),
    maintainers: uniqueStrings.min(1, 'must name at least one maintainer').optional(),
  })
  .refine((m) => m.entrypoint !== undefined || m.image !== undefined, {
    message: 'needs an entrypoint or an image (or both) so a runtime knows what to start',
    path: ['entrypoint'],
  })
  .describe('scidex-runtime.yaml: how a runnable repo registers with the substrate and how it is started');

export type ScidexRuntimeManifest = z.output<typeof ScidexRuntimeManifestSchema>;
