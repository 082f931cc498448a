/**
 * Runs every built test of the draft once in the gate's sandbox: the gate's sandbox profile
 * and limits, the ceiling as Deno permission flags, `Deno.cwd()` the snapshot of the draft,
 * no environment, and a fresh scratch folder per test and pass, which the test gets as
 * `Deno.args[0]` and is the only place it may write. Every capability decision of the run
 * is kept with it (up to a cap), so the denials check can list what the draft tried.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { AuditEvent } from '../../kernel/broker/op.ts';
import type { ScriptRunResult } from '../../kernel/run/script-run-types.ts';
import { ceilingFlags } from './ceiling.ts';
import { MAX_AUDIT_EVENTS_PER_RUN, type GateContext, type TestRun } from './context.ts';

/** `<out>/scratch/<label>/<test file name>`: one folder per test and pass. */
export function scratchFor(ctx: GateContext, label: string, test: string): string {
  const dir = path.join(ctx.dirs.scratch, label, path.posix.basename(test));
  mkdirSync(dir, { recursive: true });
  return dir;
}

export function flagsFor(ctx: GateContext, scratch: string): string[] {
  return ceilingFlags(ctx.gate.profile.ceiling, ctx.dirs.draft, { plugin: ctx.dirs.draft, scratch });
}

async function runOne(ctx: GateContext, test: string, pass: number): Promise<TestRun> {
  const scratch = scratchFor(ctx, `pass-${pass}`, test);
  const permissionFlags = flagsFor(ctx, scratch);
  const audit: AuditEvent[] = [];
  let auditDropped = 0;
  let deniedCount = 0;
  const sink = (event: AuditEvent): void => {
    if (event.decision === 'denied') deniedCount += 1;
    if (audit.length < MAX_AUDIT_EVENTS_PER_RUN) audit.push(event);
    else auditDropped += 1;
  };
  const runner = await ctx.runner();
  let result: ScriptRunResult;
  try {
    result = await ctx.withAudit(sink, () =>
      runner.run({
        file: path.join(ctx.dirs.draft, test),
        args: [scratch],
        permissionFlags,
        cwd: ctx.dirs.draft,
        env: {},
        profile: ctx.gate.sandbox.name,
        limits: ctx.gate.limits,
      }),
    );
  } catch (error) {
    // The runner reports the draft's faults as results; a throw is the sandbox itself failing.
    const message = error instanceof Error ? error.message : String(error);
    result = { ok: false, exitCode: 1, stdout: '', stderr: `error: the sandbox failed: ${message}\n`, error: { name: 'Error', message: `the sandbox failed: ${message}` }, usage: { cpuMs: 0, wallMs: 0, heapBytes: 0 } };
  }
  return { test, pass, scratch: path.relative(ctx.dirs.out, scratch), permissionFlags, result, audit, auditDropped, deniedCount };
}

/** Runs every runnable test once, in order; the pass number picks the scratch folders. */
export async function runPass(ctx: GateContext, pass: number): Promise<TestRun[]> {
  const runs: TestRun[] = [];
  for (const test of ctx.runnableTests ?? []) runs.push(await runOne(ctx, test, pass));
  ctx.passes[pass - 1] = runs;
  return runs;
}

/** A run as it goes into a check's output file. */
export function describeRun(run: TestRun): Record<string, unknown> {
  return {
    test: run.test,
    pass: run.pass,
    scratch: run.scratch,
    permission_flags: run.permissionFlags,
    exit_code: run.result.exitCode,
    ok: run.result.ok,
    error: run.result.error,
    usage: run.result.usage,
    stdout: run.result.stdout,
    stderr: run.result.stderr,
    denied: run.deniedCount,
  };
}

/** `exit 1 (RTC_ERR_SANDBOX_CPU: CPU time limit of 1000 ms exceeded)` or `exit 1`. */
export function runSummary(run: TestRun): string {
  const error = run.result.error;
  if (error?.code) return `exit ${run.result.exitCode} (${error.code}: ${error.message})`;
  if (error) return `exit ${run.result.exitCode} (${error.name}: ${error.message.split('\n')[0]})`;
  return `exit ${run.result.exitCode}`;
}
