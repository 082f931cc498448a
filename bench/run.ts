/**
 * `npm run bench [-- --quick] [-- --only=<case,...>]`: every case measures the project next
 * to its floor (and the alternative a user would pick) in this same process, interleaved,
 * after warm-up; writes bench/results.json and bench/RESULTS.md and prints the table.
 * --quick runs few iterations (under a minute on an idle machine) for CI and for checking the bench;
 * --history-events=<n> sizes the history case's long persona (e.g. 42230, the size issue 14 measured main at);
 * --only runs some cases; it and --quick print their table without touching the result files
 * (bench/results.json and RESULTS.md always hold the last full run).
 * The soak (issue 24) runs only when named: --only=soak [--minutes=60] [--personas=100]
 * [--kill-every=15] [--fault-every=25] [--cycle-seconds=5] [--session-every=600]
 * [--sample-every=60] [--warmup-minutes=5]; its samples and summary go to bench/out/.
 */
import { rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { assertNodeFlags } from '../sandboxes/isolate/node-flags.ts';
import { KERNEL_VERSION } from '../kernel/version.ts';
import { trustedCall, processCall } from './cases/call-round-trip.ts';
import { brokerOp } from './cases/broker-op.ts';
import { coldStart } from './cases/cold-start.ts';
import { eventAppends } from './cases/event-appends.ts';
import { postgresAppends } from './cases/postgres-appends.ts';
import { fleet } from './cases/fleet.ts';
import { fetchMemory } from './cases/fetch-memory.ts';
import { memory } from './cases/memory.ts';
import { replay } from './cases/replay.ts';
import { history } from './cases/history.ts';
import { consoleCase } from './cases/console.ts';
import { personaCycles } from './cases/persona-cycles.ts';
import { personaMemory } from './cases/persona-memory.ts';
import { personaWorkers } from './cases/persona-workers.ts';
import { readTextFile } from './cases/read-text-file.ts';
import { executorSandboxStart, executorStop } from './cases/executor-sandbox.ts';
import { mcpTools } from './cases/mcp-tools.ts';
import { soak } from './cases/soak.ts';
import type { ResultRow } from './lib/result-row.ts';
import { createContext, denoVersion, packageVersion, type BenchContext } from './lib/setup.ts';
import { renderMisses, renderNotes, renderTable } from './lib/table.ts';
import { settleBetweenCases } from './lib/settle.ts';

/** `explicit`: run only when named by --only (the soak runs for an hour). */
const CASES: { name: string; run: (ctx: BenchContext) => Promise<ResultRow[]> | ResultRow[]; explicit?: boolean }[] = [
  { name: 'cold-start', run: coldStart },
  { name: 'trusted-call', run: trustedCall },
  { name: 'broker-op', run: brokerOp },
  { name: 'process-call', run: processCall },
  { name: 'read-text-file', run: readTextFile },
  { name: 'persona-cycles', run: personaCycles },
  { name: 'persona-workers', run: personaWorkers },
  { name: 'memory', run: memory },
  { name: 'persona-memory', run: personaMemory },
  { name: 'event-appends', run: eventAppends },
  { name: 'postgres-appends', run: postgresAppends },
  { name: 'fleet', run: fleet },
  { name: 'replay', run: replay },
  { name: 'fetch-memory', run: fetchMemory },
  { name: 'executor-sandbox-start', run: executorSandboxStart },
  { name: 'executor-stop', run: executorStop },
  { name: 'mcp-tools', run: mcpTools },
  { name: 'history', run: history },
  { name: 'console', run: consoleCase },
  { name: 'soak', run: soak, explicit: true },
];

/** The soak's flags: bench flag name → SoakOptions key. */
const SOAK_FLAGS = { minutes: 'minutes', personas: 'personas', 'kill-every': 'killEvery', 'fault-every': 'faultEvery', 'cycle-seconds': 'cycleSeconds', 'session-every': 'sessionEvery', 'sample-every': 'sampleEvery', 'warmup-minutes': 'warmupMinutes' } as const;

const HOW_TO_READ = `How to read the table: every case runs the project's path and its comparisons in the same process run, interleaved round by round (each round starts from a different variant), after warm-up rounds that are discarded. **median** and **p99** are of the timed samples (nearest rank, no interpolation); **n** is the number of samples. **ratio to floor** is the row's median divided by the floor's median for times and memory (1.00x is the floor; lower is better) and the row's rate divided by the floor's rate for rates (higher is better). The **floor** is the least any implementation could do for the same work on this machine (raw isolated-vm, a raw child-process round trip, the real Deno, raw writeSync + fsync); an **alternative** is what a user would pick instead. **target met** applies issue 7's targets unchanged; "missed" rows are explained under the table. Rates and memory are single figures per run (no p99).`;

function machine(ctx: BenchContext) {
  const cpus = os.cpus();
  return {
    cpus: cpus.length,
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    memoryGiB: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    v8: process.versions.v8,
    isolatedVm: packageVersion('isolated-vm'),
    tinypool: packageVersion('tinypool'),
    deno: denoVersion(ctx),
    runtimectl: KERNEL_VERSION,
  };
}

function loadAverage(): number {
  return Math.round((os.loadavg()[0] ?? 0) * 100) / 100;
}

/** A command line the bench cannot run: one line on stderr and status 2, no stack. */
class UsageError extends Error {}

const USAGE = `Usage: npm run bench -- [--quick] [--only=CASE[,CASE...]] [--history-events=N] [soak flags with --only=soak]

Runs the benchmark cases (bench/cases/) interleaved against their floors and alternatives; a
full run of every case rewrites bench/results.json and bench/RESULTS.md.

Cases: ${CASES.map((c) => c.name).join(', ')}
Soak flags: ${Object.keys(SOAK_FLAGS).map((f) => `--${f}`).join(', ')}
`;

async function main(): Promise<void> {
  const soakFlags = Object.fromEntries(Object.keys(SOAK_FLAGS).map((name) => [name, { type: 'string' as const }]));
  let values;
  try {
    ({ values } = parseArgs({ options: { quick: { type: 'boolean', default: false }, only: { type: 'string' }, 'history-events': { type: 'string' }, help: { type: 'boolean', short: 'h' }, ...soakFlags }, strict: true }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return;
  }
  const given = values as Record<string, string | boolean | undefined>;
  const soakGiven = Object.fromEntries(Object.entries(SOAK_FLAGS).filter(([flag]) => given[flag] !== undefined).map(([flag, key]) => [key, String(given[flag])]));
  assertNodeFlags();
  const only = values.only?.split(',').map((s) => s.trim());
  const unknown = only?.filter((name) => !CASES.some((c) => c.name === name)) ?? [];
  if (unknown.length) throw new UsageError(`unknown case ${unknown.join(', ')} (have: ${CASES.map((c) => c.name).join(', ')})`);
  if (Object.keys(soakGiven).length > 0 && !only?.includes('soak')) throw new UsageError(`--${Object.keys(SOAK_FLAGS).find((f) => given[f] !== undefined)} is a flag of the soak: run it with --only=soak`);
  const historyEvents = values['history-events'] === undefined ? undefined : Number(values['history-events']);
  if (historyEvents !== undefined && !(Number.isInteger(historyEvents) && historyEvents >= 1000)) throw new UsageError(`--history-events must be a whole number of at least 1000, not ${values['history-events']}`);
  const started = performance.now();
  const loadAtStart = loadAverage();
  const ctx = await createContext(values.quick);
  if (historyEvents !== undefined) ctx.historyEvents = historyEvents;
  if (only?.includes('soak')) ctx.soak = soakGiven;
  const rows: ResultRow[] = [];
  const timings: Record<string, number> = {};
  const loadAtCaseStart: Record<string, number> = {};
  try {
    let first = true;
    for (const c of CASES) {
      if (only ? !only.includes(c.name) : c.explicit) continue;
      if (!first) await settleBetweenCases(values.quick ? 200 : 1000);
      first = false;
      loadAtCaseStart[c.name] = loadAverage();
      ctx.log(`bench: ${c.name} (load average ${loadAtCaseStart[c.name]})`);
      const t0 = performance.now();
      rows.push(...(await c.run(ctx)));
      timings[c.name] = Math.round(performance.now() - t0) / 1000;
    }
    const facts = { ...machine(ctx), loadAverage1m: { atStart: loadAtStart, atEnd: loadAverage(), atCaseStart: loadAtCaseStart } };
    const seconds = Math.round((performance.now() - started) / 100) / 10;
    const table = renderTable(rows);
    const generatedAt = new Date().toISOString();
    const mode = values.quick ? 'quick' : 'full';
    const factsLine = `${facts.cpus} cores (${facts.cpuModel}), ${facts.memoryGiB} GiB RAM, ${facts.os}; Node ${facts.node} (V8 ${facts.v8}), isolated-vm ${facts.isolatedVm}, tinypool ${facts.tinypool}, ${facts.deno}; runtimectl ${facts.runtimectl}. Load average (1 min) ${facts.loadAverage1m.atStart} at the start, ${facts.loadAverage1m.atEnd} at the end${Math.max(facts.loadAverage1m.atStart, facts.loadAverage1m.atEnd) > facts.cpus ? ': above the core count (the bench’s own processes and disk writeback count toward it, as would other work), which inflates absolute times; ratios, measured interleaved, suffer less' : ''}.`;
    const markdown = [
      '# Benchmark results',
      '',
      `Generated by \`npm run bench${values.quick ? ' -- --quick' : ''}\` (${mode} mode) at ${generatedAt}, in ${seconds} s.`,
      '',
      `Machine: ${factsLine}`,
      '',
      HOW_TO_READ,
      '',
      table,
      '',
      '## What each row measured',
      '',
      renderNotes(rows),
      '',
      '## Targets missed: why, and what would close them',
      '',
      renderMisses(rows),
      '',
    ].join('\n');
    // A quick run or a run of only some cases prints its table but never overwrites the full results.
    if (!only && !values.quick && historyEvents === undefined) {
      const out = path.dirname(new URL(import.meta.url).pathname);
      writeFileSync(path.join(out, 'results.json'), `${JSON.stringify({ generatedAt, mode, seconds, machine: facts, caseSeconds: timings, rows }, null, 2)}\n`);
      writeFileSync(path.join(out, 'RESULTS.md'), markdown);
    }
    const wrote = only || values.quick || historyEvents !== undefined ? `bench/results.json and bench/RESULTS.md left as they were (${only ? '--only' : values.quick ? '--quick' : '--history-events'})` : 'Wrote bench/results.json and bench/RESULTS.md';
    process.stdout.write(`\n${table}\n\nMachine: ${factsLine}\n${wrote} (${mode} mode, ${seconds} s).\n`);
  } finally {
    rmSync(ctx.tmp, { recursive: true, force: true });
  }
}

try {
  await main();
} catch (error) {
  if (!(error instanceof UsageError)) throw error;
  process.stderr.write(`bench: ${error.message}; see "npm run bench -- --help"\n`);
  process.exitCode = 2;
}
