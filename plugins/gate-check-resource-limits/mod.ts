/**
 * gate-check.resource-limits: no sandbox run of the draft ended on a limit (CPU, wall time,
 * memory, output, transfer size, or a crashed sandbox host), and none had a write refused by
 * its scratch quota. The quota is enforced by the broker while the test writes (the write
 * that would pass max_scratch_bytes or max_scratch_entries is refused, ENOSPC), so what the
 * package holds of a run's scratch never passes it; this check reports what each run wrote.
 */
import { endedOnLimit, noRuns, result, runsOf, type GateCheckInput, type GateCheckResult } from '../gate-check-shared/results.ts';

export function check(input: GateCheckInput): GateCheckResult {
  const none = noRuns(input, 'no limit was put to the test');
  if (none) return none;
  const runs = [...runsOf(input, 'tests'), ...runsOf(input, 'determinism')];
  const hits = runs.filter(endedOnLimit).map((r) => ({ test: r.test, pass: r.pass, code: r.error!.code!, message: r.error!.message }));
  const quota = runs.filter((r) => r.writes.refused > 0).map((r) => ({ test: r.test, pass: r.pass, ...r.writes }));
  const usage = runs.map((r) => ({ test: r.test, pass: r.pass, ...r.usage, stdout_bytes: r.stdout.length, stderr_bytes: r.stderr.length, wrote_bytes: r.writes.bytes, wrote_entries: r.writes.entries }));
  const output = { limits: input.gate.limits, max_scratch_bytes: input.gate.draft.max_scratch_bytes, max_scratch_entries: input.gate.draft.max_scratch_entries, limit_hits: hits, quota_refusals: quota, usage };
  const problems = [
    ...hits.map((h) => `${h.test} (${h.pass}): ${h.code}: ${h.message}`),
    ...quota.map((q) => `${q.test} (${q.pass}): ${q.refused} write(s) refused past the scratch quota (${q.max_bytes} bytes, ${q.max_entries} files and folders; ${q.bytes} bytes and ${q.entries} entries held)`),
  ];
  if (problems.length > 0) return result('failed', problems.join('; '), output);
  const wrote = runs.reduce((n, r) => n + r.writes.bytes, 0);
  return result('passed', `${runs.length} run(s) within every limit; ${wrote} bytes written to scratch in all`, output);
}
