/**
 * `determinism`: runs the same tests a second time, each with a fresh scratch folder, and
 * requires byte-identical stdout and the same exit status. Where a run differs, the output
 * names the first differing byte and shows both sides around it.
 */
import { sha256 } from '../../../kernel/build/bundle.ts';
import { describeRun, runPass } from '../sandbox-runs.ts';
import type { CheckOutcome, GateContext, TestRun } from '../context.ts';

function firstDifference(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return n;
}

function compare(first: TestRun, second: TestRun): Record<string, unknown> {
  const a = first.result;
  const b = second.result;
  const sameStdout = a.stdout === b.stdout;
  const same = sameStdout && a.exitCode === b.exitCode;
  const at = sameStdout ? null : firstDifference(a.stdout, b.stdout);
  return {
    test: first.test,
    same,
    exit_codes: [a.exitCode, b.exitCode],
    stdout_sha256: [`sha256:${sha256(a.stdout)}`, `sha256:${sha256(b.stdout)}`],
    ...(at === null ? {} : { first_difference: { offset: at, first: a.stdout.slice(Math.max(0, at - 40), at + 40), second: b.stdout.slice(Math.max(0, at - 40), at + 40) } }),
  };
}

export async function determinismCheck(ctx: GateContext): Promise<CheckOutcome> {
  const first = ctx.passes[0];
  if (!first || first.length === 0) return { status: 'unavailable', reason: 'no test ran, so there is nothing to repeat', output: { comparisons: [] } };
  const second = await runPass(ctx, 2);
  const comparisons = first.map((run, i) => compare(run, second[i]!));
  const differing = comparisons.filter((c) => !c.same).map((c) => {
    const [x, y] = c.exit_codes as number[];
    return x !== y ? `${String(c.test)}: exit ${x} then ${y}` : `${String(c.test)}: stdout differs from byte ${String((c.first_difference as { offset: number }).offset)}`;
  });
  const output = { comparisons, second_pass: second.map(describeRun) };
  if (differing.length > 0) return { status: 'failed', reason: `${differing.length} of ${first.length} test(s) gave different results on a second run: ${differing.join('; ')}`, output };
  return { status: 'passed', reason: `${first.length} test(s) gave byte-identical stdout and the same exit status twice`, output };
}
