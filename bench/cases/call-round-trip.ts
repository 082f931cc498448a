/**
 * Case 2: a plugin call round trip, small JSON in and out.
 *
 * Trusted tier (in-process isolate):
 *   project: runtime.callSync('echo', [payload]) on a loaded plugin: the arguments go in as
 *            one JSON string, the shim parses them, calls the export and returns JSON.
 *   floor:   raw isolated-vm: applySync of `echo` in a bare context with the same payload
 *            copied in and out (arguments and result `copy: true`).
 *   info:    raw applySync with the payload as a JSON string in and out, parsed on both sides
 *            (the project's own encoding, without the shim).
 *
 * Process tier (isolates inside sandbox host processes):
 *   project: a resident plugin instance (RemoteRuntime: the plugin loaded once in its own
 *            sandbox host process) answering `echo(payload)`: one IPC round trip each way,
 *            the kernel's guards armed per call, the call dispatched in the isolate.
 *   info:    a whole run of a tiny script (`JSON.parse(Deno.args[0])`, `console.log(JSON.stringify(it))`) through
 * ProcessPool.run: IPC to the warm host process, a NEW isolate with the shim (from code
 * cache), the script compiled from its code cache, its output as an IPC message, disposal,
 * and the answer. The floor is a raw tinypool child_process round trip of the same payload.
 * A second process-tier figure is one broker op over the pipe: a script doing N
 * `Deno.env.get` calls minus the same script doing none, divided by N, paired per round.
 */
import { fork } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ivm from 'isolated-vm';
import Tinypool from 'tinypool';
import { bundleEntry } from '../../sandboxes/loader/bundle.ts';
import { loadSandboxProfile } from '../../features/plugin-search/sandbox-profiles.ts';
import { IsolateRuntime } from '../../sandboxes/isolate/isolate-runtime.ts';
import { withCodeCache } from '../../sandboxes/isolate/shim-source.ts';
import { ProcessPool } from '../../sandboxes/pool/process-pool.ts';
import { RemoteRuntime } from '../../sandboxes/pool/remote-runtime.ts';
import { interleave } from '../lib/interleave.ts';
import { writeScripts, writeSmallPlugin } from '../lib/plugin-source.ts';
import { timeRow, verdict, type ResultRow } from '../lib/result-row.ts';
import { brokerFor, buildPlugin, runtimeOptions, trustedProfile, type BenchContext } from '../lib/setup.ts';
import { summarize, type Summary } from '../lib/stats.ts';

const TRUSTED = 'plugin call round trip, small JSON, trusted tier';
const PROCESS = 'plugin call round trip, small JSON, process-pool tier';

export const PAYLOAD = { id: 42, kind: 'note', title: 'a small payload', tags: ['alpha', 'beta', 'gamma'], score: 0.75, nested: { ok: true, n: null } };

export async function trustedCall(ctx: BenchContext): Promise<ResultRow[]> {
  const dir = path.join(ctx.tmp, 'small-plugin');
  const plugin = await buildPlugin(ctx, writeSmallPlugin(dir));
  const profile = trustedProfile();
  const runtime = IsolateRuntime.create(ctx.shim, runtimeOptions(profile, brokerFor(profile, [], dir, {})));
  await runtime.load(plugin.warm);

  const isolate = new ivm.Isolate({ memoryLimit: profile.limits.memoryMb });
  const context = isolate.createContextSync();
  context.evalSync('globalThis.echo = function (x) { return x; }; globalThis.echoJson = function (s) { return JSON.stringify(JSON.parse(s)); };');
  const echo = context.global.getSync('echo', { reference: true }) as ivm.Reference;
  const echoJson = context.global.getSync('echoJson', { reference: true }) as ivm.Reference;

  const budget = ctx.quick ? { warmup: 1000, rounds: 10_000 } : { warmup: 10_000, rounds: 200_000 };
  ctx.log(`  trusted call: ${budget.rounds} rounds`);
  const samples = await interleave(
    [
      { name: 'project', run: () => runtime.callSync('echo', [PAYLOAD]) },
      { name: 'raw', run: () => echo.applySync(undefined, [PAYLOAD], { arguments: { copy: true }, result: { copy: true } }) },
      { name: 'raw-json', run: () => JSON.parse(echoJson.applySync(undefined, [JSON.stringify(PAYLOAD)]) as string) },
    ],
    budget,
  );
  runtime.dispose();
  isolate.dispose();
  const floor = summarize(samples.get('raw')!);
  const project = summarize(samples.get('project')!);
  const ratio = project.median / floor.median;
  return [
    timeRow({
      case: TRUSTED,
      variant: "runtime.callSync('echo', [payload]) through the shim",
      role: 'project',
      summary: project,
      unit: 'µs',
      floor,
      target: '≤ 2x raw applySync (median)',
      verdict: verdict(ratio <= 2),
      note: `payload ${JSON.stringify(PAYLOAD).length} bytes of JSON; each call timed alone with performance.now().`,
      whyMissed: `the call costs ${ratio.toFixed(2)}x raw applySync: on top of the raw crossing it stringifies the arguments on the host, parses them in the isolate, stringifies the answer there and parses it on the host, and goes through the shim's dispatcher (export lookup, thenable check). What would close it: a Reference per export (skipping the dispatcher), and one JSON encoding per direction instead of a JSON envelope around JSON; the raw JSON-string row shows what the encoding alone costs.`,
    }),
    timeRow({ case: TRUSTED, variant: 'raw isolated-vm applySync, payload copied in and out', role: 'floor', summary: floor, unit: 'µs', note: 'a bare context, `echo(x) { return x }`, arguments and result `copy: true`.' }),
    timeRow({ case: TRUSTED, variant: 'raw applySync, payload as JSON string (parsed both sides)', role: 'info', summary: summarize(samples.get('raw-json')!), unit: 'µs', floor }),
  ];
}

