/**
 * Many personas in one kernel process: each runs its own cycles on its own cadence, side by
 * side. A persona whose state cannot be written stops alone; the others carry on. A stop
 * request (the signal) ends the waits between cycles, never a cycle in progress; every
 * persona's log is flushed and closed before this returns.
 */
import type { LoadedPersona } from '../personas/load.ts';
import { realSleep, type Sleep } from './clock.ts';
import { errorLine } from '../../features/science-loop/decide.ts';
import { openLoopKernel, PersonaRuntime, type CycleReport, type LoopKernel, type LoopOptions } from './persona-runtime.ts';

export interface RunOptions extends LoopOptions {
  /** cycles per persona; undefined runs until the signal aborts */
  cycles?: number;
  signal?: AbortSignal;
  sleep?: Sleep;
  /** seconds between cycles for every persona, instead of each profile's cadence */
  everySeconds?: number;
  onCycle?: (report: CycleReport) => void;
}

export interface PersonaRun {
  persona_id: string;
  reports: CycleReport[];
  /** why the persona stopped early: its own state could not be written */
  stopped?: string;
}

/** Opens every persona (all or none: a start that fails closes what it opened). */
export async function openPersonas(kernel: LoopKernel, personas: readonly LoadedPersona[]): Promise<PersonaRuntime[]> {
  const opened: PersonaRuntime[] = [];
  try {
    for (const persona of personas) opened.push(await PersonaRuntime.open(kernel, persona));
  } catch (error) {
    await Promise.all(opened.map((rt) => rt.close()));
    throw error;
  }
  return opened;
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
    await sleep((options.everySeconds ?? runtime.profile.cadence.cycle_seconds) * 1000, options.signal);
  }
  return run;
}

/** Checks the environment, opens the personas, runs them, and closes them. */
export async function runPersonas(personas: readonly LoadedPersona[], options: RunOptions): Promise<PersonaRun[]> {
  const kernel = await openLoopKernel(options);
  const runtimes = await openPersonas(kernel, personas);
  try {
    return await Promise.all(runtimes.map((rt) => runPersonaLoop(rt, options)));
  } finally {
    await Promise.all(runtimes.map((rt) => rt.close()));
  }
}
