/** The step registry: one step per name, so a harness's step list means one thing; the typed values steps hand each other. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { StepRegistry } from '../../kernel/loop/steps.ts';
import { stepValue } from '../../kernel/loop/step-values.ts';
import { CycleValues, valueOrderProblems } from '../../features/persona/cycle-values.ts';

test('two steps registered under one name are refused with RTC_ERR_HARNESS_STEP, an internal error (the composition is wrong, not the input)', () => {
  const registry = new StepRegistry().register({ name: 'observe', run: () => {} });
  assert.throws(() => registry.register({ name: 'observe', run: () => {} }), { code: 'RTC_ERR_HARNESS_STEP', internal: true, message: 'two steps are registered as "observe"' });
  assert.deepEqual(registry.names(), ['observe']);
});

test('a step reaches only the values it declared, and a value it puts is checked against its schema', () => {
  const phase = stepValue('phase', z.string().nullable(), 'the phase');
  const brain = stepValue('brain', z.object({ cycles: z.number() }), 'the brain');
  const values = new CycleValues();
  const picker = values.for({ name: 'pick', produces: [phase] });
  picker.put(phase, 'science_patrol');
  assert.throws(() => picker.put(brain, { cycles: 1 }), { code: 'RTC_ERR_HARNESS_STEP', internal: true, message: 'step "pick" puts "brain" without declaring it (produces)' });
  assert.throws(() => picker.get(brain), { message: 'step "pick" reads "brain" without declaring it (reads, uses or produces)' });
  const loader = values.for({ name: 'load', produces: [brain] });
  assert.throws(() => loader.put(brain, { cycles: 'one' } as never), { code: 'RTC_ERR_HARNESS_STEP', message: /^step "load" produced "brain" outside its schema: brain\.cycles: / });
  // the step's own object is handed on (a later step may update it), not the parse's copy
  const kept = { cycles: 2, extra: true };
  loader.put(brain, kept);
  const reader = values.for({ name: 'decide', reads: [brain], uses: [phase] });
  assert.equal(reader.get(brain), kept);
  assert.equal(reader.get(phase), 'science_patrol');
});

test('the order of a harness\'s steps: each value read is produced by an earlier step, and by one step only', () => {
  const a = stepValue('a', z.number(), 'a');
  const b = stepValue('b', z.number(), 'b');
  const at = (i: number) => `steps[${i}]`;
  assert.deepEqual(valueOrderProblems([{ name: 'make-a', produces: [a] }, { name: 'use-a', reads: [a], uses: [b] }], at), [], 'a value used when present may be missing');
  assert.deepEqual(valueOrderProblems([{ name: 'use-a', reads: [a] }, { name: 'make-a', produces: [a] }], at), [
    { field: 'steps[0]', reason: 'step "use-a" reads "a", which no earlier step produces (step "make-a" produces it, after this one)' },
  ]);
  assert.deepEqual(valueOrderProblems([{ name: 'use-b', reads: [b] }], at), [{ field: 'steps[0]', reason: 'step "use-b" reads "b", which no earlier step produces (no step of this harness produces it)' }]);
  assert.deepEqual(valueOrderProblems([{ name: 'one', produces: [a] }, { name: 'two', produces: [a] }], at), [
    { field: 'steps[1]', reason: 'step "two" produces "a", which step "one" (steps[0]) already produces; one step of a harness produces each value' },
  ]);
});

test('the registry knows the values its steps declare, one schema per name', () => {
  const a = stepValue('a', z.number(), 'a');
  const registry = new StepRegistry().register({ name: 'make', produces: [a], run: () => {} }, { name: 'use', reads: [a], run: () => {} });
  assert.equal(registry.value('a'), a);
  assert.deepEqual(registry.valueNames(), ['a']);
  assert.throws(() => registry.values(stepValue('a', z.string(), 'another a')), { code: 'RTC_ERR_HARNESS_STEP', internal: true, message: 'two step values are named "a"' });
});
