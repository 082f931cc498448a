/**
 * Case 1: plugin cold start, ~200 KB bundle, to the first answered call.
 *
 * project, with code cache:  IsolateRuntime.create (shim from its code cache) + load(bundle
 *                            from its code cache) + callSync('echo'); the caches are held in
 *                            memory, as a running kernel holds them after its first start.
 * project, without cache:    the same with no cached data for shim or bundle (a first start:
 *                            V8 parses everything and is asked to produce a cache).
 * floor:                     raw isolated-vm: new Isolate + createContext + compileScript of
 *                            the same bundle text (with its own code cache) + run + call.
 * alternative:               one `deno run` process per call of the same plugin, importing
 *                            it and printing one echo (Deno's own module cache warm).
 * info:                      IsolateRuntime.create alone, to show the shim's share.
 * Disposing the isolate is done after each timing and not counted.
 */
import path from 'node:path';
import ivm from 'isolated-vm';
import { IsolateRuntime, type CompiledSource } from '../../sandboxes/isolate/isolate-runtime.ts';
import { interleave } from '../lib/interleave.ts';
import { writeBigPlugin } from '../lib/plugin-source.ts';
import { timeRow, verdict, type ResultRow } from '../lib/result-row.ts';
import { brokerFor, buildPlugin, denoRun, runtimeOptions, trustedProfile, type BenchContext } from '../lib/setup.ts';
import { summarize, type Summary } from '../lib/stats.ts';

/** What isolated-vm sets on a compiled script (its typings leave it out). */
type CachedResult = { cachedData?: ivm.ExternalCopy<ArrayBuffer>; cachedDataRejected?: boolean };

const CASE = 'plugin cold start, ~200 KB bundle, to first answered call';

/** The bundle's async module wrapper as a plain function, so raw isolated-vm can call it synchronously. */
function rawCode(bundleCode: string): string {
  if (!bundleCode.startsWith('(async function () {')) throw new Error('bench: unexpected bundle wrapper');
  return `(function () {${bundleCode.slice('(async function () {'.length)}`;
}

const ms = (v: number) => `${v.toFixed(1)} ms`;

/** Why a cold start missed its target, from this run's own figures. */
function coldStartMiss(withCache: Summary, floor: Summary, create: Summary, bare: Summary, speedup: number): string {
  const parts: string[] = [];
  if (withCache.p99 > 10) {
    parts.push(
      `p99 is ${ms(withCache.p99)} (median ${ms(withCache.median)}). Raw isolated-vm doing the same work without the shim took ${ms(floor.median)} median, ${ms(floor.p99)} p99 in the same run${floor.p99 > 10 ? ', so on this machine no path that creates an isolate when the call arrives can meet 10 ms p99' : ''}; a bare new Isolate + createContext alone took ${ms(bare.median)} median, ${ms(bare.p99)} p99; IsolateRuntime.create alone (isolate + shim, before any plugin code) took ${ms(create.median)} median.`,
      'What would close it: take the isolate creation off the critical path: keep one or two isolates per tier created in advance with the shim installed, refilled in the background after each use, so a cold start is only the bundle load from code cache and the first call; and shrink what the shim evaluates at install time.',
    );
  }
  if (speedup < 3) parts.push(`It is only ${speedup.toFixed(1)}x faster than one deno run per call (target 3x).`);
  return parts.join(' ');
}

