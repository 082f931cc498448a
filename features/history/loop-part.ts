/**
 * The history part of a composition (features/persona/persona-history.ts): a persona starts from its
 * last checkpoint and the open segment (loop-history.ts), the open segment is sealed with the
 * trace's when due (size, or a UTC day over), the proposal log seals by the same policy,
 * history.yaml's retention archives old segments after a seal, and a clean close writes a
 * shutdown checkpoint. Steps that need the folded state (the budget's usage window) read it
 * through loopHistoryOf.
 */
import path from 'node:path';
import { errorLine } from '../../kernel/errors.ts';
import type { HistoryHost, HistoryPart, PersonaHistory } from '../persona/persona-history.ts';
import type { PersonaContext } from '../../kernel/loop/steps.ts';
import type { PersonaBackend } from '../persistence/backend.ts';
import { ledgerOf } from '../ledger/access.ts';
import { archiveSegments } from './archive.ts';
import { LoopHistory } from './loop-history.ts';
import { readHistoryConfig } from './policy.ts';
import { checkpointSections } from './sections.ts';

/** The key of the persona's LoopHistory in its step state. */
const LOOP_HISTORY = 'history';

/** The persona's LoopHistory, when the composition's history part opened one. */
export function loopHistoryOf(persona: PersonaContext): LoopHistory | undefined {
  return persona.state.get(LOOP_HISTORY) as LoopHistory | undefined;
}

export const historyPart: HistoryPart = async (host) => {
  const p = host.persona;
  const history = await LoopHistory.open(p.backend, { persona: p.profile.id, config: readHistoryConfig(p.paths.dir), nowMs: p.clock(), reboot: host.restart });
  p.state.set(LOOP_HISTORY, history);
  const sections = () =>
    checkpointSections({ memory: p.backend.memory, ledger: ledgerOf(p.backend as PersonaBackend), review: host.reviewQueue, substrate: host.substrate });
  // A refused checkpoint is replaced at once by one the full scan proved, so the next start is cheap again.
  if (history.startup.checkpoint === 'refused') history.writeCheckpoint('rebuilt', p.clock(), sections());
  const part: PersonaHistory = {
    startup: { ...history.startup },
    cycles: history.fold.cycles,
    afterCycle: (nowMs) => sealIfDue(host, history, sections, nowMs),
    close: (nowMs) => history.writeCheckpoint('shutdown', nowMs, sections()),
  };
  return part;
};

/**
 * When the open segment is due, the trace's open segment and the event log's are sealed together
 * (the event header records the trace segment) and a checkpoint is written.
 */
async function sealIfDue(host: HistoryHost, history: LoopHistory, sections: () => Record<string, unknown>, nowMs: number): Promise<void> {
  // The trace seals with the event log; a trace grown past the segment size is a reason too.
  if (!history.sealDue(nowMs) && host.trace.openBytes() < history.config.segments.max_bytes) return;
  const trace = await host.trace.seal();
  await history.seal(nowMs, sections(), trace ? { trace } : undefined);
  // The proposal log seals by the same policy, under its own lock (operators may be deciding now).
  try {
    host.reviewQueue().sealLog(history.config.segments, nowMs);
  } catch (error) {
    await host.append('history_seal_failed', { log: 'review/proposals.jsonl', reason: errorLine(error) });
  }
  await applyRetention(host, history, nowMs);
}

/**
 * history.yaml's retention after a seal: sealed segments past `after_days` go to the archive.
 * The outcome is an event either way; a failing archive never stops the loop (the segments
 * simply stay live, and the next seal tries again).
 */
async function applyRetention(host: HistoryHost, history: LoopHistory, nowMs: number): Promise<void> {
  const retention = history.config.retention;
  if (retention.mode !== 'archive') return;
  const p = host.persona;
  try {
    const report = await archiveSegments({
      personaDir: p.paths.dir,
      personaId: p.profile.id,
      to: retention.to,
      format: retention.format,
      select: { olderThanMs: retention.after_days * 86_400_000 },
      nowMs,
      backend: p.backend,
      trace: host.trace,
    });
    // The archive's own path is a host path: the event names it by kind and file name only.
    if (report.events.length > 0) await host.append('history_archived', { ...report, archive: { kind: report.archive.kind, name: path.basename(report.archive.path) } });
  } catch (error) {
    await host.append('history_retention_failed', { reason: errorLine(error) });
  }
}
