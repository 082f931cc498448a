/**
 * The proposal log's records as events for a persona's event log, when another process wrote
 * them. The loop appends the records of its own changes to the event log as it makes them
 * (operations.ts toEvents); an operator's `proposals accept` in a shell, the console's accept,
 * a `proposals submit`, a refused decision are written by other processes, which may not
 * write the persona's event log (it has one writer). So the kernel running the persona copies
 * them over at its next change of the queue: `runtimectl logs` and the console's live view
 * then show every decision and every alert, whoever made it.
 *
 * They are rebuilt from the queue's replayed state, which keeps every such record whole (a
 * checkpointed or sealed log included): submissions, state changes, refusals, alerts and
 * applications, each with its `proposal_log_seq` and `mirrored: true` (no `proposal_log_hash`:
 * the proposal log's own chain vouches for it).
 *
 * Where the event log stands is kept in `review/event-mirror.json` (`{"seq": N}`: the last
 * proposal-log record the event log has), written after each change's events are appended, so
 * records written while the persona was not running are copied at its next start. A crash
 * between the append and that write copies those few records once more (same
 * `proposal_log_seq`); none is ever lost. A persona whose state predates the file starts from
 * the log's end; one whose event log is empty, from the beginning.
 */
import path from 'node:path';
import { z } from 'zod';
import { replaceFileDurably } from '../../kernel/storage/durable-files.ts';
import { readFileCapped } from '../../kernel/storage/safe-read.ts';
import type { ReviewPaths } from './paths.ts';
import { RECORD_TYPES, REVIEW_SCHEMA_VERSION } from './records.ts';
import type { ReviewEvent } from './operations.ts';
import { proposalRecordOf } from './ratify.ts';
import type { QueueState } from './state.ts';

/** Events for the records with `after < seq <= upTo`, in log order. */
export function recordsInState(state: QueueState, after: number, upTo: number): ReviewEvent[] {
  const out: { seq: number; type: string; payload: Record<string, unknown> }[] = [];
  const take = (seq: number) => seq > after && seq <= upTo;
  for (const p of state.proposals.values()) {
    if (take(p.submitted_seq)) out.push({ seq: p.submitted_seq, type: RECORD_TYPES.submitted, payload: { schema_version: REVIEW_SCHEMA_VERSION, proposal: proposalRecordOf(p) } });
    for (const t of p.history) {
      if (!take(t.seq)) continue;
      const { seq, ...change } = t;
      out.push({ seq, type: RECORD_TYPES.state, payload: { schema_version: REVIEW_SCHEMA_VERSION, id: p.id, ...change } });
    }
    if (p.applied && take(p.applied.seq) && p.decision) {
      out.push({
        seq: p.applied.seq,
        type: RECORD_TYPES.applied,
        payload: { schema_version: REVIEW_SCHEMA_VERSION, id: p.id, kind: p.kind, at: p.applied.at, accepted_by: p.decision.by, accepted_at: p.decision.at, effect: p.applied.effect },
      });
    }
  }
  for (const { seq, ...refusal } of state.refusals) if (take(seq)) out.push({ seq, type: RECORD_TYPES.refused, payload: refusal });
  for (const { seq, ...alert } of state.alerts) if (take(seq)) out.push({ seq, type: RECORD_TYPES.alert, payload: alert });
  return out.sort((a, b) => a.seq - b.seq).map(({ seq, type, payload }) => ({ type, payload: { ...payload, proposal_log_seq: seq, mirrored: true } }));
}

const cursorSchema = z.strictObject({ seq: z.number().int().min(0) });

function cursorFile(paths: ReviewPaths): string {
  return path.join(paths.reviewDir, 'event-mirror.json');
}

/** The last proposal-log seq the persona's event log has, as last written; undefined when there is no (readable) cursor. */
export function readMirrorCursor(paths: ReviewPaths): number | undefined {
  try {
    const bytes = readFileCapped(cursorFile(paths), { maxBytes: 4096, within: paths.personaDir });
    if (bytes === undefined) return undefined;
    const parsed = cursorSchema.safeParse(JSON.parse(bytes.toString('utf8')));
    return parsed.success ? parsed.data.seq : undefined;
  } catch {
    return undefined;
  }
}

export function writeMirrorCursor(paths: ReviewPaths, seq: number): void {
  replaceFileDurably(cursorFile(paths), `${JSON.stringify({ seq })}\n`);
}
