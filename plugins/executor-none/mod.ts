/** executor.none: always defers, naming the reason the loop gave it (or its own). */
export interface DecideInput {
  phase: string;
  budgetSource: string;
  tokensRemaining: number | null;
}

export function decide(input: DecideInput): { execute: false; deferReason: string } {
  const reason = input.budgetSource === 'none' ? 'no daily token budget: read-only planning only' : 'executor is none: sessions are disabled for this persona';
  return { execute: false, deferReason: `${reason} (phase ${input.phase})` };
}
