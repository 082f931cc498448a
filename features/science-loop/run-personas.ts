/**
 * Many personas in one kernel process: each runs its own cycles on its own cadence, side by
 * side. A persona that cannot start (start-check.ts) is refused alone, with one line per
 * problem; the others start. A persona whose state cannot be written stops alone; the others
 * carry on. A stop request (the signal) ends the waits between cycles, never a cycle in
 * progress; every persona's log is flushed and closed before this returns.
 */
import { errorLine } from '../../kernel/errors.ts';
import type { LoadedPersona } from '../../kernel/personas/profile-schema.ts';
import { realSleep, type Sleep } from '../persona/clock.ts';
import { openLoopKernel, PersonaRuntime, type CycleReport, type LoopKernel, type LoopOptions } from '../persona/persona-runtime.ts';
import { startProblems } from '../persona/start-check.ts';

export interface RunOptions extends LoopOptions {
  /** cycles per persona; undefined runs until the signal aborts */
  cycles?: number;
  signal?: AbortSignal;
  sleep?: Sleep;
  /** seconds between cycles for every persona, instead of each profile's cadence */
  everySeconds?: number;
  onCycle?: (report: CycleReport) => void;
  /** before each wait between two cycles (not after the last one): who waits, how long, for which cycle */
  onWait?: (wait: CycleWait) => void;
}

/** A persona waiting for its next cycle: what `run` says while it would otherwise be silent. */
export interface CycleWait {
  persona_id: string;
  /** the cycle that runs after the wait */
  next_cycle: number;
  seconds: number;
  /** when it is due (ISO) */
  next_at: string;
  /** `every`: --every for every persona; `cadence`: the profile's cadence.cycle_seconds */
  source: 'every' | 'cadence';
}

export interface PersonaRun {
  persona_id: string;
  reports: CycleReport[];
  /** why the persona stopped early: its own state could not be written */
  stopped?: string;
  /** why the persona did not start: one line per problem (it ran no cycle) */
  refused?: string[];
}

export interface OpenedPersonas {
  runtimes: PersonaRuntime[];
  /** personas that did not start, each with its problem lines */
  refused: { persona_id: string; problems: string[] }[];
}

/** Opens every persona that can start; the others are refused with their problems, never half-opened. */
export async function openPersonas(kernel: LoopKernel, personas: readonly LoadedPersona[]): Promise<OpenedPersonas> {
  const out: OpenedPersonas = { runtimes: [], refused: [] };
  for (const persona of personas) {
    try {
      out.runtimes.push(await PersonaRuntime.open(kernel, persona));
    } catch (error) {
      const problems = startProblems(error);
      out.refused.push({ persona_id: persona.profile.id, problems: problems.length > 0 ? problems : [`persona ${persona.profile.id}: ${errorLine(error)}`] });
    }
  }
  return out;
}

export async function runPersonaLoop(runtime: PersonaRuntime, options: Omit<RunOptions, keyof LoopOptions>): Promise<PersonaRun> {
  const run: PersonaRun = { persona_id: runtime.profile.id, reports: [] };
  const sleep = options.sleep ?? realSleep;
  for (let i = 0; options.cycles === undefined || i < options.cycles; i++) {
    if (options.signal?.aborted) break;
    try {
      const report = await runtime.cycle();
      run.reports.push(report);
      options.onCycle?.(report);
    } catch (error) {
      run.stopped = errorLine(error);
      break;
    }
    if (options.cycles !== undefined && i + 1 >= options.cycles) break;
    if (options.signal?.aborted) break;
    const seconds = options.everySeconds ?? runtime.profile.cadence.cycle_seconds;
    if (seconds > 0) {
      options.onWait?.({
        persona_id: run.persona_id,
        next_cycle: (run.reports.at(-1)?.cycle ?? runtime.cycles) + 1,
        seconds,
        next_at: new Date(Date.now() + seconds * 1000).toISOString(),
        source: options.everySeconds !== undefined ? 'every' : 'cadence',
      });
    }
    await sleep(seconds * 1000, options.signal);
  }
  return run;
}

/**
 * Whether a run went wrong for a persona: it did not start, it stopped, or every one of its
 * cycles failed (a cycle that records `outcome: failed`). `run` exits non-zero then.
 */
export function runFailed(run: Pick<PersonaRun, 'refused' | 'stopped' | 'reports'>): boolean {
  if (run.refused || run.stopped) return true;
  return run.reports.length > 0 && run.reports.every((r) => r.payload.outcome === 'failed');
}

/** Checks the environment, opens the personas that can start, runs them, and closes them. */
export async function runPersonas(personas: readonly LoadedPersona[], options: RunOptions): Promise<PersonaRun[]> {
  const kernel = await openLoopKernel(options);
  const { runtimes, refused } = await openPersonas(kernel, personas);
  try {
    const runs = await Promise.all(runtimes.map((rt) => runPersonaLoop(rt, options)));
    return [...runs, ...refused.map((r) => ({ persona_id: r.persona_id, reports: [], refused: r.problems }))];
  } finally {
    await Promise.all(runtimes.map((rt) => rt.close()));
  }
}
