/**
 * "Did you mean": the one small helper every typo check uses (unknown environment
 * variables, persona ids, skill names, subcommands). A suggestion is made only when exactly
 * one candidate is close: two near misses are as likely as each other, and guessing between
 * them would mislead.
 */

/** Damerau-Levenshtein distance (optimal string alignment: a swap of two neighbours is one edit). */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) => {
    const row = new Array<number>(cols).fill(0);
    row[0] = i;
    return row;
  });
  for (let j = 0; j < cols; j++) d[0]![j] = j;
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[rows - 1]![cols - 1]!;
}

/** The edits a word of this length may be off by and still be a typo of a candidate. */
function tolerance(length: number): number {
  return length <= 3 ? 1 : length <= 8 ? 2 : 3;
}

/** The one candidate `input` is a likely typo of, or undefined (none close, or more than one). */
export function closestMatch(input: string, candidates: Iterable<string>): string | undefined {
  const needle = input.toLowerCase();
  const limit = tolerance(needle.length);
  let found: string | undefined;
  let best = Number.POSITIVE_INFINITY;
  let ties = 0;
  for (const candidate of new Set(candidates)) {
    if (candidate === input) return undefined;
    const distance = editDistance(needle, candidate.toLowerCase());
    if (distance > limit) continue;
    if (distance < best) {
      best = distance;
      found = candidate;
      ties = 1;
    } else if (distance === best) ties += 1;
  }
  return ties === 1 ? found : undefined;
}

/** ` (did you mean "x"?)` when there is one close candidate, else '': put it right after the word it corrects. */
export function didYouMean(input: string, candidates: Iterable<string>): string {
  const match = closestMatch(input, candidates);
  return match === undefined ? '' : ` (did you mean "${match}"?)`;
}
