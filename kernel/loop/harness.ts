/**
 * Harness manifests (`policies/harnesses/<id>.yaml`): the contract. Which steps one loop cycle
 * runs, in order, and what a persona on this harness gets when its profile leaves a slot empty.
 * The canonical `continuous-science-loop` and the compatibility targets (minimax, operon,
 * rosalind, codex, claude) are manifests over the registered steps and step plugins; a
 * harness may drop, reorder or add a step, as long as each step's inputs are produced by an
 * earlier one (checked at start). Nothing in the kernel knows their names.
 *
 * `boundary:` lists the steps of the cycle boundary, run before the cycle's trace opens:
 * `review` (the driver's own: accepted proposals take effect). Without the field a harness
 * has the review boundary; `boundary: []` drops it (proposals are still queued, never applied).
 *
 * Reading the manifests from disk and choosing the one a profile runs on (its `harness:`, else
 * the one whose `runtimes` match its runtime) is the catalog's: features/profiles/harness-catalog.ts.
 *
 * Steps are implemented by features and registered by name (steps.ts); a harness naming a
 * step nobody registered is refused at start with its file and field, never a failed cycle.
 */
import { z } from 'zod';
import { PLAIN_NAME_PATTERN, PLUGIN_ID_PATTERN } from '../ids.ts';

/** The driver's own last step: the trace line, the cycle event, then what steps left for after it. */
export const RECORD_STEP = 'record';
/** The driver's own boundary step: the review queue's accepted proposals take effect (features/persona/steps/review-step.ts). */
export const REVIEW_STEP = 'review';

/** A feature's step (`decide`) or a step plugin's id (`step.phase-least-recent`). */
const stepName = z.string().regex(/^[a-z][a-z0-9_-]{0,62}(\.[a-z][a-z0-9-]*)*$/, 'a step name, or a step plugin\'s id (step.<name>)');

function noDuplicates(list: readonly string[], field: string, ctx: z.RefinementCtx): void {
  list.forEach((step, i) => {
    if (list.indexOf(step) !== i) ctx.addIssue({ code: 'custom', path: [field, i], message: `step "${step}" is listed twice` });
  });
}

const pluginId = z.string().regex(PLUGIN_ID_PATTERN, 'a dotted plugin id such as executor.codex');

export const harnessManifestSchema = z
  .strictObject({
    $schema: z.string().optional(),
    id: z.string().regex(PLAIN_NAME_PATTERN, 'lowercase letters, digits, "-" and "_" (the file name without .yaml)'),
    description: z.string().min(1).max(1000),
    loop: z.string().regex(/^[a-z][a-z0-9_]{0,63}$/).default('continuous_science_loop').describe('the loop name cycle events carry'),
    runtime_kind: z.enum(['canonical', 'compatibility_harness']).describe('canonical: agent-<persona> deployments; compatibility_harness: a provider target started explicitly'),
    runtimes: z
      .array(z.string().regex(/^[a-z0-9*][a-z0-9_*-]{0,62}$/, 'a runtime name, or a pattern with * (agent-*)'))
      .default([])
      .describe('runtime targets this harness serves when a profile names no harness (patterns with *)'),
    boundary: z
      .array(stepName)
      .default([REVIEW_STEP])
      .describe(`the cycle boundary's steps, run before the cycle's trace opens (default: ["${REVIEW_STEP}"], accepted proposals take effect; [] drops it)`),
    steps: z
      .array(stepName)
      .min(1)
      .describe(`the cycle's steps in order: registered steps and step plugins (step.<name>); each step's inputs come from an earlier one; the last is "${RECORD_STEP}"`),
    defaults: z
      .strictObject({
        executor: z
          .strictObject({
            plugin: pluginId.describe('the executor when the profile names none'),
            enabled: z.boolean().describe('whether it runs when the profile does not say'),
          })
          .optional(),
      })
      .default({})
      .describe('slot defaults for personas on this harness (the profile, then the environment, override them)'),
  })
  .superRefine((h, ctx) => {
    const last = h.steps.length - 1;
    h.steps.forEach((step, i) => {
      if (step === RECORD_STEP && i !== last) ctx.addIssue({ code: 'custom', path: ['steps', i], message: `"${RECORD_STEP}" is the driver's last step; it cannot come before others` });
      if (step === REVIEW_STEP) ctx.addIssue({ code: 'custom', path: ['steps', i], message: `"${REVIEW_STEP}" is a boundary step: list it under boundary:` });
    });
    noDuplicates(h.steps, 'steps', ctx);
    noDuplicates(h.boundary, 'boundary', ctx);
    h.boundary.forEach((step, i) => {
      if (step !== REVIEW_STEP) ctx.addIssue({ code: 'custom', path: ['boundary', i], message: `unknown boundary step "${step}" (boundary steps: ${REVIEW_STEP})` });
    });
    if (h.steps[last] !== RECORD_STEP) ctx.addIssue({ code: 'custom', path: ['steps', last], message: `the last step must be "${RECORD_STEP}" (the trace line and the cycle event)` });
  });

export type HarnessManifest = z.output<typeof harnessManifestSchema>;

export interface LoadedHarness {
  manifest: HarnessManifest;
  /** absolute path of the YAML file */
  file: string;
}
