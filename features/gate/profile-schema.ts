/**
 * Gate profiles (`policies/gates/<name>.yaml`): which checks a gate runs on a skill draft
 * and in what order, the sandbox profile the draft's code runs under, the permission
 * ceiling its tests get and its manifest may ask for, and the checks this profile may
 * leave unavailable. An unavailable check is published as a limitation of the verdict,
 * never counted as a pass; a required check that is unavailable makes the verdict
 * `incomplete`.
 */
import { z } from 'zod';
import { BINDING_NAMES } from '../../kernel/manifest/plugin-manifest.ts';
import { permissionsSchema } from '../../kernel/manifest/permissions-schema.ts';
import { limitsSchema } from '../../kernel/manifest/sandbox-profile.ts';

/** Every check a gate knows, in the order the shipped profiles run them. */
export const GATE_CHECKS = [
  'snapshot',
  'skill-manifest',
  'permissions',
  'build',
  'tests',
  'determinism',
  'resource-limits',
  'denials',
  'reference-runtime',
] as const;

export type GateCheckName = (typeof GATE_CHECKS)[number];

/** What a check reads from earlier checks: those must come before it in `checks`. */
export const CHECK_NEEDS: Readonly<Record<GateCheckName, readonly GateCheckName[]>> = {
  snapshot: [],
  'skill-manifest': ['snapshot'],
  permissions: ['snapshot'],
  build: ['snapshot'],
  tests: ['build'],
  determinism: ['tests'],
  'resource-limits': ['tests'],
  denials: ['tests'],
  'reference-runtime': ['tests'],
};

const count = (max: number) => z.number().int().min(1).max(max);

export const draftLimitsSchema = z
  .strictObject({
    max_files: count(100_000).describe('files (and symlinks) a draft folder may hold; more is a failed snapshot'),
    max_file_bytes: count(1 << 30).describe('bytes one file may have; a larger file is not copied and fails the snapshot'),
    max_total_bytes: count(1 << 30).describe('bytes all files together may have'),
    max_tests: count(1000).describe('test files run; more fails the build check and only the first ones run'),
    max_scratch_bytes: count(1 << 30).describe('bytes the tests may leave in the scratch folder; more fails resource-limits'),
  })
  .describe('bounds on the draft itself, checked by the gate (the sandbox bounds each run)');

export const gateProfileSchema = z
  .strictObject({
    $schema: z.string().optional(),
    name: z.string().regex(/^[a-z][a-z0-9-]*$/, 'lowercase letters, digits and dashes').describe('the gate profile name; equals the file name'),
    description: z.string().min(1).max(1000),
    sandbox: z.string().regex(/^[a-z][a-z0-9-]*$/).describe('the sandbox profile (sandboxes/profiles/<name>.yaml) the draft code runs under'),
    checks: z.array(z.enum(GATE_CHECKS)).min(1).describe('the checks to run, in order; each must come after the checks it reads'),
    may_be_unavailable: z
      .array(z.enum(GATE_CHECKS))
      .default([])
      .describe('checks this profile may leave unavailable: published as limitations, never counted as passes'),
    ceiling: permissionsSchema.describe(
      'the most the draft may ask for in plugin.yaml, and exactly what its tests are run with; ${plugin} is the snapshot of the draft, ${scratch} the scratch folder',
    ),
    bindings: z.array(z.enum(BINDING_NAMES)).default([]).describe('kernel bindings a draft may declare'),
    limits: limitsSchema.partial().default({}).describe("limits of each test run; each at most the sandbox profile's"),
    draft: draftLimitsSchema,
  })
  .superRefine((profile, ctx) => {
    const seen = new Map<GateCheckName, number>();
    profile.checks.forEach((check, i) => {
      if (seen.has(check)) ctx.addIssue({ code: 'custom', path: ['checks', i], message: `"${check}" is listed twice` });
      for (const need of CHECK_NEEDS[check]) {
        if (!seen.has(need)) ctx.addIssue({ code: 'custom', path: ['checks', i], message: `"${check}" reads the result of "${need}", which must come before it` });
      }
      seen.set(check, i);
    });
    profile.may_be_unavailable.forEach((check, i) => {
      if (!seen.has(check)) ctx.addIssue({ code: 'custom', path: ['may_be_unavailable', i], message: `"${check}" is not one of this profile's checks` });
    });
  })
  .describe('A gate profile for evaluating skill drafts');

export type GateProfile = z.output<typeof gateProfileSchema>;
export type DraftLimits = z.output<typeof draftLimitsSchema>;
