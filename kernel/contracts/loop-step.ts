/**
 * The loop-step contract (`kind: loop-step`): `run(input) → { values, payload, problems }`. A
 * harness (policies/harnesses/*.yaml) names a step plugin in its `steps:` by its id
 * (`step.<name>`), beside the steps features register; the driver calls its `run` once per
 * cycle, in the plugin's own isolate under the persona's grant, recorded like every plugin call.
 *
 * The manifest's `loop_step:` section says which step values the plugin reads (an earlier step
 * of the harness must produce each: checked at start), uses when present, produces (each
 * checked against the value's schema, the one the registering feature gave it) and which
 * fields of the cycle event it adds. An answer outside this contract, or a value outside its
 * schema, is a problem of the cycle (named in the event), never a failed start or a crash.
 * Plugins import these types; the kernel parses every answer with these schemas.
 */
import { z } from 'zod';

export const LOOP_STEP_EXPORTS = ['run'] as const;

/** A step plugin's id is `step.<name>`: a dotted name in a harness's steps is a plugin, a plain one a feature's step. */
export const LOOP_STEP_ID_PREFIX = 'step.';

const valueName = z.string().regex(/^[a-z][a-z0-9_]{0,62}$/, 'a step value name (lowercase letters, digits and "_")');

/**
 * Fields of the cycle event the driver writes itself: a step adding one would overwrite the
 * loop's own record (the trace's hash, the steps, the review boundary), so none may.
 */
export const DRIVER_PAYLOAD_FIELDS = ['loop', 'cycle', 'steps', 'harness', 'runtime_kind', 'runtime', 'persona_id', 'kernel_version', 'profile_digest', 'audit', 'tools', 'review', 'trace', 'problems'] as const;

const payloadField = z
  .string()
  .regex(/^[a-z][a-z0-9_]{0,62}$/, 'a field name (lowercase letters, digits and "_")')
  .refine((f) => !(DRIVER_PAYLOAD_FIELDS as readonly string[]).includes(f), 'is one of the driver\'s own fields of the cycle event');

/** The `loop_step:` section of a step plugin's manifest. */
export const loopStepSectionSchema = z.strictObject({
  reads: z.array(valueName).max(32).default([]).describe('step values an earlier step of the harness must produce (a harness without one is refused at start)'),
  uses: z.array(valueName).max(32).default([]).describe('step values read when an earlier step produced them (optional inputs)'),
  produces: z.array(valueName).max(32).default([]).describe('step values this step hands later steps (one step of a harness produces each)'),
  payload: z.array(payloadField).max(32).default([]).describe('fields this step adds to the cycle event (never the driver\'s own)'),
});
export type LoopStepSection = z.output<typeof loopStepSectionSchema>;

/** What `run` is called with. */
export const loopStepInputSchema = z.object({
  step: z.string().describe('this step\'s plugin id'),
  persona_id: z.string(),
  runtime: z.string().describe('the profile\'s runtime'),
  cycle: z.number().int().min(1).describe('1-based cycle number'),
  now: z.number().describe('the cycle\'s time, ms since the epoch (the loop\'s clock)'),
  phases: z.array(z.string()).describe('the profile\'s phases, in its order'),
  values: z.record(z.string(), z.unknown()).describe('the values named by reads and uses that earlier steps produced, by name'),
});
export type LoopStepInput = z.infer<typeof loopStepInputSchema>;

/** What `run` returns. */
export const loopStepResultSchema = z.strictObject({
  values: z.record(z.string(), z.unknown()).default({}).describe('values named in produces (each checked against its schema)'),
  payload: z.record(z.string(), z.unknown()).default({}).describe('fields named in payload, for the cycle event'),
  problems: z.array(z.string().min(1).max(1000)).max(20).default([]).describe('problems of this cycle, listed in the cycle event'),
});
export type LoopStepResult = z.input<typeof loopStepResultSchema>;
