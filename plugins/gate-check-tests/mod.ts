/**
 * gate-check.tests: runs the draft's test files (named as `deno test` finds them) in the
 * gate's sandbox, each as `deno test` runs it: every `Deno.test(...)` it registers, with its
 * own result, `ignore` and per-test permissions, in a fresh scratch folder (`Deno.args[0]`).
 * Passes when every file loads, registers at least one test, and no test fails.
 *
 * Zero executions are never a pass: a draft whose code has no tests fails with what to add;
 * a draft with no code at all (prose only) has nothing to test, so the check is not
 * applicable (and says so among what was not evaluated). An ignored test is not run, and is
 * listed as not evaluated.
 */
import { gate } from '../gate-check-shared/globals.ts';
import { earlier, result, runSummary, type GateCheckInput, type GateCheckResult, type TestFileRun } from '../gate-check-shared/results.ts';

interface BuildOutput {
  module: string | null;
  code: string[];
  tests: string[];
  builds: { entry: string; role: string; bundle?: unknown; error?: string }[];
  runnable_tests: string[];
}

export async function check(input: GateCheckInput): Promise<GateCheckResult> {
  const build = earlier(input, 'build');
  const out = build?.output as BuildOutput | undefined;
  if (!build || !out) return result('unavailable', 'the build check recorded nothing to run', { runs: [] });
  const codeFiles = [...(out.module ? [out.module] : []), ...out.code];
  if (out.tests.length === 0) {
    if (codeFiles.length === 0) return result('not-applicable', 'the draft has no code this gate runs: nothing to test', { runs: [] });
    const suggested = `tests/${input.draft.name}_test.ts`;
    return result('failed', `the draft has code (${codeFiles.join(', ')}) but no tests: add ${suggested} registering Deno.test(...) cases that exercise it`, { runs: [], code: codeFiles });
  }
  const runs: TestFileRun[] = [];
  for (const test of out.runnable_tests) runs.push(await gate.sandbox.test(test, 1));
  const notBuilt = out.builds.filter((b) => b.role === 'test' && !b.bundle).map((b) => `${b.entry}: not built (${b.error ?? 'no bundle'})`);
  const problems: string[] = [...notBuilt];
  const ignored: string[] = [];
  for (const run of runs) {
    if (run.exit_code !== 0 || run.tests.some((t) => t.result === 'failed')) problems.push(`${run.test}: ${runSummary(run)}`);
    else if (run.tests.length === 0) problems.push(`${run.test}: registers no Deno.test(...), so nothing in it was tested`);
    for (const t of run.tests) if (t.result === 'ignored') ignored.push(`${run.test}: "${t.name}" is ignored, so it was not run`);
  }
  const cases = runs.reduce((n, r) => n + r.tests.length, 0);
  const output = { sandbox: input.gate.sandbox.name, limits: input.gate.limits, runs, not_built: notBuilt };
  if (problems.length > 0) return result('failed', `${problems.length} of ${out.tests.length} test file(s) did not pass: ${problems.join('; ')}`, output, ignored);
  return result('passed', `${runs.length} test file(s), ${cases - ignored.length} test(s) passed in the "${input.gate.sandbox.name}" sandbox${ignored.length > 0 ? `, ${ignored.length} ignored` : ''}`, output, ignored);
}
