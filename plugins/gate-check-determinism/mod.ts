/**
 * gate-check.determinism: runs the same test files a second time, each with a fresh scratch
 * folder, and requires the same exit status, the same result for each Deno.test, and
 * byte-identical stdout once the test runner's timings are taken out. Where a run differs,
 * the output names the first differing byte and shows both sides around it.
 */
import { gate } from '../gate-check-shared/globals.ts';
import { noRuns, result, runsOf, withoutTimings, type GateCheckInput, type GateCheckResult, type TestFileRun } from '../gate-check-shared/results.ts';

function firstDifference(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return n;
}

function outcomes(run: TestFileRun): string {
  return JSON.stringify(run.tests.map((t) => [t.name, t.result]));
}

function compare(first: TestFileRun, second: TestFileRun): { test: string; same: boolean; problem?: string; detail: Record<string, unknown> } {
  const a = withoutTimings(first.stdout);
  const b = withoutTimings(second.stdout);
  const detail: Record<string, unknown> = { exit_codes: [first.exit_code, second.exit_code], results: [first.tests, second.tests].map((ts) => ts.map((t) => ({ name: t.name, result: t.result }))) };
  if (first.exit_code !== second.exit_code) return { test: first.test, same: false, problem: `exit ${first.exit_code} then ${second.exit_code}`, detail };
  if (outcomes(first) !== outcomes(second)) return { test: first.test, same: false, problem: 'the Deno.test results differ between the runs', detail };
  if (a !== b) {
    const at = firstDifference(a, b);
    detail.first_difference = { offset: at, first: a.slice(Math.max(0, at - 40), at + 40), second: b.slice(Math.max(0, at - 40), at + 40) };
    return { test: first.test, same: false, problem: `stdout differs from byte ${at}`, detail };
  }
  return { test: first.test, same: true, detail };
}

export async function check(input: GateCheckInput): Promise<GateCheckResult> {
  const none = noRuns(input, 'there is nothing to repeat');
  if (none) return { ...none, output: { comparisons: [], runs: [] } };
  const first = runsOf(input, 'tests');
  const runs: TestFileRun[] = [];
  for (const run of first) runs.push(await gate.sandbox.test(run.test, 2));
  const comparisons = first.map((run, i) => compare(run, runs[i]!));
  const differing = comparisons.filter((c) => !c.same).map((c) => `${c.test}: ${c.problem}`);
  const output = { comparisons, runs };
  if (differing.length > 0) return result('failed', `${differing.length} of ${first.length} test file(s) gave different results on a second run: ${differing.join('; ')}`, output);
  return result('passed', `${first.length} test file(s) gave the same results and stdout twice`, output);
}
