/**
 * Case 2b: a broker op round trip from inside a trusted-tier isolate.
 *
 * project: a plugin export doing N `Deno.env.get('BENCH_X')` calls (granted by
 *          --allow-env=BENCH_X): each is shim → ivm.Callback → broker (parse, grant check,
 *          audit hook, op) → JSON answer → shim; timed per call of the export, divided by N.
 * floor:   a bare context calling an ivm.Callback N times that returns the same value from
 *          a host object.
 */
import path from 'node:path';
import ivm from 'isolated-vm';
import { IsolateRuntime } from '../../sandboxes/isolate/isolate-runtime.ts';
import { interleave } from '../lib/interleave.ts';
import { writeSmallPlugin } from '../lib/plugin-source.ts';
import { timeRow, verdict, type ResultRow } from '../lib/result-row.ts';
import { brokerFor, buildPlugin, runtimeOptions, trustedProfile, type BenchContext } from '../lib/setup.ts';
import { scale, summarize } from '../lib/stats.ts';

const CASE = 'broker op round trip from inside the isolate, trusted tier';
const N = 100;

export async function brokerOp(ctx: BenchContext): Promise<ResultRow[]> {
  const dir = path.join(ctx.tmp, 'small-plugin');
  const plugin = await buildPlugin(ctx, writeSmallPlugin(dir));
  const profile = trustedProfile();
  const env = { BENCH_X: '1' };
  const runtime = IsolateRuntime.create(ctx.shim, runtimeOptions(profile, brokerFor(profile, ['--allow-env=BENCH_X'], dir, env)));
  await runtime.load(plugin.warm);
  if (runtime.callSync('envLoop', [1]) !== '1') throw new Error('bench: envLoop did not read the granted variable');

  const isolate = new ivm.Isolate({ memoryLimit: profile.limits.memoryMb });
  const context = isolate.createContextSync();
  const hostEnv: Record<string, string> = { ...env };
  context.global.setSync('hostGet', new ivm.Callback((name: string) => hostEnv[name] ?? null));
  context.evalSync('globalThis.envLoop = function (n) { let v; for (let i = 0; i < n; i++) v = hostGet("BENCH_X"); return v; }');
  const rawLoop = context.global.getSync('envLoop', { reference: true }) as ivm.Reference;

  const budget = ctx.quick ? { warmup: 100, rounds: 1000 } : { warmup: 500, rounds: 10_000 };
  ctx.log(`  broker op: ${budget.rounds} rounds of ${N} ops`);
  const samples = await interleave(
    [
      { name: 'project', run: () => runtime.callSync('envLoop', [N]) },
      { name: 'raw', run: () => rawLoop.applySync(undefined, [N]) },
    ],
    budget,
  );
  runtime.dispose();
  isolate.dispose();
  const floor = scale(summarize(samples.get('raw')!), 1 / N);
  const project = scale(summarize(samples.get('project')!), 1 / N);
  const ratio = project.median / floor.median;
  return [
    timeRow({
      case: CASE,
      variant: "Deno.env.get('BENCH_X'), granted, per op",
      role: 'project',
      summary: project,
      unit: 'µs',
      floor,
      target: '≤ 2x raw (median)',
      verdict: verdict(ratio <= 2),
      note: `one export call doing ${N} ops, timed as a whole and divided by ${N} (so p99 is of ${N}-op means); the 2x target is issue 7's trusted-tier broker target applied to the op direction.`,
      whyMissed: `an op costs ${ratio.toFixed(2)}x a raw Callback round trip. On top of the crossing, every op is JSON-encoded by the shim, checked against the transfer cap, parsed by the broker, checked against the permission gate, audited (an event object is built even when no sink listens), counted, run, and its answer wrapped as {"ok": ...} JSON that the shim parses and checks for an error. What would close it: build audit events only when a sink is attached, remember grant decisions per (permission, value) for the life of an instance, and answer with the bare value when there is no error.`,
    }),
    timeRow({ case: CASE, variant: 'raw ivm.Callback round trip, per op', role: 'floor', summary: floor, unit: 'µs', note: `a bare context calling an ivm.Callback ${N} times per applySync, returning the same string from a host object.` }),
  ];
}
