/**
 * The step values of the science loop: what its steps hand each other within a cycle, each
 * with its schema (kernel/loop/step-values.ts). The steps declare which they read and produce
 * (steps.ts), so a harness that drops or reorders a step is checked at start, and a step
 * plugin (`kind: loop-step`) names these values in its manifest (`loop_step.reads: [brain]`).
 *
 * Values that are plain data have their real schema (a step plugin gets and gives them as
 * JSON); the skill selection and the act result carry in-process details (absolute paths, a
 * session's files), so their schemas check only their shape's outline.
 */
import { z } from 'zod';
import { budgetPostureSchema } from '../../kernel/contracts/budget-policy.ts';
import { stepValue } from '../../kernel/loop/step-values.ts';
import type { SkillMeta } from '../skills/catalog.ts';
import type { LedgerInspection } from './ledger-inspection.ts';
import type { ActResult } from './decide.ts';
import { brainSchema } from './brain.ts';

// usage entries are summed as the log has them (a provider may report fractions): non-negative numbers
const count = z.number().min(0);

export const BRAIN = stepValue('brain', brainSchema, 'the persona\'s brain (brain.json) as loaded this cycle; remembered after the cycle event');

export const USAGE = stepValue(
  'usage',
  z.object({ tokens_used_24h: count, sessions_24h: count, cycles_24h: count }),
  'tokens, sessions and cycles of the last 24 h, from the persona\'s own event log',
);

// The contract's posture, with the usage-derived counts as the log sums them (see count).
export const POSTURE = stepValue(
  'posture',
  budgetPostureSchema.extend({ tokens_used_24h: count, tokens_remaining_24h: count.nullable(), sessions_24h: count }),
  'the budget posture the cycle runs under',
);

export const SKILLS = stepValue(
  'skills',
  z.array(z.custom<SkillMeta>((v) => typeof v === 'object' && v !== null && typeof (v as { id?: unknown }).id === 'string', 'a skill of the catalog')),
  'the skills the profile selects (in-process: skill catalog entries)',
);

const ledgerInspectionSchema: z.ZodType<LedgerInspection> = z.object({
  path: z.string(),
  bootstrap: z.string(),
  backend: z.string().optional(),
  tasks: z.record(z.string(), z.number()).optional(),
  error: z.string().optional(),
});
export const LEDGER = stepValue('ledger', ledgerInspectionSchema, 'the local task ledger\'s path, bootstrap status and task counts');

export const PHASE = stepValue('phase', z.string().min(1).max(64).nullable(), 'the cycle\'s activity phase; null when the selector failed (decide then fails the cycle, naming why)');

export const WORK = stepValue('work', z.array(z.object({ key: z.string(), title: z.string(), kind: z.string() })), 'the work the probes found this cycle');

export const ACT = stepValue(
  'act',
  z.custom<ActResult>((v) => typeof v === 'object' && v !== null && typeof (v as { outcome?: unknown }).outcome === 'string', 'an act result'),
  'what the decide step did: deferred or executed, the session, its usage (in-process)',
);
