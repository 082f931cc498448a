/**
 * `resource-limits`: no sandbox run of the draft ended on a limit (CPU, wall time, memory,
 * output, transfer size, or a crashed sandbox host), and the tests left no more in their
 * scratch folders than the profile allows (the sandbox bounds a run's writes by folder,
 * not by size, so the size is measured afterwards).
 */
import { readdirSync, lstatSync } from 'node:fs';
import path from 'node:path';
import { LIMIT_CODES, type ErrorCode } from '../../../kernel/errors.ts';
import type { CheckOutcome, GateContext } from '../context.ts';

function folderBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) total += folderBytes(full);
    else total += lstatSync(full).size;
  }
  return total;
}

export function resourceLimitsCheck(ctx: GateContext): CheckOutcome {
  const runs = ctx.passes.flat();
  if (runs.length === 0) return { status: 'unavailable', reason: 'no test ran, so no limit was put to the test', output: { runs: [] } };
  const hits = runs
    .filter((r) => r.result.error?.code !== undefined && LIMIT_CODES.has(r.result.error.code as ErrorCode))
    .map((r) => ({ test: r.test, pass: r.pass, code: r.result.error!.code, message: r.result.error!.message }));
  const scratchBytes = folderBytes(ctx.dirs.scratch);
  const cap = ctx.gate.profile.draft.max_scratch_bytes;
  const usage = runs.map((r) => ({ test: r.test, pass: r.pass, ...r.result.usage, stdout_bytes: Buffer.byteLength(r.result.stdout), stderr_bytes: Buffer.byteLength(r.result.stderr) }));
  const output = { limits: ctx.gate.limits, max_scratch_bytes: cap, scratch_bytes: scratchBytes, limit_hits: hits, usage };
  const problems = hits.map((h) => `${h.test} (pass ${h.pass}): ${h.code}: ${h.message}`);
  if (scratchBytes > cap) problems.push(`the tests left ${scratchBytes} bytes in scratch, over the profile's cap of ${cap}`);
  if (problems.length > 0) return { status: 'failed', reason: problems.join('; '), output };
  return { status: 'passed', reason: `${runs.length} run(s) within every limit; ${scratchBytes} bytes left in scratch`, output };
}
