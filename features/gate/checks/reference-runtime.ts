/**
 * `reference-runtime`: an independent challenge to the sandbox's own result. Each test that
 * ran in the sandbox is run again under the real Deno (`deno run --no-prompt`) with the
 * same permission flags, cwd and argument shape, and must give the same stdout and exit
 * status. Deno is a subprocess here, held by its own permission system, an empty
 * environment, a wall limit and an output cap, with its process group killed on either.
 * A test that already ended on a sandbox limit is not run again (its failure is recorded).
 * No Deno on this host: unavailable.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LIMIT_CODES, type ErrorCode } from '../../../kernel/errors.ts';
import { runCommand } from '../../../sandboxes/subprocess/run-command.ts';
import { flagsFor, scratchFor } from '../sandbox-runs.ts';
import type { CheckOutcome, GateContext } from '../context.ts';

/** Deno's own start-up needs room the isolate's heap limit does not give it. */
const DENO_MIN_HEAP_MB = 64;
/** Start-up and transpiling, on top of the run's wall limit. */
const DENO_START_MS = 5000;

export async function referenceRuntimeCheck(ctx: GateContext): Promise<CheckOutcome> {
  if (ctx.deno === null) return { status: 'unavailable', reason: 'no Deno on this host (RUNTIMECTL_DENO, node_modules/.bin/deno, PATH), so no reference run', output: { deno: null } };
  const first = ctx.passes[0];
  if (!first || first.length === 0) return { status: 'unavailable', reason: 'no test ran in the sandbox, so there is nothing to compare', output: { deno: ctx.deno, runs: [] } };
  const denoDir = mkdtempSync(path.join(os.tmpdir(), 'rtc-gate-deno-'));
  const { limits } = ctx.gate;
  const runs: Record<string, unknown>[] = [];
  const problems: string[] = [];
  try {
    for (const run of first) {
      const code = run.result.error?.code;
      if (code !== undefined && LIMIT_CODES.has(code as ErrorCode)) {
        runs.push({ test: run.test, skipped: `ended on ${code} in the sandbox; not run again` });
        continue;
      }
      const scratch = scratchFor(ctx, 'deno', run.test);
      const flags = flagsFor(ctx, scratch);
      const args = ['run', '--no-prompt', '--no-config', '--no-lock', '--no-remote', '--no-npm', `--v8-flags=--max-old-space-size=${Math.max(DENO_MIN_HEAP_MB, limits.memoryMb)}`, ...flags, path.join(ctx.dirs.draft, run.test), scratch];
      const result = await runCommand({
        command: ctx.deno,
        args,
        cwd: ctx.dirs.draft,
        env: { DENO_DIR: denoDir, HOME: denoDir, NO_COLOR: '1', DENO_NO_UPDATE_CHECK: '1' },
        searchPath: '',
        input: null,
        wallMs: limits.wallMs + DENO_START_MS,
        outputBytes: limits.outputBytes,
      });
      const stdout = result.stdout.toString('utf8');
      const sameStdout = stdout === run.result.stdout;
      const sameExit = result.code === run.result.exitCode;
      runs.push({ test: run.test, command: [ctx.deno, ...args], exit_code: result.code, killed: result.killed, stdout, stderr: result.stderr.toString('utf8'), sandbox_exit_code: run.result.exitCode, same_stdout: sameStdout, same_exit_code: sameExit });
      if (result.killed) problems.push(`${run.test}: Deno run killed (${result.killed})`);
      else if (!sameExit) problems.push(`${run.test}: exit ${result.code} under Deno, ${run.result.exitCode} in the sandbox`);
      else if (!sameStdout) problems.push(`${run.test}: stdout under Deno differs from the sandbox's`);
    }
  } finally {
    rmSync(denoDir, { recursive: true, force: true });
  }
  const output = { deno: ctx.deno, runs };
  if (problems.length > 0) return { status: 'failed', reason: problems.join('; '), output };
  return { status: 'passed', reason: `${runs.length} test(s) gave the same stdout and exit status under the real Deno`, output };
}
