/**
 * Case 5c: resident memory per persona at 1, 100 and 1,000 personas in one kernel process,
 * next to "one isolate per plugin per persona" done raw. Each figure comes from a fresh Node
 * process (cases/persona-memory-child.ts), so one measurement's leftovers never count in
 * another:
 *   project: RSS after opening N personas (executor `none`, jerome-shaped profiles) in one
 *            LoopKernel and running one cycle of each with a work packet, minus the RSS of
 *            the same process with the kernel open and no persona, divided by N;
 *   floor:   the RSS growth of N × 2 bare isolates (a persona with executor `none` runs two
 *            plugins: executor.none and budget.voi-tiers) holding the same bundles, / N.
 * The target is judged on the whole process at 1,000 personas. The quick mode stops at 100.
 */
import { DEFAULT_MAX_RESIDENT_ISOLATES } from '../../features/persona/resident-isolates.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CYCLE_SECONDS, PLUGINS_PER_PERSONA } from '../lib/bench-personas.ts';
import { verdict, type ResultRow } from '../lib/result-row.ts';
import type { BenchContext } from '../lib/setup.ts';
import { BUDGET_MIB, MIB, runMemoryChild } from '../lib/memory-child.ts';

const CASE = 'resident memory per persona';
const TARGET = '1,000 personas in < 2 GiB (whole process RSS)';
const CHILD = fileURLToPath(new URL('./persona-memory-child.ts', import.meta.url));

interface ChildReport {
  kind: string;
  count: number;
  before: number;
  after: number;
  heapBefore: number;
  heapAfter: number;
  openSeconds: number;
  seconds: number;
}

function measure(ctx: BenchContext, kind: 'project' | 'raw', count: number): ChildReport {
  const scratch = mkdtempSync(path.join(ctx.tmp, `persona-memory-${kind}-`));
  try {
    return runMemoryChild<ChildReport>(ctx, CHILD, [kind, String(count), ctx.cacheDir, scratch], `persona memory child ${kind} ${count}`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

const personas = (n: number) => `${n.toLocaleString('en-US')} persona${n === 1 ? '' : 's'}`;

function whyMissed(totalMib: number, perProject: number, perRaw: number, heapPer: number): string {
  const rawTotal = 1000 * perRaw;
  return `1,000 personas took the process to ${totalMib.toFixed(0)} MiB RSS, ${perProject.toFixed(2)} MiB a persona. Of that, the kernel's own heap grew ${heapPer.toFixed(2)} MiB a persona (persona state, broker contexts, skill catalog, plugin instances); the rest is outside the JS heap: the persona's ${PLUGINS_PER_PERSONA} isolates (one per plugin, each with its own V8 heap, the shim's globals and compiled code). Two bare isolates holding the same bundles already cost ${perRaw.toFixed(2)} MiB a persona (${rawTotal.toFixed(0)} MiB for 1,000), so "one isolate per plugin per persona" ${rawTotal < BUDGET_MIB ? 'fits 2 GiB only without the shim and persona state' : 'cannot fit 2 GiB even raw'}. What would close it: fewer isolates per persona: one isolate per plugin shared by the personas that run it (a context per persona, the broker choosing the persona's grant per call), or one isolate per persona holding both plugins; or keep only the isolates of personas in a cycle resident and rebuild the others from the code cache when their cycle comes (a few ms each, at most one cycle every ${CYCLE_SECONDS} s per persona).`;
}

export async function personaMemory(ctx: BenchContext): Promise<ResultRow[]> {
  const rows: ResultRow[] = [];
  for (const count of ctx.quick ? [1, 100] : [1, 100, 1000]) {
    ctx.log(`  persona memory: ${personas(count)}`);
    const project = measure(ctx, 'project', count);
    const raw = measure(ctx, 'raw', count);
    const perProject = (project.after - project.before) / count / MIB;
    const perRaw = (raw.after - raw.before) / count / MIB;
    const heapPer = (project.heapAfter - project.heapBefore) / count / MIB;
    const totalMib = project.after / MIB;
    const isThousand = count === 1000;
    rows.push({
      case: CASE,
      variant: `${personas(count)}, executor \`none\`, per persona`,
      role: 'project',
      unit: 'MiB',
      median: perProject,
      ratio: perProject / perRaw,
      ...(isThousand ? { target: TARGET, verdict: verdict(totalMib < BUDGET_MIB), whyMissed: whyMissed(totalMib, perProject, perRaw, heapPer) } : {}),
      note: `RSS growth of a fresh process / ${count} (one figure, gc'd before and after) from the kernel opened with no persona (${(project.before / MIB).toFixed(0)} MiB) to ${personas(count)} open, each after one cycle with a work packet (executor and budget policy built and called; the kernel keeps at most ${DEFAULT_MAX_RESIDENT_ISOLATES} plugin isolates resident across personas, releasing the least recently used after each call, so past ${DEFAULT_MAX_RESIDENT_ISOLATES / 2} personas the rest are rebuilt on their next cycle); whole process ${totalMib.toFixed(0)} MiB after, of which the kernel's JS heap grew ${heapPer.toFixed(2)} MiB a persona. Opening took ${project.openSeconds.toFixed(1)} s, opening and the cycle ${project.seconds.toFixed(1)} s.${isThousand ? ` 1,000 personas ${totalMib < BUDGET_MIB ? 'fit' : 'do NOT fit'} in 2 GiB.` : ''}`,
    });
    rows.push({
      case: CASE,
      variant: `${personas(count)}: one bare isolate per plugin per persona (${count * PLUGINS_PER_PERSONA} isolates), per persona`,
      role: 'floor',
      unit: 'MiB',
      median: perRaw,
      note: `new Isolate + createContext + the plugin's bundle run, ${PLUGINS_PER_PERSONA} per persona (executor.none answering describe(), budget.voi-tiers), no shim, no broker, no persona state; whole process ${(raw.after / MIB).toFixed(0)} MiB after.`,
    });
  }
  if (ctx.quick) {
    rows.push({
      case: CASE,
      variant: '1,000 personas, executor `none`, per persona',
      role: 'project',
      unit: 'MiB',
      target: TARGET,
      verdict: 'full run only',
      note: 'measured in the full run only (`npm run bench`): the quick mode stops at 100 personas (the first cycle of 1,000 builds 2,000 isolates).',
    });
  }
  return rows;
}
