/** The step registry: one step per name, so a harness's step list means one thing. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StepRegistry } from '../../kernel/loop/steps.ts';

test('two steps registered under one name are refused with RTC_ERR_HARNESS_STEP, an internal error (the composition is wrong, not the input)', () => {
  const registry = new StepRegistry().register({ name: 'observe', run: () => {} });
  assert.throws(() => registry.register({ name: 'observe', run: () => {} }), { code: 'RTC_ERR_HARNESS_STEP', internal: true, message: 'two steps are registered as "observe"' });
  assert.deepEqual(registry.names(), ['observe']);
});
