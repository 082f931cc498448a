/**
 * `tests`: runs the draft's declared tests (`tests/*_test.ts` or `tests/*.test.ts`, each a Deno-style script
 * that exits 0 on pass) in the sandbox. Passes when every test exits 0; a draft that
 * declares no tests leaves it unavailable (zero executions are not a pass).
 */
import { describeRun, runPass, runSummary } from '../sandbox-runs.ts';
import type { CheckOutcome, GateContext } from '../context.ts';

export async function testsCheck(ctx: GateContext): Promise<CheckOutcome> {
  const declared = ctx.builds?.filter((b) => b.role === 'test') ?? [];
  if (declared.length === 0) {
    return { status: 'unavailable', reason: 'the draft declares no tests (tests/*_test.ts or tests/*.test.ts); nothing was run', output: { runs: [] } };
  }
  const runs = await runPass(ctx, 1);
  const notBuilt = declared.filter((b) => !b.bundle).map((b) => `${b.entry}: not built (${b.error})`);
  const failing = runs.filter((r) => r.result.exitCode !== 0).map((r) => `${r.test}: ${runSummary(r)}`);
  const output = { sandbox: ctx.gate.sandbox.name, limits: ctx.gate.limits, runs: runs.map(describeRun), not_built: notBuilt };
  const problems = [...failing, ...notBuilt];
  if (problems.length > 0) return { status: 'failed', reason: `${problems.length} of ${declared.length} test(s) did not pass: ${problems.join('; ')}`, output };
  return { status: 'passed', reason: `${runs.length} test(s) passed in the "${ctx.gate.sandbox.name}" sandbox`, output };
}
