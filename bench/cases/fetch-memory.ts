/**
 * Case (issue 12, item 8): the kernel's peak resident memory while one sandboxed script
 * (default profile, process tier) runs 200 concurrent fetches of 5 MB each from a local
 * HTTP server. Before the run scope, every body was buffered in the kernel at once (2.09 GB
 * peak on the machine, the host process killed by its RSS cap); now a run has at
 * most 8 fetches in flight, their bytes capped together, each answer's slot held until it
 * has left through the pipe. The figure is the child kernel's VmHWM (cases/fetch-memory-child.ts,
 * a fresh process so nothing else counts), with a run of 400 fetches beside it: the peak
 * must not grow with the number of fetches.
 */
import { fileURLToPath } from 'node:url';
import { MIB, runMemoryChild } from '../lib/memory-child.ts';
import type { ResultRow } from '../lib/result-row.ts';
import type { BenchContext } from '../lib/setup.ts';

const CASE = "kernel peak RSS, one script's concurrent 5 MB fetches (default profile)";
const CHILD = fileURLToPath(new URL('./fetch-memory-child.ts', import.meta.url));
const SIZE = 5 * 1024 * 1024;

interface ChildReport {
  count: number;
  before: number;
  peak: number;
  seconds: number;
  exitCode: number;
  outcome: { ok?: number; failed?: number } | null;
}

export function fetchMemory(ctx: BenchContext): ResultRow[] {
  const rows: ResultRow[] = [];
  for (const count of ctx.quick ? [200] : [200, 400]) {
    ctx.log(`  fetch-memory: ${count} concurrent fetches of 5 MB`);
    const r = runMemoryChild<ChildReport>(ctx, CHILD, [String(count), String(SIZE), ctx.cacheDir], `fetch-memory child ${count}`);
    rows.push({
      case: CASE,
      variant: `${count} concurrent fetches: peak RSS of the kernel process`,
      role: 'project',
      unit: 'MiB',
      median: r.peak / MIB,
      note: `VmHWM of a fresh kernel process (${(r.before / MIB).toFixed(0)} MiB before the run); the script's fetches: ${r.outcome?.ok ?? '?'} ok, ${r.outcome?.failed ?? '?'} failed, exit ${r.exitCode}, ${r.seconds.toFixed(1)} s; ${((count * SIZE) / MIB).toFixed(0)} MiB fetched in all. Reproduce one figure: node --no-node-snapshot --import tsx bench/cases/fetch-memory-child.ts ${count} ${SIZE} <cacheDir>.`,
    });
  }
  return rows;
}
