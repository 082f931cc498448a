/**
 * Case 3b: persona cycles per second, executor `none` and `orchestra`, at 1, 100 and 1,000
 * personas, all in this one kernel process, next to the sum of their parts done raw.
 *
 * Project: N generated personas (bench-personas.ts: jerome-shaped profiles, ids p0000…) open
 * in one LoopKernel with a temp state directory and a fake clock advanced by the profile's
 * cadence after every round. One round = one cycle of every persona, side by side
 * (Promise.all, as run-personas.ts runs them); the rate is all timed cycles / their total
 * time (a single figure per run, like every rate in the table; the notes give the rounds'
 * median and p99). Two kinds of cycle, measured one after the other on the same personas:
 *   idle       no packet, periodic slot not due: the probes find nothing and no plugin is
 *              called (the startup probes already ran in the untimed first cycle). The same
 *              for every executor, so measured with `none` only;
 *   with work  a new work packet in every inbox before each round (untimed), so the cycle
 *              calls the executor (describe, run) and the budget policy (assess).
 *
 * Floor: the parts those very cycles made, counted by instrumenting the kernel while the
 * round ran (cycle-census.ts), replayed raw (parts-replay.ts): applySync echoes of the same
 * arguments, O_DSYNC appends of the same bytes, the same file writes, fsyncs, renames and
 * unlinks, personas side by side. Project rounds and floor replays alternate which goes
 * first; each floor replay repeats the latest project round's parts.
 *
 * Where the time goes: untimed rounds after the timed ones run with every fs call and plugin
 * call timed (the census's profiling level); the missed-target notes name what dominates
 * from them.
 *
 * Time: the first cycle of N personas builds two isolates per persona (over 30 s at 1,000),
 * so 1,000 personas get two timed rounds (one for `orchestra` with work: 1,000 cycles that
 * each write a session folder) and no profiled round (they borrow the 100 personas'
 * profile), and the quick mode stops at 100 personas (profiled at 1) with fewer rounds.
 */
import { scienceReport } from '../../features/science-loop/report.ts';
import { rmSync } from 'node:fs';
import path from 'node:path';
import type { CycleReport } from '../../features/persona/persona-runtime.ts';
import { DEFAULT_MAX_RESIDENT_ISOLATES } from '../../features/persona/resident-isolates.ts';
import { CYCLE_SECONDS, PLUGINS_PER_PERSONA, openBenchKernel, openFleet, type BenchExecutor, type BenchFleet } from '../lib/bench-personas.ts';
import { CpuProfile } from '../lib/cpu-profile.ts';
import { countParts, CycleCensus, type PartCounts, type RoundCensus } from '../lib/cycle-census.ts';
import { PartsReplay, type PreparedRound } from '../lib/parts-replay.ts';
import { verdict, type ResultRow } from '../lib/result-row.ts';
import type { BenchContext } from '../lib/setup.ts';
import { summarize, type Summary } from '../lib/stats.ts';

const CASE = 'persona cycles per second';
const TARGET = '≥ 1,000 cycles/s';
const TARGET_RATE = 1000;

type Mode = 'idle' | 'work';

interface Plan {
  personas: number;
  /** timed rounds of each kind (a round is one cycle of every persona) */
  rounds: number;
  /** timed rounds of executor `orchestra` with work, the slowest kind (a new session folder and ledger tasks every cycle) */
  orchestraRounds: number;
  /** untimed, profiled rounds after each kind's timed ones (0: the profile of the plan before is used) */
  profiled: number;
}

const FULL: Plan[] = [
  { personas: 1, rounds: 50, orchestraRounds: 50, profiled: 5 },
  { personas: 100, rounds: 4, orchestraRounds: 3, profiled: 2 },
  { personas: 1000, rounds: 2, orchestraRounds: 1, profiled: 0 },
];
const QUICK: Plan[] = [
  { personas: 1, rounds: 20, orchestraRounds: 20, profiled: 3 },
  { personas: 100, rounds: 2, orchestraRounds: 1, profiled: 0 },
];

