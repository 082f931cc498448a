/**
 * Small helpers the gate checks share: building a result, reading an earlier check's
 * output, and saying what happened in a run in one line. (Type imports only from the kernel:
 * a plugin's bundle holds nothing but its own folder and this one.)
 */
import type { GateCheckInput, GateCheckResult, GateCheckStatus, TestFileRun } from '../../kernel/contracts/gate-check.ts';

export type { GateCheckInput, GateCheckResult, TestFileRun };

export function result(status: GateCheckStatus, reason: string, output: unknown, notEvaluated: string[] = []): GateCheckResult {
  return { status, reason, output, not_evaluated: notEvaluated };
}

/** An earlier check's result, or undefined when the profile does not have it. */
export function earlier(input: GateCheckInput, name: string): GateCheckInput['earlier'][string] | undefined {
  return input.earlier[name];
}

/** The sandbox runs an earlier check recorded in its output (`runs`). */
export function runsOf(input: GateCheckInput, name: string): TestFileRun[] {
  const output = earlier(input, name)?.output as { runs?: TestFileRun[] } | undefined;
  return Array.isArray(output?.runs) ? output.runs : [];
}

export function endedOnLimit(run: TestFileRun): boolean {
  return run.ended_on_limit === true;
}

/** `exit 1 (RTC_ERR_SANDBOX_CPU: CPU time limit of 1000 ms exceeded)`, `2 of 3 tests failed (adds: ...)`, or `exit 0`. */
export function runSummary(run: TestFileRun): string {
  const error = run.error;
  if (error?.code) return `exit ${run.exit_code} (${error.code}: ${error.message})`;
  const failed = run.tests.filter((t) => t.result === 'failed');
  if (failed.length > 0) return `${failed.length} of ${run.tests.length} test(s) failed (${failed.map((t) => `"${t.name}": ${t.error ?? 'failed'}`).join('; ')})`;
  if (error) return `exit ${run.exit_code} (${error.name}: ${error.message.split('\n')[0]})`;
  return `exit ${run.exit_code}`;
}

/** Why the tests check did not run anything, for the checks that read its runs. */
export function noRuns(input: GateCheckInput, what: string): GateCheckResult | undefined {
  const tests = earlier(input, 'tests');
  if (!tests) return result('unavailable', `the profile has no tests check, so ${what}`, { runs: [] });
  if (tests.status === 'not-applicable') return result('not-applicable', `no code of the draft ran, so ${what}`, { runs: [] });
  if (runsOf(input, 'tests').length === 0) return result('unavailable', `no test ran, so ${what}`, { runs: [] });
  return undefined;
}

/** A run's stdout with the test runner's timings (`ok (765µs)`, `(25ms)`) taken out: they differ on every run. */
export function withoutTimings(text: string): string {
  return text.replace(/\((\d+(?:\.\d+)?)(?:ns|µs|us|ms|s|m)\)/g, '(…)');
}
