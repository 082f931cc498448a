/** Summary statistics of timing samples: median and p99 by nearest rank, no interpolation. */
export interface Summary {
  n: number;
  median: number;
  p99: number;
  min: number;
  max: number;
  mean: number;
}

/** The value at quantile q (0..1) of an ascending array, by nearest rank. */
export function quantile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil(q * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))]!;
}

export function summarize(samples: readonly number[]): Summary {
  const sorted = Float64Array.from(samples).sort();
  const sum = sorted.reduce((a, b) => a + b, 0);
  return {
    n: sorted.length,
    median: quantile(sorted, 0.5),
    p99: quantile(sorted, 0.99),
    min: sorted[0] ?? Number.NaN,
    max: sorted[sorted.length - 1] ?? Number.NaN,
    mean: sorted.length ? sum / sorted.length : Number.NaN,
  };
}

/** Multiplies every figure of a summary (a unit change, or per-item cost of a batch). */
export function scale(summary: Summary, factor: number): Summary {
  return {
    n: summary.n,
    median: summary.median * factor,
    p99: summary.p99 * factor,
    min: summary.min * factor,
    max: summary.max * factor,
    mean: summary.mean * factor,
  };
}
