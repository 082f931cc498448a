/**
 * gate-check.snapshot: the gate snapshots the draft before any check runs (every check
 * reads that copy, never the original). This check judges the snapshot: what could not be
 * copied, and why, fails it, with the path and the reason; the rest of the draft is still
 * evaluated by the checks after it.
 */
import { result, type GateCheckInput, type GateCheckResult } from '../gate-check-shared/results.ts';

export function check(input: GateCheckInput): GateCheckResult {
  const { draft } = input;
  const output = { copy: draft.root, digest: draft.digest, files: draft.files, problems: draft.problems };
  if (draft.problems.length > 0) {
    const list = draft.problems.map((p) => `${p.path}: ${p.problem} (${p.detail})`);
    return result('failed', `${draft.problems.length} file(s) not copied: ${list.join('; ')}`, output);
  }
  return result('passed', `${draft.files.length} file(s) copied, input digest ${draft.digest}`, output);
}
