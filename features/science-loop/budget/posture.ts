/**
 * The budget posture of one cycle: environment over profile, with the wallet's monthly
 * budget as an advisory figure only. Without a daily token budget the persona is read-only:
 * token-spending executors never run, whatever else is configured (the spec's rule until a
 * live wallet contract exists).
 */
import type { PersonaProfile } from '../../../kernel/personas/profile-schema.ts';
import type { BudgetPosture } from '../../../kernel/contracts/budget-policy.ts';
import { BUDGET_ENV, type AgentEnv, type BudgetField } from './env.ts';
import type { UsageTotals } from '../../history/usage.ts';

/** Where the daily token budget came from. `wallet_advisory` and `none` both mean read-only. */
export type { BudgetPosture } from '../../../kernel/contracts/budget-policy.ts';
export type BudgetSource = BudgetPosture['source'];

/** The budget limits in force for a persona (env over profile), before any usage is known. */
export interface BudgetLimits {
  daily_tokens: number | null;
  daily_source: 'env' | 'profile' | null;
  max_tokens_per_session: number | null;
  min_tokens_remaining_for_executor: number;
  max_autonomous_sessions_per_day: number;
  cpu_seconds_per_cycle: number;
  wall_seconds_per_cycle: number;
  env_overrides: string[];
}

export function budgetLimits(profile: PersonaProfile, agentEnv: AgentEnv): BudgetLimits {
  const b = profile.budget;
  const pick = <F extends BudgetField>(field: F, fromProfile: number | undefined): number | undefined => agentEnv.budget[field] ?? fromProfile;
  return {
    daily_tokens: pick('daily_tokens', b.daily_tokens) ?? null,
    daily_source: agentEnv.budget.daily_tokens !== undefined ? 'env' : b.daily_tokens !== undefined ? 'profile' : null,
    max_tokens_per_session: pick('max_tokens_per_session', b.max_tokens_per_session) ?? null,
    min_tokens_remaining_for_executor: pick('min_tokens_remaining_for_executor', b.min_tokens_remaining_for_executor) ?? 0,
    max_autonomous_sessions_per_day: pick('max_autonomous_sessions_per_day', b.max_autonomous_sessions_per_day) ?? 0,
    cpu_seconds_per_cycle: pick('cpu_seconds_per_cycle', b.cpu_seconds_per_cycle) ?? 2,
    wall_seconds_per_cycle: pick('wall_seconds_per_cycle', b.wall_seconds_per_cycle) ?? 900,
    env_overrides: (Object.keys(agentEnv.budget) as BudgetField[]).map((f) => BUDGET_ENV[f]).sort(),
  };
}

export function derivePosture(limits: BudgetLimits, profile: PersonaProfile, usage: UsageTotals): BudgetPosture {
  const monthly = profile.wallet.monthly_token_budget ?? null;
  const source: BudgetSource = limits.daily_source ?? (monthly !== null ? 'wallet_advisory' : 'none');
  const daily = limits.daily_tokens;
  return {
    source,
    token_budget: daily,
    tokens_used_24h: usage.tokens_used_24h,
    tokens_remaining_24h: daily === null ? null : Math.max(0, daily - usage.tokens_used_24h),
    max_tokens_per_session: limits.max_tokens_per_session,
    min_tokens_remaining_for_executor: limits.min_tokens_remaining_for_executor,
    sessions_24h: usage.sessions_24h,
    max_autonomous_sessions_per_day: limits.max_autonomous_sessions_per_day,
    session_cap_reached: usage.sessions_24h >= limits.max_autonomous_sessions_per_day,
    cpu_seconds_per_cycle: limits.cpu_seconds_per_cycle,
    wall_seconds_per_cycle: limits.wall_seconds_per_cycle,
    wallet_monthly_token_budget: monthly,
    wallet_advisory_daily_tokens: monthly === null ? null : Math.floor(monthly / 30),
    read_only: daily === null,
    env_overrides: limits.env_overrides,
  };
}

/**
 * Why a token-spending executor may not run under this posture, or undefined when it may.
 * These are the runtime's hard stops; the budget policy plugin makes the softer choices.
 */
export function hardStop(posture: BudgetPosture): string | undefined {
  if (posture.read_only) {
    const wallet = posture.source === 'wallet_advisory' ? ` (the wallet's monthly ${posture.wallet_monthly_token_budget} is advisory only)` : '';
    return `no daily token budget${wallet}: token-spending executors stay off; read-only planning, reflection and task creation only`;
  }
  if (posture.session_cap_reached) {
    return `session cap reached: ${posture.sessions_24h} of ${posture.max_autonomous_sessions_per_day} autonomous sessions used in the last 24 h`;
  }
  const remaining = posture.tokens_remaining_24h ?? 0;
  if (remaining <= 0 || remaining < posture.min_tokens_remaining_for_executor) {
    return `budget headroom too low: ${remaining} of ${posture.token_budget} daily tokens left, executor work needs at least ${Math.max(1, posture.min_tokens_remaining_for_executor)}`;
  }
  return undefined;
}
