/**
 * The budget-policy contract (`kind: budget-policy`): `assess(input) → decision`. The loop
 * hands the policy the persona's budget posture, the cycle's work and recent history; the
 * policy answers with a decision record (a value-of-information tier, an action, the expected
 * cost and a stop condition), checked against budgetDecisionSchema before the loop acts on it.
 *
 * One copy for kernel and plugins: plugins import the types (`import type`), which esbuild
 * erases, so nothing of zod is bundled into an isolate.
 */
import { z } from 'zod';
import { workItemSchema } from './work.ts';

const count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const short = (max: number) => z.string().transform((s) => (s.length > max ? `${s.slice(0, max - 1)}…` : s));

export const TIER_NAMES = [
  'read/search existing context',
  'profile a bounded external source',
  'draft or update a small artifact',
  'request review from another role',
  'run an analysis, benchmark or experiment-planning pass',
  'escalate to challenge, Senate or resource allocation',
] as const;

export const BUDGET_ACTIONS = ['execute', 'read_only_planning', 'reviewer_handoff'] as const;

const nullableCount = count.nullable();

/** The budget posture a cycle runs under (env over profile; the wallet is advisory only). */
export const budgetPostureSchema = z.object({
  source: z.enum(['env', 'profile', 'wallet_advisory', 'none']).describe('where the daily budget came from'),
  token_budget: nullableCount.describe('the daily token budget, or null when there is none'),
  tokens_used_24h: count.describe('tokens spent in the last 24 h (rolling window)'),
  tokens_remaining_24h: nullableCount.describe('budget left in the window, null without a budget'),
  max_tokens_per_session: nullableCount.describe('cap on one session'),
  min_tokens_remaining_for_executor: count.describe('below this many tokens left, token-spending executors stay off'),
  sessions_24h: count.describe('token-spending sessions started in the last 24 h'),
  max_autonomous_sessions_per_day: count.describe('sessions allowed in any 24 h window'),
  session_cap_reached: z.boolean(),
  cpu_seconds_per_cycle: z.number().describe('CPU seconds one plugin call may use'),
  wall_seconds_per_cycle: z.number().describe('wall seconds one executor session may run'),
  wallet_monthly_token_budget: nullableCount.describe('advisory only'),
  wallet_advisory_daily_tokens: nullableCount.describe('monthly / 30, shown to operators; it never unlocks anything'),
  read_only: z.boolean().describe('true when no daily budget exists: read-only planning, reflection and task creation only'),
  env_overrides: z.array(z.string()).describe('the SCIDEX_AGENT_* budget variables that overrode the profile'),
});
export type BudgetPosture = z.infer<typeof budgetPostureSchema>;

/** What `assess` is called with. */
export const budgetAssessInputSchema = z.object({
  persona_id: z.string(),
  phase: z.string(),
  work: z.array(workItemSchema.omit({ body: true })).describe('the cycle\'s work, without the bodies'),
  executor: z.object({ plugin: z.string(), spends_tokens: z.boolean().nullable() }),
  posture: budgetPostureSchema.describe('budgets, usage in the last 24 h, read_only'),
  history: z.array(z.object({ keys: z.array(z.string()), outcome: z.string(), status: z.string().optional() })),
  config: z.record(z.string(), z.unknown()).describe('the profile\'s budget.config'),
});
export type BudgetAssessInput = z.input<typeof budgetAssessInputSchema>;

/** What `assess` returns. */
export const budgetDecisionSchema = z.object({
  action: z.enum(BUDGET_ACTIONS),
  tier: z.number().int().min(1).max(6),
  tier_name: short(120),
  decision: short(500).pipe(z.string().min(1)),
  uncertainty: short(500).pipe(z.string().min(1)),
  alternatives: z.array(z.object({ tier: z.number().int().min(1).max(6), tier_name: short(120), why_not: short(300) })).max(6),
  expected_cost: z.object({ tokens: count, cpu_seconds: z.number().min(0).max(86_400), wall_seconds: z.number().min(0).max(86_400) }),
  stop_condition: short(500).pipe(z.string().min(1)),
  reserve: z.object({ tokens: count.nullable(), sessions: count }),
  expected_improvement: z.number().min(0).max(1),
  reason: short(500).pipe(z.string().min(1)),
});
export type BudgetDecision = z.output<typeof budgetDecisionSchema>;
export type BudgetDecisionAnswer = z.input<typeof budgetDecisionSchema>;

/** The exports a budget-policy plugin provides. */
export const BUDGET_POLICY_EXPORTS = ['assess'] as const;
