/**
 * budget.voi-tiers: spends budget by expected value of information (the shared skill
 * `value-of-information-budgeting`). For a cycle with work it picks one of the six tiers,
 * estimates what the work costs and how much it should improve a decision, and either
 * approves executor work with a full decision record or downshifts to read-only planning
 * (or reviewer handoff) with the reason. Pure and deterministic: same input, same record.
 *
 * Config (profile `budget.config`), all optional:
 *   min_expected_improvement  below this the cycle downshifts (default 0.35)
 *   tier_tokens               expected tokens per tier, six numbers
 *   tier_wall_seconds         expected wall seconds per tier, six numbers
 *   reserve_fraction          share of the daily budget kept back (default 0.1)
 */
import { estimateCost, pickTier, TIERS, type Cost } from './tiers.ts';

export interface WorkItem {
  kind: 'packet' | 'message' | 'periodic';
  key: string;
  title: string;
  tier_hint?: number;
}

export interface Posture {
  read_only: boolean;
  token_budget: number | null;
  tokens_remaining_24h: number | null;
  max_tokens_per_session: number | null;
  min_tokens_remaining_for_executor: number;
  sessions_24h: number;
  max_autonomous_sessions_per_day: number;
  cpu_seconds_per_cycle: number;
  wall_seconds_per_cycle: number;
}

export interface HistoryEntry {
  keys: string[];
  /** executed | deferred | failed | idle */
  outcome: string;
  /** the executor's status when it ran */
  status?: string;
}

export interface AssessInput {
  persona_id: string;
  phase: string;
  work: WorkItem[];
  executor: { plugin: string; spends_tokens: boolean };
  posture: Posture;
  history: HistoryEntry[];
  config: Record<string, unknown>;
}

export interface Decision {
  action: 'execute' | 'read_only_planning' | 'reviewer_handoff';
  tier: number;
  tier_name: string;
  decision: string;
  uncertainty: string;
  alternatives: { tier: number; tier_name: string; why_not: string }[];
  expected_cost: Cost;
  stop_condition: string;
  reserve: { tokens: number | null; sessions: number };
  expected_improvement: number;
  reason: string;
}

const BASE_VALUE = { packet: 0.8, message: 0.6, periodic: 0.25 } as const;

function num(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : fallback;
}

/** Cycles among the recent ones that ran on one of these keys and did not finish it. */
function fruitlessRepeats(keys: readonly string[], history: readonly HistoryEntry[]): number {
  return history.filter((h) => h.outcome !== 'idle' && h.status !== undefined && h.status !== 'ok' && h.keys.some((k) => keys.includes(k))).length;
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}

