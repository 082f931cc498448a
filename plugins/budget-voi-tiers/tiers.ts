/**
 * The spec's six budget tiers, how a cycle's work maps onto one, and what each costs. The tier
 * names are also kernel/contracts/budget-policy.ts's TIER_NAMES: a plugin bundles only what it
 * imports by value, and importing the kernel by relative path would tie a copy of this folder
 * to the checkout, so the six names are written here too (the kernel checks `tier` by number).
 */

export const TIERS = [
  'read/search existing context',
  'profile a bounded external source',
  'draft or update a small artifact',
  'request review from another role',
  'run an analysis, benchmark or experiment-planning pass',
  'escalate to challenge, Senate or resource allocation',
] as const;

export interface Cost {
  tokens: number;
  cpu_seconds: number;
  wall_seconds: number;
}

/** Expected tokens and wall seconds of one executor session at each tier (profile config may replace them). */
const DEFAULT_TOKENS = [4000, 12000, 25000, 8000, 60000, 15000];
const DEFAULT_WALL = [120, 300, 600, 120, 1800, 300];

/** What a phase usually asks of new work when the work itself names no tier. */
const PHASE_TIER: Record<string, number> = { science_patrol: 3, science_compute_patrol: 5, governance_patrol: 4 };

export function pickTier(work: readonly { kind: string; tier_hint?: number }[], phase: string): number {
  const hinted = work.map((w) => w.tier_hint).filter((t): t is number => typeof t === 'number' && t >= 1 && t <= 6);
  if (hinted.length > 0) return Math.max(...hinted);
  if (work.some((w) => w.kind === 'packet')) return PHASE_TIER[phase] ?? 3;
  if (work.some((w) => w.kind === 'message')) return 3;
  return 1;
}

function table(value: unknown, fallback: readonly number[]): readonly number[] {
  return Array.isArray(value) && value.length === 6 && value.every((v) => typeof v === 'number' && v >= 0) ? (value as number[]) : fallback;
}

export function estimateCost(
  tier: number,
  posture: { max_tokens_per_session: number | null; wall_seconds_per_cycle: number; cpu_seconds_per_cycle: number },
  config: Record<string, unknown>,
  spendsTokens: boolean,
): Cost {
  const tokens = table(config.tier_tokens, DEFAULT_TOKENS)[tier - 1] ?? 0;
  const wall = table(config.tier_wall_seconds, DEFAULT_WALL)[tier - 1] ?? 0;
  const cap = posture.max_tokens_per_session;
  return {
    tokens: spendsTokens ? (cap === null ? tokens : Math.min(tokens, cap)) : 0,
    cpu_seconds: posture.cpu_seconds_per_cycle,
    wall_seconds: Math.min(wall, posture.wall_seconds_per_cycle),
  };
}