interface FleetFacts {
  executor: BenchExecutor;
  personas: number;
  openSeconds: number;
  firstCycleSeconds: number;
}

/** Where a cycle's time went, from the profiled rounds. */
interface Profile {
  /** how many personas the profiled rounds had */
  personas: number;
  /** fs metadata and read calls per cycle: counted, not in the floor */
  otherFsCalls: number;
  /** wall ms per cycle in the profiled rounds (slower than the timed ones: every fs call is timed) */
  msPerCycle: number;
  /** main-thread ms per cycle, by what */
  timePerCycle: [string, number][];
  /** fs calls per cycle, by function */
  callsPerCycle: Map<string, number>;
  /** the kernel's largest components by the CPU profile, ms per cycle, inclusive */
  components: [string, number][];
}

interface PhaseResult {
  mode: Mode;
  project: Summary;
  floor: Summary;
  parts: PartCounts;
  outcomes: Map<string, number>;
  profile?: Profile;
}

const plural = (n: number, word: string) => `${n.toLocaleString('en-US')} ${word}${n === 1 ? '' : 's'}`;
const ms = (x: number) => (x >= 10 ? x.toFixed(0) : x >= 1 ? x.toFixed(1) : x.toFixed(2));

function outcomeOf(report: CycleReport): string {
  const a = scienceReport(report).act;
  const detail = a.decision?.action === 'reviewer_handoff' ? 'reviewer handoff' : a.status ? `executor ${a.status}` : a.decision ? a.decision.action.replace(/_/g, ' ') : '';
  return detail ? `${a.outcome} (${detail})` : a.outcome;
}

const PART_KINDS = new Set(['openSync', 'writeSync', 'fsyncSync', 'fdatasyncSync', 'closeSync', 'writeFileSync', 'appendFileSync', 'renameSync', 'unlinkSync', 'write', 'fsync', 'fdatasync', 'plugin call']);

async function runPhase(fleet: BenchFleet, census: CycleCensus, replay: PartsReplay, mode: Mode, rounds: number, profiledRounds: number, packetRound: { n: number }): Promise<PhaseResult> {
  const n = fleet.runtimes.length;
  let latest: PreparedRound | undefined;
  const censuses: RoundCensus[] = [];
  const outcomes = new Map<string, number>();
  const projectRound = async (timed: boolean): Promise<number> => {
    if (mode === 'work') fleet.packets(packetRound.n++);
    census.recording = timed;
    const start = performance.now();
    const reports = await fleet.cycle();
    const elapsed = performance.now() - start;
    census.recording = false;
    fleet.tick();
    if (timed) {
      const round = census.take();
      latest = replay.prepare(round, n);
      censuses.push(round);
      for (const r of reports) outcomes.set(outcomeOf(r), (outcomes.get(outcomeOf(r)) ?? 0) + 1);
    }
    return elapsed;
  };
  const floorRound = async (): Promise<number> => {
    const start = performance.now();
    await replay.run(latest!);
    return performance.now() - start;
  };
  const projectMs: number[] = [];
  const floorMs: number[] = [];
  for (let r = 0; r < rounds; r++) {
    if (r % 2 === 0) {
      projectMs.push(await projectRound(true));
      // The first replay creates the floor's scratch files (the kernel's exist already): untimed.
      if (r === 0) await floorRound();
      floorMs.push(await floorRound());
    } else {
      floorMs.push(await floorRound());
      projectMs.push(await projectRound(true));
    }
  }
  // Then, untimed and warm, rounds with every fs call and plugin call timed: where the time
  // goes. Skipped where a round takes seconds (the notes use the profile of the plan before).
  let profiledMs = 0;
  let profiled: RoundCensus | undefined;
  let components: [string, number][] = [];
  if (profiledRounds > 0) {
    census.profile(true);
    const cpu = new CpuProfile();
    await cpu.start();
    for (let i = 0; i < profiledRounds; i++) profiledMs += await projectRound(false);
    components = await cpu.stop();
    census.profile(false);
    profiled = census.take();
  }
  const profiledCycles = profiledRounds * n;
  let otherFsCalls = 0;
  for (const [kind, count] of profiled?.counts ?? []) if (!PART_KINDS.has(kind)) otherFsCalls += count;
  const allParts: RoundCensus = { parts: new Map(censuses.flatMap((c, i) => [...c.parts].map(([k, v]) => [`${i}:${k}`, v] as const))), counts: new Map(), timeMs: new Map() };
  return {
    mode,
    project: summarize(projectMs),
    floor: summarize(floorMs),
    parts: countParts(allParts, rounds * n),
    outcomes,
    ...(profiled
      ? {
          profile: {
            personas: n,
            otherFsCalls: otherFsCalls / profiledCycles,
            msPerCycle: profiledMs / profiledCycles,
            timePerCycle: [...profiled.timeMs].map(([k, v]) => [k, v / profiledCycles] as [string, number]).sort((a, b) => b[1] - a[1]),
            callsPerCycle: new Map([...profiled.counts].map(([k, v]) => [k, v / profiledCycles])),
            components: components.map(([k, v]) => [k, v / profiledCycles] as [string, number]),
          },
        }
      : {}),
  };
}

