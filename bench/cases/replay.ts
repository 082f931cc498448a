/**
 * Case: replay throughput in effects per second, `runtimectl replay`'s own function
 * (replayPersona: read the log and the trace, check hashes, rebuild the plugin from its
 * recorded bundle, re-run every call while the broker answers from the record), next to the
 * floor of reading and JSON-parsing the same trace JSONL, interleaved in this run.
 *
 * The recording is made here through the kernel's own recorder, from a plugin whose calls
 * are effect-heavy (clock reads, env reads, file reads), so the figure is about effects, not
 * about isolate start-up; the fixed costs of a replay (opening the log, loading the shim,
 * one isolate) are included, amortized over the run.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CYCLE_EVENT } from '../../features/history/usage.ts';
import { buildPersonaPlugin, personaPluginOptions } from '../../features/persona/plugin-options.ts';
import { parseYaml, validateManifest } from '../../kernel/manifest/load.ts';
import { openBackend } from '../../features/persistence/open.ts';
import { personaProfileSchema } from '../../kernel/personas/profile-schema.ts';
import { loadPlugin, PLUGINS_DIR, scanRegistry } from '../../features/plugin-search/scan.ts';
import { CycleRecorder } from '../../features/cycle-recording/cycle-recorder.ts';
import { pathCodec } from '../../features/cycle-recording/path-codec.ts';
import { replayPersona } from '../../features/science-loop/preset.ts';
import { TraceStore } from '../../features/trace-store/trace-store.ts';
import { defaultSandboxKit } from '../../sandboxes/index.ts';
import { personaToolRunners } from '../../features/science-loop/tool-runners.ts';
import { verdict, type ResultRow } from '../lib/result-row.ts';
import type { BenchContext } from '../lib/setup.ts';
import { summarize } from '../lib/stats.ts';

const CASE = 'replay, effects per second';
const TARGET = '≥ 100,000 effects/s';
const PERSONA = 'bench';

const PLUGIN_YAML = `id: budget.bench-effects
version: 1.0.0
kind: budget-policy
entry: mod.ts
description: Benchmark plugin whose calls make many broker effects.
sandbox: trusted
permissions: { read: ["\${state}"], env: [BENCH_X] }
bindings: []
exports: [work]
`;

/** Per call: n clock reads, n env reads, and a few file reads; returns a digest of what it saw. */
const PLUGIN_CODE = `export async function work(n, file) {
  let acc = 0;
  for (let i = 0; i < n; i++) {
    acc = (acc + Date.now()) % 1000003;
    acc = (acc + (Deno.env.get('BENCH_X') ?? '').length) % 1000003;
  }
  for (let i = 0; i < 8; i++) acc = (acc + (await Deno.readTextFile(file)).length) % 1000003;
  return { acc };
}
`;

const PROFILE_YAML = `id: ${PERSONA}
runtime: agent-${PERSONA}
executor: { plugin: executor.none }
budget: { policy: budget.bench-effects, cpu_seconds_per_cycle: 30 }
allow: { read: ["\${state}"], env: [BENCH_X] }
`;

/** Records `cycles` cycles of one effect-heavy call each, as the loop would: trace lines, blobs, cycle events. */
async function record(root: string, cycles: number, perCall: number): Promise<{ stateDir: string; pluginsDir: string; effects: number; traceFile: string }> {
  const stateDir = path.join(root, 'state');
  const personaDir = path.join(stateDir, PERSONA);
  const pluginsDir = path.join(root, 'plugins');
  mkdirSync(path.join(pluginsDir, 'budget-bench-effects'), { recursive: true });
  writeFileSync(path.join(pluginsDir, 'budget-bench-effects', 'plugin.yaml'), PLUGIN_YAML);
  writeFileSync(path.join(pluginsDir, 'budget-bench-effects', 'mod.ts'), PLUGIN_CODE);
  mkdirSync(personaDir, { recursive: true });
  const dataFile = path.join(personaDir, 'data.txt');
  writeFileSync(dataFile, 'x'.repeat(200));

  const profile = validateManifest(personaProfileSchema, parseYaml(PROFILE_YAML, 'bench profile'), 'bench profile');
  const store = new TraceStore(personaDir);
  const profileDigest = store.keep(PROFILE_YAML);
  const kit = defaultSandboxKit();
  const options = personaPluginOptions({
    stateDir,
    profile,
    hostEnv: { BENCH_X: 'yes' },
    limits: { cpu_seconds_per_cycle: 30, wall_seconds_per_cycle: 900 },
    kit,
    tools: personaToolRunners,
    bindings: {} as never,
    audit: () => undefined,
  });
  const instance = buildPersonaPlugin(options, loadPlugin(path.join(pluginsDir, 'budget-bench-effects')), 'budget-policy');
  const backend = await openBackend(personaDir, 'jsonl-fs', { personaId: PERSONA });
  let effects = 0;
  try {
    for (let cycle = 1; cycle <= cycles; cycle++) {
      const recorder = new CycleRecorder(store, pathCodec(stateDir), { persona: PERSONA, cycle, now: cycle, profile: profileDigest, limits: { cpu_seconds: 30, wall_seconds: 900 } });
      await recorder.call(instance, 'work', [perCall, dataFile]);
      const trace = recorder.finish();
      effects += trace.effects;
      await backend.events.append(CYCLE_EVENT, { cycle, trace });
    }
  } finally {
    instance.dispose();
    store.close();
    await backend.close();
  }
  return { stateDir, pluginsDir, effects, traceFile: store.file };
}

