/**
 * A persona's review-queue policy: the backpressure the L10 scope asks for, so an operator
 * who is away for a week finds a bounded queue and a trail of refusals, not an unbounded
 * pile. The persona profile embeds this schema (`review: reviewPolicySchema.default(...)`).
 *
 *   max_pending            proposals open at once (pending + under-review); more are refused
 *   rate_limit             at most `count` proposals queued in any `per_seconds` window
 *   per_proposer           at most `count` of them from one proposer (a plugin, the agents'
 *                          sessions) in its window, so one noisy agent cannot take the whole
 *                          rate; absent: a proposer may use the whole rate_limit
 *   expire_after_seconds   an undecided proposal expires this long after it was queued
 */
import { z } from 'zod';

export const reviewPolicySchema = z
  .strictObject({
    max_pending: z.number().int().min(1).max(100_000).describe('most proposals open (pending or under-review) at once; a proposal past this is refused and an operator alert written'),
    rate_limit: z
      .strictObject({
        count: z.number().int().min(1).max(100_000).describe('proposals queued per window'),
        per_seconds: z.number().int().min(1).max(31_536_000).describe('window length in seconds'),
      })
      .describe('most proposals queued in any sliding window; refusals do not count'),
    per_proposer: z
      .strictObject({
        count: z.number().int().min(1).max(100_000).describe('proposals one proposer may queue per window'),
        per_seconds: z.number().int().min(1).max(31_536_000).describe('window length in seconds'),
      })
      .optional()
      .describe('most proposals one proposer (a plugin, the agent sessions) may queue in any sliding window; absent: the whole rate_limit'),
    expire_after_seconds: z.number().int().min(1).max(315_360_000).describe('seconds after which an undecided proposal expires'),
  })
  .describe("A persona's review-queue backpressure");

export type ReviewPolicy = z.output<typeof reviewPolicySchema>;

/** 20 open, 10 an hour (5 of them from one proposer), a week to decide. Frozen: copy it before changing a field. */
export const DEFAULT_REVIEW_POLICY: Readonly<ReviewPolicy> = Object.freeze({
  max_pending: 20,
  rate_limit: Object.freeze({ count: 10, per_seconds: 3600 }),
  per_proposer: Object.freeze({ count: 5, per_seconds: 3600 }),
  expire_after_seconds: 7 * 86_400,
});
