/**
 * step.phase-least-recent: a loop step (kind loop-step) that picks the cycle's phase from the
 * brain's recent cycles: the profile's phase worked in least recently, one never worked in
 * first (in the profile's order). It reads the step value `brain` and produces `phase` (and
 * the cycle event's `phase`), so a harness lists it after `brain` and before `decide`.
 * A pure function of its input: the same brain gives the same phase, in replay too.
 */
import type { LoopStepInput, LoopStepResult } from '../../kernel/contracts/loop-step.ts';

interface RecentCycle {
  cycle: number;
  phase: string;
}

export function run(input: LoopStepInput): LoopStepResult {
  const brain = input.values.brain as { medium_term?: { recent?: RecentCycle[] } } | undefined;
  const recent = brain?.medium_term?.recent ?? [];
  if (input.phases.length === 0) return { problems: ['the profile lists no phases'] };
  // the last cycle each phase was worked in (0: never)
  const last = new Map<string, number>(input.phases.map((p) => [p, 0]));
  for (const r of recent) if (last.has(r.phase)) last.set(r.phase, Math.max(last.get(r.phase)!, r.cycle));
  let phase = input.phases[0]!;
  for (const p of input.phases) if (last.get(p)! < last.get(phase)!) phase = p;
  return { values: { phase }, payload: { phase } };
}