export function assess(input: AssessInput): Decision {
  const config = input.config ?? {};
  const minImprovement = num(config.min_expected_improvement, 0.35);
  const posture = input.posture;
  const spends = input.executor.spends_tokens;
  const tier = pickTier(input.work, input.phase);
  const keys = input.work.map((w) => w.key);

  // What the work is worth: the best trigger among the items, less each fruitless repeat.
  const base = Math.max(0, ...input.work.map((w) => BASE_VALUE[w.kind]));
  const repeats = fruitlessRepeats(keys, input.history.slice(-4));
  const improvement = round(Math.max(0, base - 0.3 * repeats));

  const reserveTokens = posture.token_budget === null ? null : Math.max(posture.min_tokens_remaining_for_executor, Math.floor(posture.token_budget * num(config.reserve_fraction, 0.1)));
  const sessionsLeft = Math.max(0, posture.max_autonomous_sessions_per_day - posture.sessions_24h);
  const reserve = { tokens: reserveTokens, sessions: spends ? Math.max(0, sessionsLeft - 1) : sessionsLeft };
  const spendable = posture.tokens_remaining_24h === null || reserveTokens === null ? null : Math.max(0, posture.tokens_remaining_24h - reserveTokens);

  // Go down from the chosen tier until the cost fits what may be spent.
  const alternatives: Decision['alternatives'] = [];
  let chosen = tier;
  let cost = estimateCost(chosen, posture, config, spends);
  while (spends && spendable !== null && cost.tokens > spendable && chosen > 1) {
    alternatives.push({ tier: chosen, tier_name: TIERS[chosen - 1]!, why_not: `~${cost.tokens} tokens is more than the ${spendable} spendable above the reserve` });
    chosen -= 1;
    cost = estimateCost(chosen, posture, config, spends);
  }
  for (let t = 1; t < chosen; t++) {
    alternatives.push({ tier: t, tier_name: TIERS[t - 1]!, why_not: cheaperWhyNot(t, chosen, input.work) });
  }

  // A pricier action must promise more: the bar rises with the share of the day it costs.
  const share = spends && posture.tokens_remaining_24h ? cost.tokens / Math.max(1, posture.tokens_remaining_24h) : 0;
  const bar = round(minImprovement + 0.5 * share + (spends && sessionsLeft <= 1 ? 0.2 : 0));
  const record = {
    tier: chosen,
    tier_name: TIERS[chosen - 1]!,
    decision: decisionText(input, chosen),
    uncertainty: uncertaintyText(input, chosen),
    alternatives: alternatives.sort((a, b) => a.tier - b.tier),
    expected_cost: cost,
    stop_condition: `stop after ~${cost.tokens} tokens or ${cost.wall_seconds} s of wall time, or as soon as ${stopWhen(input, chosen)}`,
    reserve,
    expected_improvement: improvement,
  };

  if (spends && spendable !== null && cost.tokens > spendable) {
    return { ...record, action: 'read_only_planning', reason: `even tier 1 (~${cost.tokens} tokens) exceeds the ${spendable} tokens spendable above the ${reserveTokens}-token reserve` };
  }
  if (improvement < bar) {
    const handoff = chosen === 4 || repeats >= 2;
    const why = repeats > 0 ? `${repeats} recent attempt(s) on the same work changed nothing` : `expected improvement ${improvement} is below the bar of ${bar}`;
    return {
      ...record,
      action: handoff ? 'reviewer_handoff' : 'read_only_planning',
      reason: `${why}; ${handoff ? 'hand off to a reviewer instead of spending more' : 'downshift to read-only planning'}`,
    };
  }
  return { ...record, action: 'execute', reason: `expected improvement ${improvement} clears the bar of ${bar} for ~${cost.tokens} tokens` };
}

function describeWork(work: readonly WorkItem[]): string {
  const titles = work.filter((w) => w.kind !== 'periodic').map((w) => `"${w.title}"`);
  if (titles.length === 0) return 'the periodic patrol';
  return titles.length === 1 ? `work packet ${titles[0]}` : `${titles.length} queued items (${titles.slice(0, 3).join(', ')})`;
}

function decisionText(input: AssessInput, tier: number): string {
  const what = describeWork(input.work);
  switch (tier) {
    case 1:
      return `whether ${what} needs any new work, judged from existing context and local memory (${input.phase})`;
    case 2:
      return `whether the external source behind ${what} is worth citing or acting on`;
    case 3:
      return `what small artifact answers ${what}, and whether it is ready for review`;
    case 4:
      return `which reviewer role should judge ${what} next`;
    case 5:
      return `which analysis or experiment plan best settles ${what}`;
    default:
      return `whether ${what} warrants a challenge, a Senate motion or more resources`;
  }
}

function uncertaintyText(input: AssessInput, tier: number): string {
  const what = describeWork(input.work);
  if (tier <= 2) return `whether anything new bears on ${what}; reading first avoids paying for work that is already done`;
  if (tier === 4) return `whether the current draft for ${what} holds up under another role's review`;
  if (tier === 5) return `which of the competing explanations for ${what} the evidence favours`;
  if (tier === 6) return `whether ${what} justifies other agents' budgets`;
  return `what the answer to ${what} looks like in concrete form`;
}

function stopWhen(input: AssessInput, tier: number): string {
  if (tier <= 2) return 'the context shows the question is already answered';
  if (tier === 4) return 'the review request is filed';
  return `a draft answering ${describeWork(input.work)} exists, or the work proves blocked`;
}

function cheaperWhyNot(t: number, chosen: number, work: readonly WorkItem[]): string {
  if (work.some((w) => w.tier_hint === chosen)) return `the work asks for tier ${chosen}`;
  if (t <= 2) return 'reading alone cannot produce what the work asks for';
  if (t === 3) return 'a small artifact would not settle the question';
  if (t === 4) return 'a review needs something to review first';
  return 'an analysis pass cannot allocate resources or open a challenge';
}