function outcomeText(outcomes: Map<string, number>): string {
  const total = [...outcomes.values()].reduce((a, b) => a + b, 0);
  return [...outcomes]
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${Math.round((100 * v) / total)}%`)
    .join(', ');
}

function partsText(p: PartCounts): string {
  const f = (x: number) => (Number.isInteger(x) ? String(x) : x.toFixed(2));
  return `${f(p.calls)} plugin calls, ${f(p.appends)} event appends of ${Math.round(p.appendBytes)} bytes, ${f(p.fileWrites)} file writes of ${Math.round(p.writeBytes)} bytes on average, ${f(p.fsyncs)} fsyncs, ${f(p.renames)} renames, ${f(p.unlinks)} unlinks`;
}

/** Known costs, by what the time table names, and what would remove them. */
const REMEDIES: [RegExp, string][] = [
  [/brain\.json|saveBrain|loop\/brain\.ts/, 'brain.json is rewritten every cycle, idle or not (temp file, write, fsync, rename; its folder fsynced only when the file is new), in the thread pool while other personas are in a cycle and on the main thread otherwise: write it only when it changed, or fold it into the event log (the cycle event already carries what changed) with a checkpoint every k cycles'],
  [/trace\/|cycle-recorder|trace-store/, "the cycle's trace line (and its blobs: temp file, fsync, rename, folder fsync each) is made durable with synchronous fsyncs on the main thread before the cycle event: append it through the event log's group-committed O_DSYNC path, or carry it in the cycle event, and write blobs without a sync of their own (the trace line that names them is the commit point)"],
  [/orchestra\/|kernel\/ledger\/|ledger\/access/, "the persona's ledger is opened from scratch whenever its files changed, and once or more on every cycle with work (config.yaml read, an lstat check of every path, a lock file created and removed, the task file read and replayed): keep each persona's ledger state warm between cycles, keyed by the file's identity"],
  [/^(realpathSync|lstatSync|existsSync|statSync|mkdirSync)$|path checks/, 'path checks (an lstat of every part of each persona path, a stat of each brain folder, the ledger files\' identity) run again every cycle: do them once per persona at open and watch for changes instead'],
  [/IsolateRuntime|isolate-runtime\.ts|plugin-instance\.ts/, 'each persona rebuilds its isolates from time to time (fresh isolates every few dozen cycles: a new isolate, the shim and the bundle compiled from the code cache, on the main thread, inside a cycle): rebuild them between cycles, off the timed path, or share one isolate per plugin among personas'],
  [/plugin call/, "plugin calls cross into the persona's own isolate through the shim's JSON dispatcher: see the call round-trip rows for their cost against raw applySync"],
];

/** Which part of a persona's files a time-table key is about. */
function areaOf(key: string): string {
  const file = key.slice(key.indexOf(' ') + 1);
  if (file.startsWith('brain/memory')) return 'brain.json (brain/memory/)';
  if (file.startsWith('orchestra/')) return 'the ledger (orchestra/)';
  if (file.startsWith('trace/')) return 'the cycle trace (trace/)';
  if (file.startsWith('logs/')) return 'the event log';
  if (file.startsWith('review/')) return 'the review queue (review/)';
  if (file.startsWith('brain/sessions')) return 'session files';
  if (file.startsWith('brain/workspace')) return 'the workspace';
  if (file.startsWith('inbox') || file.startsWith('dm/')) return 'the inbox and dm probes';
  if (file === '<persona folder>') return 'the persona folder (path checks)';
  return file.startsWith('brain/') ? 'brain/ folders' : file;
}

function top(entries: Iterable<[string, number]>, count: number): [string, number][] {
  return [...entries].sort((a, b) => b[1] - a[1]).slice(0, count);
}

function whyMissed(n: number, r: PhaseResult, profile: Profile): { breakdown: string; text: string } {
  const rate = (n * 1000) / r.project.mean;
  const floorRate = (n * 1000) / r.floor.mean;
  const wall = r.project.mean / n;
  const fsItems = profile.timePerCycle.filter(([k]) => !k.startsWith('plugin call') && !k.startsWith('inside plugin calls'));
  const fsMs = fsItems.reduce((a, [, v]) => a + v, 0);
  const callMs = profile.timePerCycle.filter(([k]) => k.startsWith('plugin call')).reduce((a, [, v]) => a + v, 0);
  const profiledWall = profile.msPerCycle;
  const rest = Math.max(0, profiledWall - fsMs - callMs);
  const byFunction = new Map<string, number>();
  const byArea = new Map<string, number>();
  for (const [k, v] of fsItems) {
    const fn = k.slice(0, k.indexOf(' '));
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + v);
    byArea.set(areaOf(k), (byArea.get(areaOf(k)) ?? 0) + v);
  }
  const fnCalls = (fn: string) => (profile.callsPerCycle.get(fn) ?? 0).toFixed(fn === 'fsyncSync' || fn === 'renameSync' ? 1 : 0);
  const remedies = new Set<string>();
  const named = [...profile.components.slice(0, 4).map(([k]) => k), ...top(byArea, 3).map(([k]) => k), ...top(byFunction, 3).map(([k]) => k), ...(callMs > 0.2 * wall ? ['plugin call'] : [])];
  for (const k of named) for (const [pattern, text] of REMEDIES) if (pattern.test(k)) remedies.add(text);
  const floorNote =
    floorRate < TARGET_RATE
      ? `The raw parts alone reach only ${Math.round(floorRate).toLocaleString('en-US')} cycles/s here: with ${r.parts.fsyncs.toFixed(1)} fsyncs and ${r.parts.appends.toFixed(1)} O_DSYNC appends per cycle, this disk's flush latency bounds any implementation that makes a cycle durable the way this one does, so 1,000 cycles/s also needs fewer syncs per cycle (one durable append per cycle, brain state derived from the log) or syncs shared between personas (group commit across the personas' logs).`
      : `The raw parts alone reach ${Math.round(floorRate).toLocaleString('en-US')} cycles/s, so the parts are not what bounds it: the kernel's own work around them is.`;
  const breakdown = `${Math.round(rate).toLocaleString('en-US')} cycles/s is ${ms(wall)} ms of wall time per cycle. In untimed rounds of the same kind with every fs call and plugin call timed (${profile.personas === n ? 'run right after' : `run with ${plural(profile.personas, 'persona')}: ${n.toLocaleString('en-US')} are not profiled, to save time`}; ${ms(profiledWall)} ms a cycle there): synchronous fs calls ${ms(fsMs)} ms, plugin calls' synchronous stretch ${ms(callMs)} ms, and the rest, ${ms(rest)} ms, is the kernel's own JavaScript${profile.personas === 1 ? ' and waiting for the event log\'s fdatasync, which one persona cannot overlap with anything' : ''}. A CPU profile of those rounds names the largest components, inclusive of the fs calls they make (ms a cycle): ${profile.components.map(([k, v]) => `${k} ${ms(v)}`).join(', ') || 'none sampled'}. The fs time by file: ${top(byArea, 4).map(([k, v]) => `${k} ${ms(v)} ms`).join(', ')}; by call: ${top(byFunction, 4).map(([k, v]) => `${k} ${ms(v)} ms (${fnCalls(k)} calls)`).join(', ')}.`;
  // Past the kernel's isolate cap each persona's plugins are released between its cycles, so a
  // cycle with work rebuilds them from the code cache: the profile at 100 personas cannot show that.
  const isolateNote =
    r.mode === 'work' && n * PLUGINS_PER_PERSONA > DEFAULT_MAX_RESIDENT_ISOLATES
      ? ` Above all: ${plural(n, 'persona')} run ${(n * PLUGINS_PER_PERSONA).toLocaleString('en-US')} plugin isolates against the kernel's default cap of ${DEFAULT_MAX_RESIDENT_ISOLATES} resident ones (what keeps 1,000 personas under 2 GiB), so almost every plugin call of these rounds first rebuilds its isolate from the code cache (about 10-15 ms each); \`run --max-isolates ${n * PLUGINS_PER_PERSONA}\` keeps them all, at about 1.7 MiB each.`
      : '';
  return { breakdown, text: `${breakdown}${isolateNote} ${floorNote} What would close it: ${[...remedies].join('; ') || 'fewer synchronous fs calls per cycle'}.` };
}

