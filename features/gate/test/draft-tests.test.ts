/**
 * What the gate keeps of a runner result (features/gate/draft-tests.ts): the limit that ended
 * a draft's test file is read from the runner's error record, where its code is data. A code
 * written only into a message's text is text: it names no limit.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { outcomeOf } from '../draft-tests.ts';
import type { TestErrorInfo, TestRunResult } from '../../sandbox-run/runner/test-runner.ts';

function resultWith(uncaught: TestErrorInfo | null, testError: TestErrorInfo | null = null): TestRunResult {
  return {
    ok: false,
    exitCode: 1,
    stdout: '',
    stderr: '',
    files: [
      {
        file: '/draft/tests/loop_test.ts',
        display: './tests/loop_test.ts',
        preOutput: '',
        tests: testError ? [{ name: 'spins', location: './tests/loop_test.ts:1:6', status: 'failed', durationMs: 12.4, error: testError, failedSteps: 0, steps: { passed: 0, failed: 0, ignored: 0 }, events: [] }] : [],
        uncaught,
      },
    ],
    summary: { passed: 0, failed: 1, ignored: 0, filteredOut: 0, passedSteps: 0, failedSteps: 0, ignoredSteps: 0, onlyUsed: false, durationMs: 13 },
  };
}

const CPU: TestErrorInfo = { name: 'KernelError', message: 'CPU time limit of 1000 ms exceeded', stack: '', isError: true, code: 'RTC_ERR_SANDBOX_CPU' };

test("a limit that ended a test is the run's error, its code read from the record (the message does not carry it)", () => {
  const outcome = outcomeOf(resultWith(null, CPU), undefined);
  assert.deepEqual(outcome.error, { name: 'KernelError', message: 'CPU time limit of 1000 ms exceeded', code: 'RTC_ERR_SANDBOX_CPU' });
  assert.deepEqual(outcome.tests, [{ name: 'spins', result: 'failed', error: 'KernelError: RTC_ERR_SANDBOX_CPU: CPU time limit of 1000 ms exceeded', duration_ms: 12 }]);
});

test('an uncaught limit is the run error with its code', () => {
  assert.equal(outcomeOf(resultWith(CPU), undefined).error?.code, 'RTC_ERR_SANDBOX_CPU');
});

test('a code only in the text names no limit: a test that failed by itself is not the run error', () => {
  const wrote: TestErrorInfo = { name: 'Error', message: 'RTC_ERR_SANDBOX_CPU: made up by the test', stack: '', isError: true };
  const outcome = outcomeOf(resultWith(null, wrote), undefined);
  assert.equal(outcome.error, null);
  const uncaught = outcomeOf(resultWith(wrote), undefined);
  assert.deepEqual(uncaught.error, { name: 'Error', message: 'RTC_ERR_SANDBOX_CPU: made up by the test' });
});

test('a kernel code that is no limit is not kept as one', () => {
  const load: TestErrorInfo = { name: 'KernelError', message: 'cannot resolve ./missing.ts', stack: '', isError: true, code: 'RTC_ERR_BUNDLE' };
  assert.deepEqual(outcomeOf(resultWith(load), undefined).error, { name: 'KernelError', message: 'cannot resolve ./missing.ts' });
});