export async function coldStart(ctx: BenchContext): Promise<ResultRow[]> {
  const dir = path.join(ctx.tmp, 'big-plugin');
  const entry = writeBigPlugin(dir);
  const plugin = await buildPlugin(ctx, entry);
  const profile = trustedProfile();
  const broker = brokerFor(profile, [], dir, {});
  const options = runtimeOptions(profile, broker);

  const raw = rawCode(plugin.bundle.code);
  const rawCache = (() => {
    const isolate = new ivm.Isolate({ memoryLimit: profile.limits.memoryMb });
    const script = isolate.compileScriptSync(raw, { filename: 'raw-plugin.js', produceCachedData: true }) as ivm.Script & CachedResult;
    const data = script.cachedData!;
    isolate.dispose();
    return data;
  })();

  // V8 calls back with new data only when it rejected what it was given: counted, to prove the "with cache" rows used it.
  let rejected = 0;
  const warmShim: CompiledSource = { ...ctx.shim, onCachedData: () => void rejected++ };
  const warmPlugin: CompiledSource = { ...plugin.warm, onCachedData: () => void rejected++ };

  let live: { dispose(): void } | undefined;
  const dispose = () => {
    live?.dispose();
    live = undefined;
  };

  const project = (shim: CompiledSource, bundle: CompiledSource) => async () => {
    const runtime = IsolateRuntime.create(shim, options);
    live = runtime;
    await runtime.load(bundle);
    const answer = runtime.callSync('echo', [{ n: 1 }]) as { n: number };
    if (answer.n !== 1) throw new Error('bench: wrong echo');
  };
  const rawRun = (cached: boolean) => () => {
    const isolate = new ivm.Isolate({ memoryLimit: profile.limits.memoryMb });
    live = isolate;
    const context = isolate.createContextSync();
    const script = isolate.compileScriptSync(raw, { filename: 'raw-plugin.js', ...(cached ? { cachedData: rawCache } : {}) }) as ivm.Script & CachedResult;
    if (cached && script.cachedDataRejected) throw new Error('bench: raw code cache rejected');
    const main = script.runSync(context, { reference: true }) as ivm.Reference;
    const ns = main.applySync(undefined, [], { result: { reference: true } }) as ivm.Reference;
    const echo = ns.getSync('echo', { reference: true }) as ivm.Reference;
    const answer = echo.applySync(undefined, [{ n: 1 }], { arguments: { copy: true }, result: { copy: true } }) as { n: number };
    if (answer.n !== 1) throw new Error('bench: wrong echo');
  };
  const deno = () => {
    const out = denoRun(ctx, [path.join(dir, 'deno-main.ts')], dir);
    if (out.trim() !== '{"n":1}') throw new Error(`bench: deno answered ${out}`);
  };

  const budget = ctx.quick ? { warmup: 5, rounds: 40 } : { warmup: 20, rounds: 250 };
  const denoEvery = ctx.quick ? 5 : 8;
  ctx.log(`  cold start: bundle ${Math.round(plugin.bundle.size / 1024)} KB, ${budget.rounds} rounds (deno every ${denoEvery})`);
  const samples = await interleave(
    [
      { name: 'with', run: project(warmShim, warmPlugin), after: dispose },
      { name: 'without', run: project(ctx.shimNoCache, plugin.cold), after: dispose },
      {
        name: 'isolate-only',
        run: () => {
          const isolate = new ivm.Isolate({ memoryLimit: profile.limits.memoryMb });
          live = isolate;
          isolate.createContextSync();
        },
        after: dispose,
      },
      {
        name: 'shim-only',
        run: () => {
          live = IsolateRuntime.create(ctx.shim, options);
        },
        after: dispose,
      },
      { name: 'raw-cached', run: rawRun(true), after: dispose },
      { name: 'raw', run: rawRun(false), after: dispose },
      { name: 'deno', run: deno, every: denoEvery },
    ],
    budget,
  );
  if (rejected > 0) ctx.log(`  warning: V8 rejected the code cache ${rejected} time(s)`);
  const s = (name: string) => summarize(samples.get(name)!);
  const floor = s('raw-cached');
  const withCache = s('with');
  const denoRun1 = s('deno');
  const speedup = denoRun1.median / withCache.median;
  const met = withCache.p99 <= 10 && speedup >= 3;
  const sizeNote = `bundle ${Math.round(plugin.bundle.size / 1024)} KB of bundled module (900 small functions + an 850-row data table, three source files)`;
  return [
    timeRow({
      case: CASE,
      variant: 'trusted tier, with V8 code cache (shim + bundle)',
      role: 'project',
      summary: withCache,
      unit: 'ms',
      floor,
      target: '≤ 10 ms p99 and ≥ 3x faster than one deno run',
      verdict: verdict(met),
      note: `${sizeNote}; IsolateRuntime.create + load + callSync('echo'); ${speedup.toFixed(1)}x faster than deno run (median); caches held in memory, as a running kernel holds them; V8 rejected the code cache ${rejected} time(s) in this run.`,
      whyMissed: coldStartMiss(withCache, floor, s('shim-only'), s('isolate-only'), speedup),
    }),
    timeRow({
      case: CASE,
      variant: 'trusted tier, without code cache',
      role: 'project',
      summary: s('without'),
      unit: 'ms',
      floor,
      note: 'no cached data for the shim or the bundle; V8 parses both and is asked to produce a code cache, as on the very first start.',
    }),
    timeRow({ case: CASE, variant: 'of which: IsolateRuntime.create alone (isolate + shim from code cache)', role: 'info', summary: s('shim-only'), unit: 'ms', floor, note: 'the part of a cold start spent before the plugin is touched: new isolate, context, the shim compiled from its code cache and installed.' }),
    timeRow({ case: CASE, variant: 'raw isolated-vm, with code cache', role: 'floor', summary: floor, unit: 'ms', note: 'new Isolate + createContext + compileScript (cachedData) + run + applySync(echo) of the same bundle text, no shim.' }),
    timeRow({ case: CASE, variant: 'raw isolated-vm, without code cache', role: 'info', summary: s('raw'), unit: 'ms', floor }),
    timeRow({ case: CASE, variant: 'of which: raw new Isolate + createContext alone', role: 'info', summary: s('isolate-only'), unit: 'ms', floor, note: 'the part of any cold start that no code cache can remove.' }),
    timeRow({
      case: CASE,
      variant: 'one `deno run` process per call',
      role: 'alternative',
      summary: denoRun1,
      unit: 'ms',
      floor,
      note: `the real Deno: \`deno run\` of a script importing the same plugin source and printing one echo; Deno's module cache (DENO_DIR) warm; includes process start and exit.`,
    }),
  ];
}
