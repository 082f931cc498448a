/**
 * What steps hand each other within one cycle, typed: a step value is a name and a zod schema
 * (the schema is the one source of truth: the type a step reads is inferred from it, and a
 * value a step puts is checked against it). A step declares what it `reads` (an earlier step
 * of the harness must produce it: checked at start), what it `uses` when present (any order:
 * read if some step produced it by then, e.g. after the cycle event) and what it `produces`
 * (one step of a harness produces each value). The cycle's view of a step refuses a get or a
 * put it did not declare, so the declarations are what the step really does. This is the
 * contract; the per-cycle store and the start check of the values' order are the persona
 * runtime's (features/persona/cycle-values.ts).
 */
import type { z } from 'zod';
import { kernelError } from '../errors.ts';

/** A value one step hands later ones within a cycle: its name (what manifests say) and its schema. */
export interface StepValue<T = unknown> {
  readonly name: string;
  readonly schema: z.ZodType<T>;
  /** what the value is, for the harness docs and refusals */
  readonly doc: string;
}

export const STEP_VALUE_NAME = /^[a-z][a-z0-9_]{0,62}$/;

export function stepValue<T>(name: string, schema: z.ZodType<T>, doc: string): StepValue<T> {
  if (!STEP_VALUE_NAME.test(name)) throw kernelError('RTC_ERR_HARNESS_STEP', `step value "${name}": lowercase letters, digits and "_"`, { internal: true });
  return { name, schema, doc };
}

/** What a step declares of the cycle's values. */
export interface StepValueUse {
  readonly name: string;
  readonly reads?: readonly StepValue<any>[];
  readonly uses?: readonly StepValue<any>[];
  readonly produces?: readonly StepValue<any>[];
}

/** A step's access to the cycle's values: only what it declared. */
export interface StepValueAccess {
  /** a value an earlier step produced (undefined when its producer failed, or, for `uses`, when none ran yet) */
  get<T>(value: StepValue<T>): T | undefined;
  /** hands a value to later steps; checked against its schema (a value outside it is refused, naming the step) */
  put<T>(value: StepValue<T>, data: T): void;
  /**
   * hands on a value from outside the step's own code (a step plugin's answer): checked against
   * its schema like put, but a value outside it is said, not thrown (nothing is handed on then);
   * what is handed on is the schema's parse (unknown keys dropped), not the caller's object
   */
  offer<T>(value: StepValue<T>, data: unknown): { problem: string } | undefined;
}
