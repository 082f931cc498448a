/**
 * Run in its own Node process by cases/persona-memory.ts, so resident memory is measured
 * from a clean start; prints one JSON line on stdout.
 *   argv: <project|raw> <count> <cacheDir> <scratchDir>
 *   project: one LoopKernel (the baseline is taken after it is open), COUNT generated
 *            jerome-shaped personas with executor `none` opened in it, a work packet in
 *            every inbox and one cycle of each, side by side (so the executor and the budget
 *            policy are both built and called); all kept open.
 *   raw:     COUNT × 2 bare isolated-vm isolates, one per plugin per persona, each holding
 *            its plugin's bundle (executor.none, budget.voi-tiers) run in a context, with
 *            the executor answering `describe()`: no shim, no broker, no persona state.
 */
import { scienceReport } from '../../features/science-loop/report.ts';
import path from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import ivm from 'isolated-vm';
import { bundleEntry } from '../../sandboxes/loader/bundle.ts';
import { PROJECT_ROOT } from '../../kernel/version.ts';
import { openBenchKernel, openFleet } from '../lib/bench-personas.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const [kind, countText, cacheDir, scratch] = process.argv.slice(2);
const count = Number(countText);
if ((kind !== 'project' && kind !== 'raw') || !Number.isInteger(count) || !cacheDir || !scratch) {
  throw new Error('usage: persona-memory-child.ts <project|raw> <count> <cacheDir> <scratchDir>');
}

/** The plugins a persona with executor `none` runs, with the limits their manifests give. */
const PLUGINS = [
  { entry: path.join(PROJECT_ROOT, 'plugins', 'executor-none', 'mod.ts'), memoryMb: 16, call: 'describe' },
  { entry: path.join(PROJECT_ROOT, 'plugins', 'budget-voi-tiers', 'mod.ts'), memoryMb: 16, call: undefined },
] as const;

const settle = async () => {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

const keep: unknown[] = [];
let before = 0;
let heapBefore = 0;
let openSeconds = 0;
const started = performance.now();

if (kind === 'project') {
  // The kernel's fixed cost (modules, shim, plugin directory) is the baseline: open, no persona yet.
  const kernel = await openBenchKernel(scratch, cacheDir);
  await settle();
  before = process.memoryUsage().rss;
  heapBefore = process.memoryUsage().heapUsed;
  const t0 = performance.now();
  const fleet = await openFleet(kernel, count, 'none');
  openSeconds = (performance.now() - t0) / 1000;
  fleet.packets(0);
  const reports = await fleet.cycle();
  if (reports.some((r) => scienceReport(r).act.decision === null)) throw new Error('a cycle did not call the budget policy');
  keep.push(fleet);
} else {
  const sources = await Promise.all(
    PLUGINS.map(async (p) => {
      const bundle = await bundleEntry(p.entry, cacheDir);
      // The bundle is an async function expression returning the exports; run it synchronously here.
      return { ...p, code: `(function () {${bundle.code.slice('(async function () {'.length)}` };
    }),
  );
  await settle();
  before = process.memoryUsage().rss;
  heapBefore = process.memoryUsage().heapUsed;
  for (let i = 0; i < count; i++) {
    for (const p of sources) {
      const isolate = new ivm.Isolate({ memoryLimit: p.memoryMb });
      const context = isolate.createContextSync();
      const main = isolate.compileScriptSync(p.code).runSync(context, { reference: true }) as ivm.Reference;
      const ns = main.applySync(undefined, [], { result: { reference: true } }) as ivm.Reference;
      if (p.call) {
        const fn = ns.getSync(p.call, { reference: true }) as ivm.Reference;
        const answer = fn.applySync(undefined, [], { result: { copy: true } }) as { spends_tokens: boolean };
        if (answer.spends_tokens !== false) throw new Error('wrong describe answer');
      }
      keep.push({ isolate, context, ns });
    }
  }
}
const seconds = (performance.now() - started) / 1000;
await settle();
const usage = process.memoryUsage();
process.stdout.write(`${JSON.stringify({ kind, count, before, after: usage.rss, heapBefore, heapAfter: usage.heapUsed, openSeconds, seconds, alive: keep.length })}\n`);
// Exit without closing: the OS takes it all back, and dispose-then-exit has crashed before.
process.exit(0);