function phaseRows(f: FleetFacts, r: PhaseResult, profile: Profile): ResultRow[] {
  const n = f.personas;
  const rate = (n * 1000) / r.project.mean;
  const floorRate = (n * 1000) / r.floor.mean;
  const what =
    r.mode === 'idle'
      ? 'idle cycles (no packet, periodic slot not due: no plugin is called)'
      : `cycles with a new work packet each (executor and budget policy called)${f.executor === 'none' ? '' : "; idle cycles call no plugin, so executor `none`'s idle rows stand for every executor"}`;
  const label = `executor \`${f.executor}\`, ${plural(n, 'persona')}, ${r.mode === 'idle' ? 'idle cycles' : 'cycles with work'}`;
  const p99Cycle = r.project.p99 / n;
  const why = whyMissed(n, r, profile);
  return [
    {
      case: CASE,
      variant: label,
      role: 'project',
      unit: 'cycles/s',
      median: rate,
      samples: r.project.n,
      ratio: rate / floorRate,
      ...(f.executor === 'none' ? { target: TARGET, verdict: verdict(rate >= TARGET_RATE), whyMissed: why.text } : {}),
      note: `${what}; ${plural(n, 'persona')} in this process's one LoopKernel, jerome-shaped profiles, fake clock +${CYCLE_SECONDS} s a round; ${plural(r.project.n, 'timed round')} of ${plural(n, 'cycle')} side by side, rate = all ${(r.project.n * n).toLocaleString('en-US')} timed cycles / their total time; round median ${ms(r.project.median)} ms, p99 ${ms(r.project.p99)} ms${n > 1 ? `, i.e. ${ms(p99Cycle)} ms a cycle` : ''}; outcomes: ${outcomeText(r.outcomes)}. Counted per cycle by instrumenting: ${partsText(r.parts)}; plus ${Math.round(profile.otherFsCalls)} fs reads, stats, realpaths and mkdirs${profile.personas === n ? '' : ` (counted at ${plural(profile.personas, 'persona')})`}, which the floor leaves out. Opening the personas took ${f.openSeconds.toFixed(1)} s and their first cycle (two isolates built per persona) ${f.firstCycleSeconds.toFixed(1)} s, both untimed. The timed rounds run with only the write-side instrumentation armed (one array push per write, fsync, append or plugin call).${f.executor === 'none' ? '' : ` Where the time goes: ${why.breakdown}`}`,
    },
    {
      case: CASE,
      variant: `sum of its parts, raw (${r.mode === 'idle' ? 'idle' : 'with work'}, ${plural(n, 'persona')})`,
      role: 'floor',
      unit: 'cycles/s',
      median: floorRate,
      samples: r.floor.n,
      note: `the parts the project round just made, replayed raw, personas side by side: ${partsText(r.parts)} per cycle, as applySync echoes of the same arguments in a bare isolate, O_DSYNC writes of the same bytes, and the same write/fsync/rename/unlink calls on scratch files; rate = cycles / total replay time; replay median ${ms(r.floor.median)} ms, p99 ${ms(r.floor.p99)} ms.`,
    },
  ];
}

