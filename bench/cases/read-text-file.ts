/**
 * Case 3: `Deno.readTextFile` of a small file, granted (--allow-read=<file>).
 *
 * One script reads the file N times in a loop. It runs through the script runner (the
 * engine of `runtimectl sandbox run`) under the trusted profile (in-process isolate) and the
 * default profile (process pool), and under the real `deno run` with the same flag. Each
 * also runs with N = 0 in the same round; the per-read cost is (time with N − time with 0)
 * / N, paired within each round, so start-up (isolate, process, module load) drops out.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { createScriptRunner } from '../../features/sandbox-run/runner/script-runner.ts';
import { IsolateRuntime } from '../../sandboxes/isolate/isolate-runtime.ts';
import { interleave } from '../lib/interleave.ts';
import { writeScripts, writeSmallPlugin } from '../lib/plugin-source.ts';
import { timeRow, type ResultRow } from '../lib/result-row.ts';
import { brokerFor, buildPlugin, denoRun, runtimeOptions, trustedProfile, type BenchContext } from '../lib/setup.ts';
import { summarize } from '../lib/stats.ts';

const CASE = 'Deno.readTextFile of a small file, granted, per read';
const N = 1000;

export async function readTextFile(ctx: BenchContext): Promise<ResultRow[]> {
  const dir = path.join(ctx.tmp, 'scripts');
  const { readLoop } = writeScripts(dir);
  const file = path.join(ctx.tmp, 'small.txt');
  const text = 'a small file the benchmark reads over and over.\n'.repeat(4);
  writeFileSync(file, text);
  const flags = [`--allow-read=${file}`];
  const expected = (n: number) => String(n * text.length);
  const runner = await createScriptRunner({ cacheDir: ctx.cacheDir, poolSize: 1 });
  const sandbox = (profile: string, n: number) => async () => {
    const result = await runner.run({ file: readLoop, args: [String(n), file], permissionFlags: flags, cwd: dir, env: {}, profile });
    if (result.exitCode !== 0 || result.stdout.trim() !== expected(n)) throw new Error(`bench: ${profile} read loop failed: ${result.stderr || result.stdout}`);
  };
  // The same loop as a plugin export called with runtime.call: no script event loop around it.
  const pluginDir = path.join(ctx.tmp, 'small-plugin');
  const plugin = await buildPlugin(ctx, writeSmallPlugin(pluginDir));
  const profile = trustedProfile();
  const runtime = IsolateRuntime.create(ctx.shim, runtimeOptions(profile, brokerFor(profile, flags, pluginDir, {})));
  await runtime.load(plugin.warm);
  const pluginLoop = (n: number) => async () => {
    const total = await runtime.call('readLoop', [n, file]);
    if (String(total) !== expected(n)) throw new Error(`bench: plugin read loop returned ${String(total)}`);
  };
  const deno = (n: number) => () => {
    const out = denoRun(ctx, [...flags, readLoop, String(n), file], dir);
    if (out.trim() !== expected(n)) throw new Error(`bench: deno read loop printed ${out}`);
  };
  try {
    const budget = ctx.quick ? { warmup: 1, rounds: 3 } : { warmup: 2, rounds: 12 };
    ctx.log(`  readTextFile: ${budget.rounds} rounds of ${N} reads`);
    const samples = await interleave(
      [
        { name: 'trusted-n', run: sandbox('trusted', N) },
        { name: 'trusted-0', run: sandbox('trusted', 0) },
        { name: 'default-n', run: sandbox('default', N) },
        { name: 'default-0', run: sandbox('default', 0) },
        { name: 'plugin-n', run: pluginLoop(N) },
        { name: 'plugin-0', run: pluginLoop(0) },
        { name: 'deno-n', run: deno(N) },
        { name: 'deno-0', run: deno(0) },
      ],
      budget,
    );
    const perRead = (name: string) => {
      const withReads = samples.get(`${name}-n`)!;
      const empty = samples.get(`${name}-0`)!;
      return summarize(withReads.map((t, i) => (t - empty[i]!) / N));
    };
    const whole = (name: string) => summarize(samples.get(name)!);
    const floor = perRead('deno');
    const startNote = (name: string) => `whole run with ${N} reads: median ${whole(`${name}-n`).median.toFixed(1)} ms; with none: ${whole(`${name}-0`).median.toFixed(1)} ms.`;
    return [
      timeRow({ case: CASE, variant: 'sandbox, trusted profile (in-process isolate)', role: 'project', summary: perRead('trusted'), unit: 'µs', floor, note: `runner.run; ${startNote('trusted')}` }),
      timeRow({ case: CASE, variant: 'sandbox, default profile (process pool)', role: 'project', summary: perRead('default'), unit: 'µs', floor, note: `runner.run; each read goes isolate → sandbox host → kernel broker over IPC; ${startNote('default')}` }),
      timeRow({
        case: CASE,
        variant: "of which: the same loop in a loaded plugin, runtime.call (trusted)",
        role: 'info',
        summary: perRead('plugin'),
        unit: 'µs',
        floor,
        note: `a plugin export doing the loop, called with runtime.call on an isolate already loaded: the async op path alone, without a script's event loop (runMain's idle checks) around it; ${startNote('plugin')}`,
      }),
      timeRow({ case: CASE, variant: 'the real Deno, `deno run --allow-read`', role: 'floor', summary: floor, unit: 'µs', note: startNote('deno') }),
    ];
  } finally {
    runtime.dispose();
    await runner.close();
  }
}
