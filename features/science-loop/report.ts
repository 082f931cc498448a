/**
 * What a science-loop cycle reports to its caller besides the event (run --summary, tests):
 * the fields the steps put in the cycle's report. The kernel's CycleReport carries them
 * untyped; this names them.
 */
import type { CycleReport } from '../persona/persona-runtime.ts';
import type { PersonaRun } from './run-personas.ts';
import type { BudgetPosture } from './budget/posture.ts';
import type { ActResult } from './decide.ts';
import type { ProbeRecord } from './probes.ts';

export interface ScienceReport {
  /** null when the phase selector failed */
  phase: string | null;
  outcome: ActResult['outcome'];
  defer_reason: string | null;
  executor: string;
  posture: BudgetPosture;
  act: ActResult;
  probes: ProbeRecord[];
}

export type ScienceCycleReport = CycleReport<ScienceReport>;
export type ScienceRun = Omit<PersonaRun, 'reports'> & { reports: ScienceCycleReport[] };

/** A report of a cycle the science steps ran, with their fields typed. */
export function scienceReport(report: CycleReport): ScienceCycleReport {
  return report as ScienceCycleReport;
}
