/**
 * Which worker runs which persona: round robin in the order given, so a fleet of similar
 * personas splits evenly and each persona is in exactly one share. Never more workers than
 * personas (an empty worker would cost a thread and a kernel for nothing).
 */
export function assignShares<T>(personas: readonly T[], workers: number): T[][] {
  const count = Math.max(1, Math.min(workers, personas.length));
  const shares: T[][] = Array.from({ length: count }, () => []);
  personas.forEach((p, i) => shares[i % count]!.push(p));
  return shares;
}
