/**
 * Case 3c (issue 18 item 5): 100 idle personas' cycles per second on one worker thread and
 * on two, next to the in-process run (`run --workers 1`, the alternative a user has).
 *
 * Each variant opens the same 100 generated personas (bench-personas.ts, executor `none`,
 * periodic slot a day away, so every cycle after the first is idle: no packet, no plugin
 * called) in a state directory of its own that persists across rounds, runs them as `run`
 * does with --every 0 (each persona's loop back to back, all side by side), and closes them:
 *   in-process  one LoopKernel on the bench's main thread (inProcessFleet, `--workers 1`);
 *   1 worker    the pool (pool.ts) with one worker thread hosting all 100;
 *   2 workers   the pool with two, 50 personas each (`--workers 2`).
 * The first cycle of each persona in a variant's run (it builds the persona's isolates) is
 * untimed: the window starts when every persona has reported its first cycle and ends when
 * the first persona reports its last (Window); rate = cycle reports arriving in the window /
 * its length, as the main thread sees them (what `run` prints). Variants rotate their order round by round.
 * Target: 2 workers at least 1.6x the cycles/s of 1 (this machine has two cores, shared).
 */
import { mkdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CycleReport } from '../../features/persona/persona-runtime.ts';
import { openLoopKernel } from '../../features/science-loop/preset.ts';
import { ChildRegistry } from '../../features/science-loop/executors/children.ts';
import { openPersonas } from '../../features/science-loop/run-personas.ts';
import type { LoadedPersona } from '../../kernel/personas/profile-schema.ts';
import { inProcessFleet } from '../../features/science-loop/workers/fleet.ts';
import { PersonaWorkers } from '../../features/science-loop/workers/pool.ts';
import { writeProfiles } from '../lib/bench-personas.ts';
import { verdict, type ResultRow } from '../lib/result-row.ts';
import type { BenchContext } from '../lib/setup.ts';
import { autogroupEnabled, busyThreads, threadTimes, type ThreadTimes } from '../lib/thread-cpu.ts';

const CASE = 'persona cycles per second on worker threads';
const PERSONAS = 100;
const TARGET_RATIO = 1.6;

type Variant = 'in-process' | '1 worker' | '2 workers';
const VARIANTS: Variant[] = ['in-process', '1 worker', '2 workers'];

/**
 * The steady window of one run: it opens when every persona has reported its first cycle
 * (isolates built) and closes when the first persona reports its last one, so every persona,
 * on every thread, is warm and still cycling throughout; rate = reports inside / its length.
 */
class Window {
  readonly #seen = new Map<string, number>();
  readonly #cycles: number;
  #start: number | undefined;
  #end: number | undefined;
  #counted = 0;
  #threadsAtStart: ThreadTimes | undefined;
  #threads: ReturnType<typeof busyThreads> | undefined;

  constructor(cycles: number) {
    this.#cycles = cycles;
  }

