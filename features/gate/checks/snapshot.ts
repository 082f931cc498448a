/**
 * `snapshot`: copies the draft into the package with a digest per file. Passes when every
 * file was copied; a symlink out of the folder, a file over the cap or a special file fails
 * it, with the path and the reason, and the rest of the draft is still evaluated.
 */
import { snapshotDraft } from '../snapshot.ts';
import type { CheckOutcome, GateContext } from '../context.ts';

export function snapshotCheck(ctx: GateContext): CheckOutcome {
  const snapshot = snapshotDraft(ctx.target, ctx.dirs.draft, ctx.gate.profile.draft);
  ctx.snapshot = snapshot;
  const output = { source: ctx.target, copy: ctx.dirs.draft, digest: snapshot.digest, files: snapshot.entries, problems: snapshot.problems };
  if (snapshot.problems.length > 0) {
    const list = snapshot.problems.map((p) => `${p.path}: ${p.problem} (${p.detail})`);
    return { status: 'failed', reason: `${snapshot.problems.length} file(s) not copied: ${list.join('; ')}`, output };
  }
  return { status: 'passed', reason: `${snapshot.entries.length} file(s) copied, input digest ${snapshot.digest}`, output };
}
