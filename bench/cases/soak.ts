/**
 * Issue 24 item 8: the soak (bench/lib/soak/driver.ts). Not part of a full `npm run bench`: it
 * runs for its --minutes (default 60) when asked by name, `npm run bench -- --only=soak`, with
 * --minutes, --personas, --kill-every (minutes), --fault-every (cycles), and --cycle-seconds,
 * --session-every, --sample-every, --warmup-minutes. Its rows: the kernel's RSS slope (per 10k
 * cycles and per hour, least squares past each life's warm-up), the descriptors' slope, and the
 * verification (every chain, every acknowledged cycle). A run shorter than 60 minutes says so.
 */
import path from 'node:path';
import { PROJECT_ROOT } from '../../kernel/version.ts';
import { runSoak, type SoakResult } from '../lib/soak/driver.ts';
import { soakOptions, type SoakOptions } from '../lib/soak/options.ts';
import type { Fit } from '../lib/soak/slopes.ts';
import { verdict, type ResultRow } from '../lib/result-row.ts';
import type { BenchContext } from '../lib/setup.ts';

const CASE = 'soak: one kernel, forever (issue 24)';
/** The goal: RSS flat within 1% per 10k cycles after warm-up. */
const FLAT_PERCENT_PER_10K = 1;

function percent(fit: Fit | undefined): number | undefined {
  return fit && fit.meanY > 0 ? (fit.slope / fit.meanY) * 100 : undefined;
}

function round(n: number | undefined, digits = 3): number | undefined {
  return n === undefined ? undefined : Math.round(n * 10 ** digits) / 10 ** digits;
}

export function soakRows(r: SoakResult): ResultRow[] {
  const o: SoakOptions = r.options;
  const short = o.minutes < 60;
  const variant = `${o.personas} personas, ${o.minutes} min, kill -9 every ${o.killEvery || 'never'} min, a fault every ${o.faultEvery} cycles, ${r.lives} kernel lives${short ? ' (a short run: indicative only)' : ''}`;
  const rss10k = percent(r.rss.per10k);
  const rssHour = percent(r.rss.perHour);
  const out = path.relative(PROJECT_ROOT, r.samplesFile);
  const measured = rss10k !== undefined;
  const flat = measured && Math.abs(rss10k) < FLAT_PERCENT_PER_10K;
  const verified = r.verify.ok && r.lost.length === 0 && r.faults.spilled === 0;
  return [
    {
      case: CASE,
      variant: `kernel RSS: ${variant}`,
      role: 'project',
      unit: '% per 10k cycles',
      ...(rss10k !== undefined ? { median: round(rss10k)! } : {}),
      samples: r.rss.per10k?.points ?? 0,
      target: `< ${FLAT_PERCENT_PER_10K}% per 10k cycles after ${o.warmupMinutes} min of each life`,
      verdict: short ? 'full run only' : verdict(flat),
      note: measured
        ? `${round(r.rss.per10k!.slope, 2)} MiB per 10k cycles and ${round(r.rss.perHour?.slope, 2)} MiB per hour (${round(rssHour, 2)}% per hour) around a mean of ${round(r.rss.per10k!.meanY, 1)} MiB, pooled within each kernel life (${r.rss.per10k!.lives} lives) by least squares; the kernel's children (sandbox hosts, sessions): ${round(r.childrenRss.perHour?.slope, 2)} MiB per hour. ${r.acknowledged} cycles, ${r.fed} work packets given, ${r.sessions} agent sessions, ${r.faults.failed} of ${r.faults.expected} scheduled faults contained. Samples: ${out}.`
        : `no slope: too few samples past the warm-up (${o.warmupMinutes} min of each life); see ${out}`,
      whyMissed: measured && !flat ? `RSS grew ${round(rss10k, 2)}% per 10k cycles: see the samples (${out}) for where` : '',
    },
    {
      case: CASE,
      variant: `kernel open descriptors: ${variant}`,
      role: 'project',
      unit: 'fds per 10k cycles',
      ...(r.fds.per10k ? { median: round(r.fds.per10k.slope, 2)! } : {}),
      samples: r.fds.per10k?.points ?? 0,
      target: 'flat',
      verdict: short ? 'full run only' : verdict(r.fds.per10k !== undefined && Math.abs(r.fds.per10k.slope) < 1),
      note: r.fds.per10k ? `${round(r.fds.perHour?.slope, 2)} per hour around a mean of ${round(r.fds.per10k.meanY, 1)} open descriptors` : 'no slope: too few samples past the warm-up',
      whyMissed: '',
    },
    {
      case: CASE,
      variant: `every chain verified, nothing acknowledged lost: ${variant}`,
      role: 'project',
      unit: 'cycles',
      median: r.acknowledged,
      target: 'verify --full passes for every persona; every acknowledged cycle is in its log; faults stay in their cycle',
      verdict: verdict(verified),
      note: `verify --full: ${r.verify.ok ? `ok for ${r.verify.personas} personas` : `FAILED: ${r.verify.error ?? r.verify.failed.slice(0, 3).join('; ')}`}${r.verify.state.length ? ` (state checks apart: ${r.verify.state.join('; ')})` : ''}; acknowledged cycles missing from a log after ${r.lives - 1} kill -9 restarts: ${r.lost.length}${r.lost.length ? ` (${r.lost.slice(0, 3).join('; ')})` : ''}; faults by kind: ${Object.entries(r.faults.byKind).map(([k, n]) => `${k} ${n}`).join(', ')}; failures off the fault schedule: ${r.faults.spilled}; kernels that exited by themselves: ${r.unexpectedExits.length}${r.unexpectedExits.length ? ` (${r.unexpectedExits[0]})` : ''}; agents' review.propose calls: ${r.proposals.calls} (queued ${r.proposals.queued}; refused ${Object.entries(r.proposals.refused).map(([k, n]) => `${k} ${n}`).join(", ") || "none"}); OS sandbox ${r.osSandbox ? "bubblewrap" : "off"}. Summary: ${path.relative(PROJECT_ROOT, r.summaryFile)}.`,
      whyMissed: verified ? '' : 'see the note and the summary file',
    },
  ];
}

export async function soak(ctx: BenchContext): Promise<ResultRow[]> {
  const options = soakOptions(ctx.soak ?? {});
  return soakRows(await runSoak(options, ctx.tmp, ctx.log));
}