  onCycle = (report: CycleReport): void => {
    const now = performance.now();
    const n = (this.#seen.get(report.persona_id) ?? 0) + 1;
    this.#seen.set(report.persona_id, n);
    if (n === 1) {
      if (this.#seen.size === PERSONAS) {
        this.#start = now;
        this.#threadsAtStart = threadTimes();
      }
      return;
    }
    if (this.#start === undefined || this.#end !== undefined) return;
    this.#counted += 1;
    if (n === this.#cycles) {
      this.#end = now;
      const after = threadTimes();
      if (this.#threadsAtStart && after) this.#threads = busyThreads(this.#threadsAtStart, after, now - this.#start);
    }
  };

  /** cycles and ms of the window; `threads`: what the process's threads did in it (Linux) */
  get result(): { cycles: number; ms: number; threads?: ReturnType<typeof busyThreads> } {
    return { cycles: this.#counted, ms: this.#start === undefined || this.#end === undefined ? 0 : this.#end - this.#start, ...(this.#threads ? { threads: this.#threads } : {}) };
  }
}

type Measured = Window['result'] & { openMs: number };

async function measure(variant: Variant, personas: LoadedPersona[], stateDir: string, ctx: BenchContext, cycles: number): Promise<Measured> {
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: os.tmpdir() };
  const window = new Window(cycles);
  const started = performance.now();
  const children = new ChildRegistry();
  const kernel = await openLoopKernel({ stateDir, env, cacheDir: ctx.cacheDir, spendTokens: false, children });
  if (variant === 'in-process') {
    const fleet = inProcessFleet(children, await openPersonas(kernel, personas), { cycles, everySeconds: 0, onCycle: window.onCycle });
    const openMs = performance.now() - started;
    await fleet.run();
    return { ...window.result, openMs };
  }
  const pool = await PersonaWorkers.open({
    workers: variant === '1 worker' ? 1 : 2,
    personas,
    substrate: kernel.substrate,
    loop: { stateDir, env, spendTokens: false, cacheDir: ctx.cacheDir },
    cycles,
    everySeconds: 0,
    onCycle: window.onCycle,
    onNotice: (line) => ctx.log(`  ${line}`),
  });
  const openMs = performance.now() - started;
  await pool.run();
  return { ...window.result, openMs };
}

export async function personaWorkers(ctx: BenchContext): Promise<ResultRow[]> {
  const root = path.join(ctx.tmp, 'persona-workers');
  const rounds = ctx.quick ? 1 : 3;
  // cycles per persona per run: the first is untimed
  const cycles = ctx.quick ? 8 : 16;
  const personas = writeProfiles(path.join(root, 'profiles'), PERSONAS, 'none');
  // onCpuMs / waitingMs: the process's threads' CPU time and wait for a CPU in the windows (ms of CPU)
  const totals = new Map<Variant, { cycles: number; ms: number; openMs: number[]; onCpuMs: number; waitingMs: number; threadMs: number }>(
    VARIANTS.map((v) => [v, { cycles: 0, ms: 0, openMs: [], onCpuMs: 0, waitingMs: 0, threadMs: 0 }]),
  );
  const loads: number[] = [];
  try {
    for (let r = 0; r < rounds; r++) {
      const order = VARIANTS.map((_, i) => VARIANTS[(i + r) % VARIANTS.length]!);
      for (const variant of order) {
        const stateDir = path.join(root, variant.replace(/ /g, '-'));
        mkdirSync(stateDir, { recursive: true });
        loads.push(os.loadavg()[0] ?? 0);
        const m = await measure(variant, personas, stateDir, ctx, cycles);
        const t = totals.get(variant)!;
        t.cycles += m.cycles;
        t.ms += m.ms;
        t.openMs.push(m.openMs);
        if (m.threads) {
          t.onCpuMs += m.threads.onCpu * m.ms;
          t.waitingMs += m.threads.waiting * m.ms;
          t.threadMs += m.ms;
        }
        const sched = m.threads ? `; threads on a CPU ${m.threads.onCpu.toFixed(2)}, waiting for one ${m.threads.waiting.toFixed(2)} (CPUs)` : '';
        ctx.log(`  persona workers: round ${r + 1}, ${variant}: ${m.cycles} idle cycles in ${(m.ms / 1000).toFixed(2)} s (${Math.round((m.cycles * 1000) / m.ms)}/s), opened in ${(m.openMs / 1000).toFixed(1)} s${sched}`);
      }
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  const rate = (v: Variant) => (totals.get(v)!.cycles * 1000) / totals.get(v)!.ms;
  const one = rate('1 worker');
  const two = rate('2 workers');
  const inProcess = rate('in-process');
  const load = `load average (1 min) ${Math.min(...loads).toFixed(1)}-${Math.max(...loads).toFixed(1)} at the variants' starts on ${os.availableParallelism()} cores`;
  const common = `${PERSONAS} idle personas (executor \`none\`), ${cycles - 1} timed cycles each per run after an untimed first one, ${rounds} round(s) with the variants' order rotating; rate = cycle reports reaching the main thread while every persona is warm and still cycling (from the moment all 100 have reported their untimed first cycle to the first persona's last report) / that time; ${load}`;
  const opened = (v: Variant) => `opening (kernel, workers, 100 personas) took ${(totals.get(v)!.openMs.reduce((a, b) => a + b, 0) / rounds / 1000).toFixed(1)} s a run`;
  const ratio = two / one;
  // What the threads did: CPUs used on average in the windows, and CPUs' worth of waiting for one.
  const sched = (v: Variant) => {
    const t = totals.get(v)!;
    return t.threadMs > 0 ? { onCpu: t.onCpuMs / t.threadMs, waiting: t.waitingMs / t.threadMs } : undefined;
  };
  const schedNote = (v: Variant) => {
    const s = sched(v);
    return s ? `; in its windows the process's threads were on a CPU for ${s.onCpu.toFixed(2)} CPUs and runnable but waiting for one for ${s.waiting.toFixed(2)} CPUs (schedstat)` : '';
  };
  const autogroup = autogroupEnabled();
  const held = sched('2 workers');
  const heldBack =
    held && held.waiting >= 0.5 * held.onCpu
      ? `the threads were held back by the host, not by their own work: in the 2-worker windows they were on a CPU for ${held.onCpu.toFixed(2)} CPUs (1 worker: ${sched('1 worker')!.onCpu.toFixed(2)}) and runnable but waiting for one for ${held.waiting.toFixed(2)} CPUs more${autogroup ? '; this kernel shares CPU time between sessions, not threads (sched_autogroup_enabled = 1), so while other sessions are busy a second thread adds waiting, not CPU' : ''}`
      : `this machine's two cores were shared with other work (${load}), so a second thread gets well under a second core; an idle cycle also makes fsyncs (the event append, brain.json, the trace line) that the disk serialises across both threads`;
  return [
    {
      case: CASE,
      variant: '2 worker threads, 50 personas each (`run --workers 2`)',
      role: 'project',
      unit: 'cycles/s',
      median: two,
      samples: totals.get('2 workers')!.cycles,
      ratio: ratio,
      target: `≥ ${TARGET_RATIO}x one worker`,
      verdict: verdict(ratio >= TARGET_RATIO),
      note: `${ratio.toFixed(2)}x the 1-worker rate and ${(two / inProcess).toFixed(2)}x the in-process rate in the same run; ${common}; ${opened('2 workers')}${schedNote('2 workers')}.`,
      whyMissed: `two workers ran ${ratio.toFixed(2)}x the cycles of one, under ${TARGET_RATIO}x: ${heldBack}. On an idle machine the figure is the ratio to re-measure.`,
    },
    {
      case: CASE,
      variant: '1 worker thread hosting all 100 (the ratio\'s base)',
      role: 'floor',
      unit: 'cycles/s',
      median: one,
      samples: totals.get('1 worker')!.cycles,
      note: `the pool with one worker: the same per-thread work as 2 workers without the second core; ${common}; ${opened('1 worker')}${schedNote('1 worker')}.`,
    },
    {
      case: CASE,
      variant: 'in-process (`run --workers 1`, the default)',
      role: 'alternative',
      unit: 'cycles/s',
      median: inProcess,
      samples: totals.get('in-process')!.cycles,
      ratio: inProcess / one,
      note: `every persona on the bench's main thread, as \`run\` without --workers; ${common}; ${opened('in-process')}${schedNote('in-process')}.`,
    },
  ];
}
