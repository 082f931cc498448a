/**
 * A step provided by a plugin (`kind: loop-step`, kernel/contracts/loop-step.ts): a harness
 * names it by its id among its steps. Its manifest's `loop_step:` section names the step
 * values it reads, uses and produces; they resolve against the values the composition's
 * steps registered (each with its schema), so a plugin step is checked at start like any
 * other. Each cycle its `run` is called in its own isolate under the persona's grant, through
 * the persona's plugins (recorded in the cycle's trace like every plugin call).
 *
 * A plugin answers data, so everything it says is checked: the answer against the contract,
 * each value against its schema, each payload field against its manifest. What fails is a
 * problem of the cycle and the value is not handed on (a later step sees it missing).
 */
import path from 'node:path';
import type { z } from 'zod';
import { describeZodError } from '../../../kernel/manifest/load.ts';
import { LOOP_STEP_ID_PREFIX, loopStepResultSchema, type LoopStepSection } from '../../../kernel/contracts/loop-step.ts';
import { errorLine } from '../../../kernel/errors.ts';
import type { LoadedPlugin } from '../../../kernel/plugins/registry.ts';
import { displayPath } from '../../plugin-search/scan.ts';
import type { StepValue } from '../../../kernel/loop/step-values.ts';
import type { CycleContext, LoopStep, StartProblem, StepRegistry } from '../../../kernel/loop/steps.ts';

/** A dotted step name in a harness is a step plugin's id. */
export function isPluginStep(name: string): boolean {
  return name.startsWith(LOOP_STEP_ID_PREFIX);
}

/** The step a loop-step plugin provides, or the problems of its manifest's value names (at its plugin.yaml). */
export function pluginStep(plugin: LoadedPlugin, steps: StepRegistry): { step: LoopStep } | { problems: StartProblem[] } {
  const id = plugin.manifest.id;
  const section: LoopStepSection = plugin.manifest.loop_step ?? { reads: [], uses: [], produces: [], payload: [] };
  const file = displayPath(path.join(plugin.dir, 'plugin.yaml'));
  const problems: StartProblem[] = [];
  const resolve = (field: 'reads' | 'uses' | 'produces'): StepValue[] =>
    section[field].flatMap((name, i) => {
      const value = steps.value(name);
      if (!value) problems.push({ file, field: `loop_step.${field}[${i}]`, reason: `no step value "${name}" (values the steps provide: ${steps.valueNames().join(', ') || 'none'})` });
      return value ? [value] : [];
    });
  const reads = resolve('reads');
  const uses = resolve('uses');
  const produces = resolve('produces');
  if (problems.length > 0) return { problems };
  const payloadFields = new Set(section.payload);

  return {
    step: {
      name: id,
      reads,
      uses,
      produces,
      async run(c: CycleContext) {
        const p = c.persona;
        const values: Record<string, unknown> = {};
        for (const value of [...reads, ...uses]) {
          const v = c.get(value);
          if (v !== undefined) values[value.name] = v;
        }
        let answer: z.output<typeof loopStepResultSchema>;
        try {
          const raw = await p.plugins.get(id, 'loop-step').call('run', { step: id, persona_id: p.profile.id, runtime: p.profile.runtime, cycle: c.cycle, now: c.now, phases: [...p.profile.phases], values });
          const parsed = loopStepResultSchema.safeParse(raw);
          if (!parsed.success) {
            const { field, reason } = describeZodError(parsed.error);
            c.problems.push(`step ${id}: run() answered outside the loop-step contract at ${field}: ${reason}`);
            return;
          }
          answer = parsed.data;
        } catch (error) {
          c.problems.push(`step ${id}: ${errorLine(error)}`);
          return;
        }
        for (const [name, data] of Object.entries(answer.values)) {
          const value = produces.find((v) => v.name === name);
          if (!value) {
            c.problems.push(`step ${id}: produced "${name}", which its manifest does not list in loop_step.produces`);
            continue;
          }
          const refused = c.offer(value, data);
          if (refused) c.problems.push(`step ${id}: ${refused.problem}`);
        }
        for (const [field, data] of Object.entries(answer.payload)) {
          if (payloadFields.has(field)) c.payload[field] = data;
          else c.problems.push(`step ${id}: added cycle event field "${field}", which its manifest does not list in loop_step.payload`);
        }
        for (const problem of answer.problems) c.problems.push(`step ${id}: ${problem}`);
      },
    },
  };
}
