/**
 * Gate profiles (`policies/gates/<name>.yaml`): which check plugins a gate runs on a skill
 * draft and in what order, what each check is granted (its permissions and `gate.*`
 * bindings), the sandbox profile the draft's code runs under, the permission ceiling the
 * draft's tests get and its manifest may ask for, and the checks this profile may leave
 * unavailable. An unavailable check is published as a limitation of the verdict, never
 * counted as a pass; a required check that is unavailable makes the verdict `incomplete`.
 *
 * A check is a plugin (`kind: gate-check`, id `gate-check.<name>`) found in the plugin
 * folders; the profile names it by `<name>`. What the plugin's manifest asks for must be
 * granted here, and the checks it reads must come before it: both are checked when the
 * profile is loaded (profiles.ts), so a profile that cannot work never starts a gate run.
 */
import { z } from 'zod';
import { checkNameSchema, GATE_BINDINGS } from '../../kernel/contracts/gate-check.ts';
import { BINDING_NAMES } from '../../kernel/manifest/plugin-manifest.ts';
import { permissionsSchema } from '../../kernel/manifest/permissions-schema.ts';
import { limitsSchema } from '../../kernel/manifest/sandbox-profile.ts';

const count = (max: number) => z.number().int().min(1).max(max);

export const draftLimitsSchema = z
  .strictObject({
    max_files: count(100_000).describe('files (and symlinks) a draft folder may hold; more is a failed snapshot'),
    max_file_bytes: count(1 << 30).describe('bytes one file may have; a larger file is not copied and fails the snapshot'),
    max_total_bytes: count(1 << 30).describe('bytes all files together may have'),
    max_tests: count(1000).describe('test files run; more fails the build check and only the first ones run'),
    max_scratch_bytes: count(1 << 30).describe('bytes one test run may hold on disk in its scratch folder; the write that would pass it is refused'),
    max_scratch_entries: count(1_000_000).default(1000).describe('files and folders one test run may create in its scratch folder; the one that would pass it is refused'),
  })
  .describe('bounds on the draft itself, checked by the gate (the sandbox bounds each run)');

/** One check of a profile, with what it is granted. */
export const checkEntrySchema = z.union([
  checkNameSchema.describe('a check granted nothing: only its input'),
  z.strictObject({
    check: checkNameSchema.describe('the check plugin gate-check.<check>'),
    allow: permissionsSchema.default({}).describe('what the check may do in its isolate (at least what its manifest asks); ${draft} is the snapshot of the draft'),
    bindings: z.array(z.enum(GATE_BINDINGS)).default([]).describe('gate bindings granted to the check (at least those its manifest declares)'),
  }),
]);

export interface CheckEntry {
  check: string;
  allow: z.output<typeof permissionsSchema>;
  bindings: (typeof GATE_BINDINGS)[number][];
}

export function checkEntry(entry: z.output<typeof checkEntrySchema>): CheckEntry {
  return typeof entry === 'string' ? { check: entry, allow: {}, bindings: [] } : entry;
}

export const gateProfileSchema = z
  .strictObject({
    $schema: z.string().optional(),
    name: z.string().regex(/^[a-z][a-z0-9-]*$/, 'lowercase letters, digits and dashes').describe('the gate profile name; equals the file name'),
    description: z.string().min(1).max(1000),
    sandbox: z.string().regex(/^[a-z][a-z0-9-]*$/).describe('the sandbox profile (sandboxes/profiles/<name>.yaml) the draft code runs under'),
    checks: z.array(checkEntrySchema).min(1).max(64).describe('the check plugins to run, in order, each with its grant; a check comes after the checks it reads'),
    may_be_unavailable: z
      .array(checkNameSchema)
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
    const seen = new Set<string>();
    profile.checks.forEach((raw, i) => {
      const { check } = checkEntry(raw);
      if (seen.has(check)) ctx.addIssue({ code: 'custom', path: ['checks', i], message: `"${check}" is listed twice` });
      seen.add(check);
    });
    profile.may_be_unavailable.forEach((check, i) => {
      if (!seen.has(check)) ctx.addIssue({ code: 'custom', path: ['may_be_unavailable', i], message: `"${check}" is not one of this profile's checks` });
    });
  })
  .describe('A gate profile for evaluating skill drafts');

export type GateProfile = z.output<typeof gateProfileSchema>;
export type DraftLimits = z.output<typeof draftLimitsSchema>;