/** The floor: read the same trace file and JSON.parse every line (and touch every effect). */
function readAndParse(file: string): number {
  let effects = 0;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.length === 0) continue;
    const record = JSON.parse(line) as { calls: { effects: unknown[] }[] };
    for (const call of record.calls) effects += call.effects.length;
  }
  return effects;
}

export async function replay(ctx: BenchContext): Promise<ResultRow[]> {
  const cycles = ctx.quick ? 10 : 40;
  const perCall = ctx.quick ? 500 : 1000;
  const rounds = ctx.quick ? 3 : 7;
  const rec = await record(path.join(ctx.tmp, 'replay'), cycles, perCall);
  ctx.log(`  replay: ${cycles} cycles, ${rec.effects} effects, ${rounds} rounds`);
  const replayMs: number[] = [];
  const floorMs: number[] = [];
  let checked = 0;
  // one warm-up of each (bundle and code caches, file cache), then interleaved rounds
  await replayPersona({ stateDir: rec.stateDir, personaId: PERSONA, registry: scanRegistry([PLUGINS_DIR, rec.pluginsDir]) });
  readAndParse(rec.traceFile);
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? ['replay', 'floor'] : ['floor', 'replay'];
    for (const which of order) {
      const t0 = performance.now();
      if (which === 'replay') {
        const report = await replayPersona({ stateDir: rec.stateDir, personaId: PERSONA, registry: scanRegistry([PLUGINS_DIR, rec.pluginsDir]) });
        if (!report.ok) throw new Error(`bench replay diverged: ${report.divergence?.message}`);
        checked = report.effects;
        replayMs.push(performance.now() - t0);
      } else {
        checked = Math.max(checked, readAndParse(rec.traceFile));
        floorMs.push(performance.now() - t0);
      }
    }
  }
  const rate = Math.round(rec.effects / (summarize(replayMs).median / 1000));
  const floorRate = Math.round(rec.effects / (summarize(floorMs).median / 1000));
  return [
    {
      case: CASE,
      variant: '`runtimectl replay` (replayPersona), whole persona',
      role: 'project',
      unit: 'effects/s',
      median: rate,
      ratio: Math.round((rate / floorRate) * 100) / 100,
      target: TARGET,
      verdict: verdict(rate >= 100_000),
      note: `${cycles} recorded cycles of one call each, ${rec.effects} effects (per call ${perCall} clock reads + ${perCall} env reads + 8 file reads); the median of ${rounds} replays, each end to end: the log and the trace read and checked, the recorded bundle loaded into a fresh isolate, every call re-run against its record (the permission check included), the trace hash recomputed.`,
      whyMissed: `each effect is a round trip out of the isolate into the broker (permission check, audit, tape comparison of the op and its argument text, the recorded answer parsed back inside the isolate), a few µs each; the floor only parses the text. What would close it: answer effects in batches from inside the isolate (ship a call's recorded answers into the isolate once and compare there), which the permission re-check makes awkward.`,
    },
    {
      case: CASE,
      variant: 'read and JSON.parse the same trace JSONL',
      role: 'floor',
      unit: 'effects/s',
      median: floorRate,
      note: `${readFileSync(rec.traceFile).length.toLocaleString('en-US')} bytes, median of ${rounds} reads.`,
    },
  ];
}