const shown = (msValue: number) => (msValue >= 1 ? `${msValue.toFixed(2)} ms` : `${Math.round(msValue * 1000)} µs`);

function pipeOpMiss(op: Summary, floor: Summary, bare: Summary): string {
  return `an op took ${shown(op.median)} median, ${shown(op.p99)} p99: it blocks the isolate (applySyncPromise), goes from the isolate thread to the host process's event loop, over Node's JSON IPC to the kernel's broker, and back the same way: two IPC messages per op; a bare fork IPC round trip took ${shown(bare.median)} median, ${shown(bare.p99)} p99 and tinypool's ${shown(floor.median)} median in the same run${bare.p99 > 0.3 ? ', so at p99 even a bare process round trip misses 300 µs on this machine' : ''}. What would close it: a cheaper channel for ops (a shared-memory ring with Atomics.wait instead of JSON IPC), or several ops per message.`;
}

export async function processCall(ctx: BenchContext): Promise<ResultRow[]> {
  const dir = path.join(ctx.tmp, 'scripts');
  const scripts = writeScripts(dir);
  const profile = loadSandboxProfile('default');
  const env = { BENCH_X: '1' };
  const broker = brokerFor(profile, ['--allow-env=BENCH_X'], dir, env);
  const source = async (file: string) => {
    const bundle = await bundleEntry(file, ctx.cacheDir);
    return withCodeCache(bundle.code, bundle.digest, `file://${file}`, ctx.cacheDir);
  };
  const echoSource = await source(scripts.echoArgs);
  const resident = await RemoteRuntime.start({
    cacheDir: ctx.cacheDir,
    shim: ctx.shim,
    source: (await buildPlugin(ctx, writeSmallPlugin(path.join(ctx.tmp, 'resident-plugin')))).warm,
    limits: profile.limits,
    webAssembly: profile.webAssembly,
    rssCapMb: profile.rssCapMb ?? 512,
    ops: broker,
    onOutput: () => undefined,
  });
  const envSource = await source(scripts.envLoop);
  const pool = new ProcessPool({ size: 1, cacheDir: ctx.cacheDir, shim: ctx.shim });
  await pool.warm();
  const payload = JSON.stringify(PAYLOAD);
  let out = '';
  const run = async (src: typeof echoSource, args: string[]) => {
    out = '';
    const { outcome } = await pool.run({ source: src, limits: profile.limits, webAssembly: profile.webAssembly, args, rssCapMb: profile.rssCapMb ?? 512, ops: broker, onOutput: (_fd, text) => void (out += text) });
    if (outcome.exitCode !== 0) throw new Error(`bench: pool run failed: ${JSON.stringify(outcome.error)}`);
  };
  const opsPerRun = ctx.quick ? 100 : 200;
  // Tinypool's child inherits this process's exec flags (tsx included), which only slows its start-up.
  const tinypool = new Tinypool({ filename: fileURLToPath(new URL('../fixtures/tinypool-echo.mjs', import.meta.url)), runtime: 'child_process', minThreads: 1, maxThreads: 1 });
  const bare = fork(fileURLToPath(new URL('../fixtures/ipc-echo.cjs', import.meta.url)), [], { execArgv: [], stdio: ['ignore', 'ignore', 'inherit', 'ipc'], serialization: 'json' });
  const bareRoundTrip = () =>
    new Promise<void>((resolve, reject) => {
      bare.once('message', (answer: typeof PAYLOAD) => (answer.id === 42 ? resolve() : reject(new Error('bench: bare child echoed wrong'))));
      bare.send(PAYLOAD);
    });
  try {
    const budget = ctx.quick ? { warmup: 10, rounds: 60 } : { warmup: 30, rounds: 250 };
    ctx.log(`  process-tier call: ${budget.rounds} rounds`);
    const samples = await interleave(
      [
        {
          name: 'resident',
          run: async () => {
            const answer = (await resident.call('echo', [PAYLOAD])) as typeof PAYLOAD;
            if (answer.id !== 42) throw new Error('bench: resident plugin echoed wrong');
          },
        },
        {
          name: 'project',
          run: async () => {
            await run(echoSource, [payload]);
            if (out !== `${payload}\n`) throw new Error(`bench: pool echoed ${out}`);
          },
        },
        { name: 'env-n', run: () => run(envSource, [String(opsPerRun)]) },
        { name: 'env-0', run: () => run(envSource, ['0']) },
        {
          name: 'tinypool',
          run: async () => {
            const answer = (await tinypool.run(PAYLOAD)) as typeof PAYLOAD;
            if (answer.id !== 42) throw new Error('bench: tinypool echoed wrong');
          },
        },
        { name: 'bare-ipc', run: bareRoundTrip },
      ],
      budget,
    );
    const floor = summarize(samples.get('tinypool')!);
    const project = summarize(samples.get('project')!);
    const residentCall = summarize(samples.get('resident')!);
    const envN = samples.get('env-n')!;
    const env0 = samples.get('env-0')!;
    const perOp = summarize(envN.map((t, i) => (t - env0[i]!) / opsPerRun));
    return [
      timeRow({
        case: PROCESS,
        variant: 'resident plugin call (RemoteRuntime), echo(payload)',
        role: 'project',
        summary: residentCall,
        unit: 'auto',
        floor,
        target: '≤ 300 µs',
        verdict: verdict(residentCall.p99 <= 0.3),
        note: 'the plugin is loaded once in its own sandbox host process; each call is a JSON IPC message there and back, the kernel\'s wall and RSS guards armed around it, and the call dispatched in the isolate (async apply). Target judged on p99.',
        whyMissed: `a call took ${shown(residentCall.median)} median, ${shown(residentCall.p99)} p99; a bare fork IPC round trip took ${shown(summarize(samples.get('bare-ipc')!).median)} median, ${shown(summarize(samples.get('bare-ipc')!).p99)} p99 in the same run, so most of it is Node's JSON IPC and process scheduling on 2 loaded cores. What would close it: a shared-memory channel (SharedArrayBuffer + Atomics) instead of JSON IPC, and applySync for the isolate step inside the host process.`,
      }),
      timeRow({
        case: PROCESS,
        variant: 'ProcessPool.run of a tiny echo script (new isolate per run)',
        role: 'info',
        summary: project,
        unit: 'auto',
        floor,
        note: 'a whole script run: creating an isolate and installing the shim (from code cache) in the host process, compiling the script from its code cache, and the IPC messages run → out → done.',
      }),
      timeRow({
        case: PROCESS,
        variant: 'one broker op over the pipe (Deno.env.get), per op',
        role: 'project',
        summary: perOp,
        unit: 'auto',
        floor,
        target: '≤ 300 µs',
        verdict: verdict(perOp.p99 <= 0.3),
        note: `(run of a script doing ${opsPerRun} Deno.env.get calls − the same script doing none) / ${opsPerRun}, paired within each round; each op goes isolate → host process (applySyncPromise) → kernel broker over IPC → back. Target judged on p99.`,
        whyMissed: pipeOpMiss(perOp, floor, summarize(samples.get('bare-ipc')!)),
      }),
      timeRow({ case: PROCESS, variant: 'raw tinypool child_process round trip', role: 'floor', summary: floor, unit: 'auto', note: 'Tinypool({runtime: "child_process"}), one warm child, `export default (task) => task`, the same payload; the comparison issue 7 names.' }),
      timeRow({ case: PROCESS, variant: 'bare child_process.fork IPC round trip', role: 'info', summary: summarize(samples.get('bare-ipc')!), unit: 'auto', floor, note: 'a plain forked Node child echoing each IPC message (JSON serialization), the same payload: what one process round trip costs without any pool library.' }),
    ];
  } finally {
    resident.dispose();
    await pool.close();
    await tinypool.destroy();
    bare.disconnect();
  }
}
