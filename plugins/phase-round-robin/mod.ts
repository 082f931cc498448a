/**
 * phase.round-robin: the profile's phases in turn, one per cycle. A pure function of the
 * cycle number: the same cycle always works in the same phase, on any machine and in replay.
 */
import type { PhaseAnswer, PhasePickInput } from '../../kernel/contracts/phase-selector.ts';

export function pick(input: PhasePickInput): PhaseAnswer {
  const phases = input.phases;
  return { phase: phases[(input.cycle - 1) % phases.length]! };
}
