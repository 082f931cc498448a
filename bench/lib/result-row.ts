/**
 * One line of the results table. Times are summarized by median and p99 of the samples;
 * rates (events per second) and sizes are single figures in `median` with p99 left out.
 */
import { scale, type Summary } from './stats.ts';

export type Role = 'project' | 'floor' | 'alternative' | 'info';

export type Verdict = 'met' | 'missed' | 'full run only';

export interface ResultRow {
  case: string;
  variant: string;
  role: Role;
  unit: string;
  median?: number;
  p99?: number;
  samples?: number;
  /**
   * For times: this row's median / the floor's median (1 = the floor, lower is better).
   * For rates: this row's rate / the floor's rate (higher is better).
   */
  ratio?: number;
  target?: string;
  verdict?: Verdict;
  /** what exactly was measured, or why there is no figure */
  note?: string;
  /** said in the closing notes when the verdict is "missed": why, and what would close it */
  whyMissed?: string;
}

/** `auto`: µs below 1 ms (by the median), ms from there up. */
export type TimeUnit = 'ms' | 'µs' | 'auto';

/** A time row from a summary in milliseconds. */
export function timeRow(
  fields: Omit<ResultRow, 'unit' | 'median' | 'p99' | 'samples' | 'ratio'> & { summary: Summary; unit: TimeUnit; floor?: Summary },
): ResultRow {
  const { summary, floor, ...rest } = fields;
  const unit = fields.unit === 'auto' ? (summary.median >= 1 ? 'ms' : 'µs') : fields.unit;
  const shown = unit === 'µs' ? scale(summary, 1000) : summary;
  return {
    ...rest,
    unit,
    median: shown.median,
    p99: shown.p99,
    samples: summary.n,
    ...(floor ? { ratio: summary.median / floor.median } : {}),
  };
}

export function verdict(met: boolean): Verdict {
  return met ? 'met' : 'missed';
}
