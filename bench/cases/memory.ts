/**
 * Case 5b: resident memory of "one isolate per plugin": the resident-set growth of a fresh
 * Node process after creating 1, 100 and 1,000 trusted-tier isolates, each with the shim and
 * a small plugin loaded and answering a call, next to bare isolated-vm isolates with the
 * same plugin (the floor). Each count runs in its own child process (cases/memory-child.ts)
 * so one measurement's leftovers never count in another. A persona's own memory cannot be
 * measured before the persona loop exists; these rows bound its isolate part.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleEntry } from '../../sandboxes/loader/bundle.ts';
import { writeSmallPlugin } from '../lib/plugin-source.ts';
import { verdict, type ResultRow } from '../lib/result-row.ts';
import type { BenchContext } from '../lib/setup.ts';
import { BUDGET_MIB, MIB, runMemoryChild } from '../lib/memory-child.ts';

const CASE = 'resident memory, one isolate per plugin (trusted tier)';
const CHILD = fileURLToPath(new URL('./memory-child.ts', import.meta.url));

interface ChildReport {
  kind: string;
  count: number;
  before: number;
  after: number;
  seconds: number;
}

function measure(ctx: BenchContext, kind: 'project' | 'raw', count: number, entry: string): ChildReport {
  return runMemoryChild<ChildReport>(ctx, CHILD, [kind, String(count), ctx.cacheDir, entry], `memory child ${kind} ${count}`);
}

export async function memory(ctx: BenchContext): Promise<ResultRow[]> {
  const entry = writeSmallPlugin(path.join(ctx.tmp, 'small-plugin'));
  await bundleEntry(entry, ctx.cacheDir);
  const rows: ResultRow[] = [];
  // 1,000 trusted isolates take tens of seconds to create; the quick mode stops at 100.
  for (const count of ctx.quick ? [1, 100] : [1, 100, 1000]) {
    ctx.log(`  memory: ${count} isolates`);
    const project = measure(ctx, 'project', count, entry);
    const raw = measure(ctx, 'raw', count, entry);
    const perProject = (project.after - project.before) / count / MIB;
    const perRaw = (raw.after - raw.before) / count / MIB;
    const totalMib = project.after / MIB;
    const isThousand = count === 1000;
    rows.push({
      case: CASE,
      variant: `${count.toLocaleString('en-US')} isolate${count === 1 ? '' : 's'} with shim + small plugin, per isolate`,
      role: 'project',
      unit: 'MiB',
      median: perProject,
      ratio: perProject / perRaw,
      ...(isThousand
        ? {
            target: '1,000 in < 2 GiB (whole process RSS)',
            verdict: verdict(totalMib < BUDGET_MIB),
            whyMissed: `1,000 isolates took the process to ${totalMib.toFixed(0)} MiB RSS (${perProject.toFixed(2)} MiB each, of which a bare isolate with the plugin is ${perRaw.toFixed(2)} MiB): the cost is per isolate (V8's heap pages and the shim's globals and compiled code, which every isolate holds again). Closing it: share one isolate among a persona's plugins of the same trust (one context each), or keep only active personas' isolates resident and rebuild the others from code cache on demand.`,
          }
        : {}),
      note: `RSS growth of a fresh process / ${count} (one figure, gc'd before and after); whole process ${totalMib.toFixed(0)} MiB after; created in ${project.seconds.toFixed(2)} s.${isThousand ? ` 1,000 would ${totalMib < BUDGET_MIB ? '' : 'NOT '}fit in 2 GiB.` : ''}`,
    });
    rows.push({
      case: CASE,
      variant: `${count.toLocaleString('en-US')} bare isolate${count === 1 ? '' : 's'} with the same plugin, per isolate`,
      role: 'floor',
      unit: 'MiB',
      median: perRaw,
      note: `new Isolate + createContext + the plugin bundle run, no shim; whole process ${(raw.after / MIB).toFixed(0)} MiB after.`,
    });
  }
  if (ctx.quick) {
    rows.push({ case: CASE, variant: '1,000 isolates with shim + small plugin, per isolate', role: 'project', unit: 'MiB', target: '1,000 in < 2 GiB (whole process RSS)', verdict: 'full run only', note: 'measured in the full run only (`npm run bench`); the quick mode stops at 100.' });
  }
  return rows;
}