interface FleetResult {
  facts: FleetFacts;
  phases: PhaseResult[];
}

async function measureFleet(ctx: BenchContext, executor: BenchExecutor, plan: Plan): Promise<FleetResult> {
  const n = plan.personas;
  // Idle cycles call no plugin, so they are the same for every executor: measured with `none` only.
  const modes: Mode[] = executor === 'none' ? ['idle', 'work'] : ['work'];
  const root = path.join(ctx.tmp, 'persona-cycles', `${executor}-${n}`);
  const census = new CycleCensus(path.join(root, 'state'));
  census.install();
  const replay = new PartsReplay(path.join(root, 'floor'));
  let fleet: BenchFleet | undefined;
  try {
    ctx.log(`  persona cycles: executor ${executor}, ${plural(n, 'persona')}: opening`);
    let start = performance.now();
    fleet = await openFleet(await openBenchKernel(root, ctx.cacheDir), n, executor);
    const openSeconds = (performance.now() - start) / 1000;
    start = performance.now();
    await fleet.cycle();
    fleet.tick();
    const firstCycleSeconds = (performance.now() - start) / 1000;
    ctx.log(`  persona cycles: opened in ${openSeconds.toFixed(1)} s, first cycle ${firstCycleSeconds.toFixed(1)} s; then ${plan.profiled} profiled and ${executor === 'orchestra' ? plan.orchestraRounds : plan.rounds} timed rounds ${modes.join(', then ')}`);
    const packetRound = { n: 0 };
    const phases: PhaseResult[] = [];
    for (const mode of modes) {
      start = performance.now();
      const rounds = executor === 'orchestra' ? plan.orchestraRounds : plan.rounds;
      phases.push(await runPhase(fleet, census, replay, mode, rounds, plan.profiled, packetRound));
      ctx.log(`  persona cycles: ${mode} rounds took ${((performance.now() - start) / 1000).toFixed(1)} s`);
    }
    return { facts: { executor, personas: n, openSeconds, firstCycleSeconds }, phases };
  } finally {
    const start = performance.now();
    census.uninstall();
    await fleet?.close();
    replay.dispose();
    rmSync(root, { recursive: true, force: true });
    ctx.log(`  persona cycles: closed and removed in ${((performance.now() - start) / 1000).toFixed(1)} s`);
  }
}

export async function personaCycles(ctx: BenchContext): Promise<ResultRow[]> {
  const rows: ResultRow[] = [];
  for (const executor of ['none', 'orchestra'] as const) {
    /** the latest profile per mode: 1,000 personas borrow the 100 personas' one */
    const profiles = new Map<Mode, Profile>();
    for (const plan of ctx.quick ? QUICK : FULL) {
      const { facts, phases } = await measureFleet(ctx, executor, plan);
      for (const phase of phases) {
        if (phase.profile) profiles.set(phase.mode, phase.profile);
        rows.push(...phaseRows(facts, phase, phase.profile ?? profiles.get(phase.mode)!));
      }
    }
    if (ctx.quick) {
      for (const mode of executor === 'none' ? ['idle cycles', 'cycles with work'] : ['cycles with work']) {
        rows.push({
          case: CASE,
          variant: `executor \`${executor}\`, 1,000 personas, ${mode}`,
          role: 'project',
          unit: 'cycles/s',
          ...(executor === 'none' ? { target: TARGET } : {}),
          verdict: 'full run only',
          note: "measured in the full run only (`npm run bench`): the first cycle of 1,000 personas builds 2,000 isolates, longer than the quick mode's whole budget.",
        });
      }
    }
  }
  return rows;
}
