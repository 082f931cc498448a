/** executor.none: never runs a session. It says why, so a quiet persona reads as healthy. */
export interface DecideInput {
  phase: string;
  budgetSource: string;
  tokensRemaining: number | null;
}

export function decide(input: DecideInput): { execute: false; deferReason: string } {
  const reason = input.budgetSource === 'none' ? 'no daily token budget: read-only planning only' : 'executor is none: sessions are disabled for this persona';
  return { execute: false, deferReason: `${reason} (phase ${input.phase})` };
}

/** The loop asks every executor whether it spends tokens; this one spends nothing. */
export function describe(): { spends_tokens: boolean } {
  return { spends_tokens: false };
}

/** Called only when a persona enables executor.none explicitly: still nothing to run. */
export function run(input: { phase: string }): { status: 'skipped'; reason: string; work_done: string[] } {
  return { status: 'skipped', reason: `executor is none: sessions are disabled for this persona (phase ${input.phase})`, work_done: [] };
}
