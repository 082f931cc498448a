/**
 * The review boundary as a step: the driver's own (a harness lists it under `boundary:`, on
 * by default). It runs at the cycle boundary, before the cycle's trace opens: the operator
 * trust list is looked at again and the proposals an operator accepted since the last cycle
 * take effect (the review queue's applyAccepted, features/persona/persona-runtime.ts). What it did is the step
 * value `review`, which later steps may read and the cycle event carries under `review`.
 * A harness with `boundary: []` queues its agents' proposals but never applies them.
 */
import { z } from 'zod';
import { REVIEW_STEP } from '../../../kernel/loop/harness.ts';
import { stepValue, type StepValueUse } from '../../../kernel/loop/step-values.ts';
import type { LoopStep } from '../../../kernel/loop/steps.ts';

export const reviewAtBoundarySchema = z.object({
  applied: z.array(z.string()).describe('proposal ids applied'),
  expired: z.array(z.string()).describe('proposal ids expired'),
  held: z.array(z.object({ id: z.string(), reason: z.string() })).optional().describe('proposals accepted but not applied, and why'),
});

/** What the cycle boundary did with the review queue. */
export type ReviewAtBoundary = z.infer<typeof reviewAtBoundarySchema>;

export const REVIEW_VALUE = stepValue('review', reviewAtBoundarySchema, 'what the cycle boundary did with the review queue: proposals applied, expired, held');

/** What the review step declares (the start check orders the harness's steps with it). */
export const REVIEW_STEP_VALUES: StepValueUse = { name: REVIEW_STEP, produces: [REVIEW_VALUE] };

/** The review step over the runtime's own boundary work (its problems go to the cycle's). */
export function reviewStep(applyAccepted: (now: number, problems: string[]) => Promise<ReviewAtBoundary>): LoopStep {
  return {
    ...REVIEW_STEP_VALUES,
    async run(c) {
      c.put(REVIEW_VALUE, await applyAccepted(c.now, c.problems));
    },
  };
}
