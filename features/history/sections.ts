/**
 * The loop's sections of a checkpoint (loop-history.ts): digests and summaries of the engine
 * state beside the log, so start-up and operators can see at a glance what the persona's
 * state was when its history was checkpointed, and a later start can tell what moved.
 *
 *   brain      sha256 and size of brain.json as stored
 *   probes     sha256 of the brain's probe state (packet digests seen, queue position,
 *              periodic slot, startup versions), and its counts
 *   ledger     sha256 of the ledger's backend-neutral export, task counts by state
 *   proposals  open, pending, under review, accepted and not yet applied; the oldest open one
 *   substrate  what the kernel start found (recorded, verified, changed) and the bundle digests
 *
 * A part that cannot be read is recorded as `{error}`: a checkpoint is never skipped for it.
 */
import { canonicalJson } from '../../kernel/events/canonical.ts';
import type { MemoryStore } from '../../kernel/contracts/persistence.ts';
import type { LedgerAccess } from '../ledger/access.ts';
import { errorLine } from '../../kernel/errors.ts';
import { sha256Hex } from '../history-segments/seal.ts';
import type { ReviewQueue } from '../review-queue/queue.ts';
import type { SubstrateAtStart } from '../substrate/substrate-at-start.ts';

export interface SectionSources {
  memory: MemoryStore;
  ledger: LedgerAccess;
  review?: () => ReviewQueue;
  substrate: SubstrateAtStart;
}

function guard(fn: () => unknown): unknown {
  try {
    return fn();
  } catch (error) {
    return { error: errorLine(error) };
  }
}

export function checkpointSections(sources: SectionSources): Record<string, unknown> {
  const brainText = guard(() => sources.memory.readBrain());
  return {
    brain: typeof brainText === 'string' ? { sha256: sha256Hex(brainText), bytes: Buffer.byteLength(brainText) } : brainText === undefined ? null : brainText,
    probes: guard(() => {
      if (typeof brainText !== 'string') return null;
      const probes = (JSON.parse(brainText) as { probes?: Record<string, unknown> }).probes;
      if (!probes) return null;
      return {
        sha256: sha256Hex(canonicalJson(probes)),
        seen_keys: Array.isArray(probes.seen_keys) ? probes.seen_keys.length : 0,
        pending: Array.isArray(probes.pending) ? probes.pending.length : 0,
        startup_smoke_version: probes.startup_smoke_version ?? null,
        bootstrap_version: probes.bootstrap_version ?? null,
      };
    }),
    ledger: guard(() => {
      const doc = sources.ledger.exportDoc();
      if (!doc) return null;
      const tasks: Record<string, number> = {};
      for (const task of (doc as { tasks?: { state?: string }[] }).tasks ?? []) tasks[task.state ?? '?'] = (tasks[task.state ?? '?'] ?? 0) + 1;
      return { format: sources.ledger.format, sha256: sha256Hex(canonicalJson(doc)), tasks };
    }),
    proposals: guard(() => {
      if (!sources.review) return null;
      const queue = sources.review();
      if (!queue.hasRecords()) return { open: 0, pending: 0, under_review: 0, accepted_unapplied: 0, oldest_open: null };
      const all = queue.list();
      const open = all.filter((p) => p.state === 'pending' || p.state === 'under-review');
      const oldest = open.reduce<(typeof open)[number] | undefined>((a, p) => (a === undefined || p.created_at < a.created_at ? p : a), undefined);
      return {
        open: open.length,
        pending: open.filter((p) => p.state === 'pending').length,
        under_review: open.filter((p) => p.state === 'under-review').length,
        accepted_unapplied: queue.pendingEffects().length,
        oldest_open: oldest ? { id: oldest.id, created_at: oldest.created_at } : null,
        log_seq: queue.read().lastSeq,
      };
    }),
    substrate: { status: sources.substrate.status, bundles: sources.substrate.bundles },
  };
}
