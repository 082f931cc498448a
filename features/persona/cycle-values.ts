/**
 * The values of one cycle (kernel/loop/step-values.ts: a step value is a name and a zod schema;
 * a step declares what it reads, uses and produces): the per-cycle store with each step's
 * checked view of it, and the start check that each value a step reads is produced by an
 * earlier step, and by one step only. The persona runtime's (persona-runtime.ts, start-check.ts);
 * they were kernel/loop/step-values.ts's until issue 25 moved them here.
 */
import { kernelError } from '../../kernel/errors.ts';
import type { StepValue, StepValueAccess, StepValueUse } from '../../kernel/loop/step-values.ts';

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
