/**
 * gate-check.reference-runtime: each test file that ran in the sandbox is run again under
 * the real Deno (`deno test --no-prompt` with the same permission flags, cwd and argument),
 * and must give the same exit status and the same result for each Deno.test, by name. Deno
 * is a subprocess here, held by its own permission system, an empty environment, a wall
 * limit and an output cap. A test that ended on a sandbox limit is not run again (its
 * failure is already recorded). No Deno on this host: unavailable.
 */
import { gate } from '../gate-check-shared/globals.ts';
import { endedOnLimit, noRuns, result, runsOf, type GateCheckInput, type GateCheckResult, type TestFileRun } from '../gate-check-shared/results.ts';

function resultsByName(run: TestFileRun): Map<string, string> {
  return new Map(run.tests.map((t) => [t.name, t.result]));
}

function differences(sandbox: TestFileRun, deno: TestFileRun): string[] {
  const a = resultsByName(sandbox);
  const b = resultsByName(deno);
  const out: string[] = [];
  for (const [name, r] of b) {
    if (!a.has(name)) out.push(`"${name}" ran only under Deno (${r})`);
    else if (a.get(name) !== r) out.push(`"${name}" is ${r} under Deno, ${a.get(name)} in the sandbox`);
  }
  for (const [name, r] of a) if (!b.has(name)) out.push(`"${name}" ran only in the sandbox (${r})`);
  return out;
}

export async function check(input: GateCheckInput): Promise<GateCheckResult> {
  const { deno } = await gate.deno.available();
  if (deno === null) return result('unavailable', 'no Deno on this host (RUNTIMECTL_DENO, node_modules/.bin/deno, PATH), so no reference run', { deno: null, runs: [] });
  const none = noRuns(input, 'there is nothing to compare');
  if (none) return { ...none, output: { deno, runs: [] } };
  const runs: Record<string, unknown>[] = [];
  const problems: string[] = [];
  for (const run of runsOf(input, 'tests')) {
    if (endedOnLimit(run)) {
      runs.push({ test: run.test, skipped: `ended on ${run.error?.code} in the sandbox; not run again` });
      continue;
    }
    const reference = await gate.deno.test(run.test);
    const diff = differences(run, reference);
    runs.push({ ...reference, sandbox_exit_code: run.exit_code, same_exit_code: reference.exit_code === run.exit_code, differences: diff });
    if (reference.error) problems.push(`${run.test}: ${reference.error.message}`);
    else if (reference.exit_code !== run.exit_code) problems.push(`${run.test}: exit ${reference.exit_code} under Deno, ${run.exit_code} in the sandbox${diff.length > 0 ? ` (${diff.join('; ')})` : ''}`);
    else if (diff.length > 0) problems.push(`${run.test}: ${diff.join('; ')}`);
  }
  const output = { deno, runs };
  if (problems.length > 0) return result('failed', problems.join('; '), output);
  return result('passed', `${runs.length} test file(s) gave the same exit status and Deno.test results under the real Deno`, output);
}
