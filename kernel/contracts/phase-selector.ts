/**
 * The phase-selector contract (`kind: phase-selector`): `pick(input) → { phase }`. Each cycle
 * the loop asks the persona's selector (profile `phase:`, default `phase.round-robin`) which of
 * the profile's `phases` this cycle works in; the answer must be one of them.
 */
import { z } from 'zod';

/** What `pick` is called with. */
export const phasePickInputSchema = z.object({
  persona_id: z.string(),
  cycle: z.number().int().min(1).describe('1-based cycle number'),
  phases: z.array(z.string()).min(1).describe('the profile\'s phases, in its order'),
  history: z.array(z.object({ cycle: z.number().int(), phase: z.string(), outcome: z.string() })).describe('the last (up to 10) cycles, oldest first'),
});
export type PhasePickInput = z.infer<typeof phasePickInputSchema>;

/** What `pick` returns. */
export const phaseAnswerSchema = z.object({ phase: z.string().min(1).max(64) });
export type PhaseAnswer = z.infer<typeof phaseAnswerSchema>;

export const PHASE_SELECTOR_EXPORTS = ['pick'] as const;
