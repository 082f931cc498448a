/**
 * What steps hand each other within one cycle, typed: a step value is a name and a zod schema
 * (the schema is the one source of truth: the type a step reads is inferred from it, and a
 * value a step puts is checked against it). A step declares what it `reads` (an earlier step
 * of the harness must produce it: checked at start), what it `uses` when present (any order:
 * read if some step produced it by then, e.g. after the cycle event) and what it `produces`
 * (one step of a harness produces each value). The cycle's view of a step refuses a get or a
 * put it did not declare, so the declarations are what the step really does.
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

/** The values of one cycle, and each step's checked view of them. */
export class CycleValues {
  readonly #values = new Map<string, unknown>();

  /** The access a step gets: a get or put it did not declare is a bug of the step, refused. */
  for(step: StepValueUse): StepValueAccess {
    const readable = new Set([...(step.reads ?? []), ...(step.uses ?? []), ...(step.produces ?? [])].map((v) => v.name));
    const writable = new Set((step.produces ?? []).map((v) => v.name));
    const writes = (value: StepValue<any>): void => {
      if (!writable.has(value.name)) throw kernelError('RTC_ERR_HARNESS_STEP', `step "${step.name}" puts "${value.name}" without declaring it (produces)`, { internal: true });
    };
    return {
      get: <T>(value: StepValue<T>): T | undefined => {
        if (!readable.has(value.name)) throw kernelError('RTC_ERR_HARNESS_STEP', `step "${step.name}" reads "${value.name}" without declaring it (reads, uses or produces)`, { internal: true });
        return this.#values.get(value.name) as T | undefined;
      },
      put: <T>(value: StepValue<T>, data: T): void => {
        writes(value);
        const problem = schemaProblem(value, data);
        if (problem) throw kernelError('RTC_ERR_HARNESS_STEP', `step "${step.name}" ${problem}`, { internal: true });
        // The step's own object is kept (not the parse's copy): a later step may mutate it (the brain is remembered after the event).
        this.#values.set(value.name, data);
      },
      offer: <T>(value: StepValue<T>, data: unknown): { problem: string } | undefined => {
        writes(value);
        const checked = value.schema.safeParse(data);
        if (!checked.success) return { problem: schemaProblem(value, data)! };
        this.#values.set(value.name, checked.data);
        return undefined;
      },
    };
  }
}

/** Why `data` is outside the value's schema (`produced "brain" outside its schema: brain.cycles: ...`), or undefined. */
function schemaProblem(value: StepValue<any>, data: unknown): string | undefined {
  const checked = value.schema.safeParse(data);
  if (checked.success) return undefined;
  const issue = checked.error.issues[0];
  const at = issue && issue.path.length > 0 ? `.${issue.path.join('.')}` : '';
  return `produced "${value.name}" outside its schema: ${value.name}${at}: ${issue?.message ?? 'invalid'}`;
}

/**
 * The order problems of a harness's steps: a value read before any step produced it, a value
 * two steps produce. `at(i)` names the field of the i-th step (`steps[3]`).
 */
export function valueOrderProblems(steps: readonly StepValueUse[], at: (i: number) => string): { field: string; reason: string }[] {
  const producedBy = new Map<string, { step: string; field: string }>();
  const laterProducer = (name: string, from: number) => steps.slice(from).find((s) => (s.produces ?? []).some((v) => v.name === name));
  const problems: { field: string; reason: string }[] = [];
  steps.forEach((step, i) => {
    for (const value of step.reads ?? []) {
      if (producedBy.has(value.name)) continue;
      const later = laterProducer(value.name, i + 1);
      problems.push({
        field: at(i),
        reason: `step "${step.name}" reads "${value.name}", which no earlier step produces${later ? ` (step "${later.name}" produces it, after this one)` : ' (no step of this harness produces it)'}`,
      });
    }
    for (const value of step.produces ?? []) {
      const first = producedBy.get(value.name);
      if (first) problems.push({ field: at(i), reason: `step "${step.name}" produces "${value.name}", which step "${first.step}" (${first.field}) already produces; one step of a harness produces each value` });
      else producedBy.set(value.name, { step: step.name, field: at(i) });
    }
  });
  return problems;
}
