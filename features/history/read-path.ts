/**
 * The read path over a persona's history: what `status`, `activity`, and later the operator
 * console and `logs --follow`, read. Every answer costs the checkpoint, the segment index,
 * the rollups of the segments a window touches, the open segment, and at most the raw events
 * of a segment that straddles a window's edge; never the whole history.
 *
 *   const reader = await openHistoryReader(stateDir, 'jerome');     // read-only, any backend
 *   reader.summary(Date.now());        // the status row: last cycle, budget, 24 h figures, history shape
 *   reader.buckets(since, until);      // true hourly buckets (tokens, sessions, cycles, reasons, types)
 *   reader.eventsAfter(seq, limit);    // the events after seq N, across segments (a follower's read)
 *   await reader.close();
 *
 *   await fleetSummary(stateDir, Date.now());   // one summary per persona with events
 *
 * Nothing here writes. A checkpoint is used only when it matches the index and the chain
 * (as at start-up); otherwise the figures come from the rollups and the open segment, which
 * is what a checkpoint summarises anyway.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { EventEnvelope } from '../../kernel/events/envelope.ts';
import type { PersistenceBackend } from '../../kernel/contracts/persistence.ts';
import { CheckpointMismatch, parseCheckpoint, sealedOf, type Checkpoint } from '../history-segments/checkpoint.ts';
import { parseRollupLines, type SegmentIndexEntry } from '../history-segments/index-entry.ts';
import { readIndexEntries, readSealedSegment } from '../history-segments/reader.ts';
import { EVENT_LOG_RELATIVE } from '../../kernel/events/paths.ts';
import { openBackend } from '../persistence/open.ts';
import { readPersistenceConfig } from '../persistence/state/persistence-config.ts';
import { PERSISTENCE_CONFIG_FILE } from '../persistence/state/persistence-config-schema.ts';
import { DAY_MS } from './usage.ts';
import { bucketsOf, HOUR_MS, mergeBuckets, type HourBucket } from './buckets.ts';
import { HistoryFold, type CycleSummary, type DeferSummary } from './fold.ts';
import { loopCheckpointStateSchema } from './loop-history.ts';
import { rollupIn } from './rollup.ts';

export interface PersonaSummary {
  persona_id: string;
  backend: string;
  runtime: string | null;
  cycles: number;
  last_cycle: { cycle: number; at: string; phase: string; outcome: string } | null;
  budget: {
    source: string;
    token_budget: number | null;
    tokens_used_24h: number;
    tokens_remaining_24h: number | null;
    sessions_24h: number;
    max_autonomous_sessions_per_day: number | null;
    read_only: boolean;
  } | null;
  executor: { plugin: string; enabled: boolean; ran: boolean; status: string | null } | null;
  last_defer_reason: { cycle: number; reason: string } | null;
  events_24h: number;
  tokens_per_hour_24h: number;
  /** where the history stands: head, segments, the checkpoint the figures started from */
  history: {
    head: { seq: number; hash: string } | null;
    sealed_segments: number;
    archived_segments: number;
    open_segment: { index: number; records: number };
    checkpoint: { kind: string; seq: number; written_at: string } | null;
    /** checkpoint sections the loop wrote (proposals, brain, ledger, ...), when a checkpoint was used */
    sections?: Record<string, unknown>;
  };
}

/** A read-only view of one persona's history (see the top of this file). */
export class HistoryReader {
  readonly persona: string;
  readonly backendName: string;
  readonly #backend: PersistenceBackend;
  #open: EventEnvelope[] | undefined;
  #entries: SegmentIndexEntry[] | undefined;

  constructor(persona: string, backend: PersistenceBackend) {
    this.persona = persona;
    this.backendName = backend.name;
    this.#backend = backend;
  }

  /** The open segment's events (read once per reader). */
  openEvents(): EventEnvelope[] {
    this.#open ??= [...this.#backend.events.readOpen()];
    return this.#open;
  }

  entries(): SegmentIndexEntry[] {
    this.#entries ??= readIndexEntries(this.#backend.events.history);
    return this.#entries;
  }

  /** The checkpoint, when it matches the index and the chain; undefined otherwise. */
  #checkpoint(): { cp: Checkpoint; state: ReturnType<typeof loopCheckpointStateSchema.parse> } | undefined {
    const history = this.#backend.events.history;
    let cp: Checkpoint | undefined;
    try {
      cp = parseCheckpoint(history.readDocument('checkpoint'), history.documentLabel('checkpoint'), this.persona);
    } catch (error) {
      if (error instanceof CheckpointMismatch) return undefined;
      throw error;
    }
    if (!cp) return undefined;
    const state = loopCheckpointStateSchema.safeParse(cp.state);
    if (!state.success) return undefined;
    const entries = this.entries();
    if (cp.sealed && JSON.stringify(sealedOf(entries[cp.sealed.segment - 1])) !== JSON.stringify(cp.sealed)) return undefined;
    const open = this.openEvents();
    const firstOpen = open[0]?.seq ?? Infinity;
    if (cp.chain.seq >= firstOpen) {
      const at = open[cp.chain.seq - firstOpen];
      if (!at || at.seq !== cp.chain.seq || at.hash !== cp.chain.hash) return undefined;
    } else if (!(cp.chain.seq === 0 && open.length === 0)) {
      // Older than the last seal: the figures come from the rollups instead (no sealed segment is read for status).
      return undefined;
    }
    return { cp, state: state.data };
  }

  /** Rollups of sealed segments from `fromSegment` on, by segment. */
  #rollups(fromSegment: number): Map<number, ReturnType<typeof rollupIn>> {
    const history = this.#backend.events.history;
    const out = new Map<number, ReturnType<typeof rollupIn>>();
    for (const line of parseRollupLines(history.readRollups(fromSegment), history.rollupsLabel)) out.set(line.segment, rollupIn(line));
    return out;
  }

  /**
   * Hourly buckets of the events with since <= at <= until. A sealed segment wholly inside the
   * window gives its rollup's buckets; one that straddles an edge is read and its events
   * filtered, unless the edges fall on clock hours (since at an hour's start, until at an
   * hour's end or past the segment), where the rollup's own buckets are cut exactly (the
   * console's hourly charts ask such windows); the open segment is always read.
   */
  buckets(sinceMs: number, untilMs: number): HourBucket[] {
    const entries = this.entries();
    const touching = entries.filter((e) => Date.parse(e.max_at) >= sinceMs && Date.parse(e.min_at) <= untilMs);
    const lists: HourBucket[][] = [];
    if (touching.length > 0) {
      const rollups = this.#rollups(touching[0]!.segment);
      const listing = new Map(this.#backend.events.history.list().segments.map((s) => [s.index, s]));
      for (const entry of touching) {
        const inside = Date.parse(entry.min_at) >= sinceMs && Date.parse(entry.max_at) <= untilMs;
        const rollup = rollups.get(entry.segment);
        const stored = listing.get(entry.segment);
        // Edges on clock hours cut the rollup's buckets exactly: no raw read of an edge segment.
        const hourEdges = sinceMs % HOUR_MS === 0 && (Date.parse(entry.max_at) <= untilMs || (untilMs + 1) % HOUR_MS === 0);
        if (inside && rollup) lists.push(rollup.hours);
        else if (hourEdges && rollup) lists.push(rollup.hours.filter((h) => h.hour >= sinceMs && h.hour <= untilMs));
        else if (stored && !stored.archived) lists.push(bucketsOf(readSealedSegment(this.#backend.events.history, stored), (at) => at >= sinceMs && at <= untilMs));
        else if (rollup) lists.push(rollup.hours.filter((h) => h.hour >= sinceMs && h.hour <= untilMs));
      }
    }
    lists.push(bucketsOf(this.openEvents(), (at) => at >= sinceMs && at <= untilMs));
    // A rollup may hold set-aside usage (buckets.ts) from hours before its segment's first event.
    return mergeBuckets(lists).filter((b) => b.hour + HOUR_MS > sinceMs && b.hour <= untilMs);
  }

  /** The status row (and where the history stands). */
  summary(nowMs: number): PersonaSummary {
    const entries = this.entries();
    const open = this.openEvents();
    const listing = this.#backend.events.history.list().segments;
    const checkpoint = this.#checkpoint();
    let cycles: number;
    let lastCycle: CycleSummary | null = null;
    let lastDefer: DeferSummary | null = null;
    if (checkpoint) {
      const fold = HistoryFold.from(checkpoint.state.history);
      for (const e of open) if (e.seq > checkpoint.cp.chain.seq) fold.add(e);
      cycles = fold.cycles;
      lastCycle = fold.lastCycle;
      lastDefer = fold.lastDefer;
    } else {
      // Without a usable checkpoint: the rollups' counts and the open segment's events.
      const rollups = this.#rollups(1);
      cycles = 0;
      for (const entry of entries) {
        const r = rollups.get(entry.segment);
        if (!r) continue;
        cycles += r.cycles;
        if (r.last_cycle) lastCycle = r.last_cycle;
        if (r.last_defer) lastDefer = r.last_defer;
      }
      const fold = new HistoryFold();
      for (const e of open) fold.add(e);
      cycles += fold.cycles;
      lastCycle = fold.lastCycle ?? lastCycle;
      lastDefer = fold.lastDefer ?? lastDefer;
    }
    const day = this.buckets(nowMs - DAY_MS + 1, nowMs);
    let events24 = 0;
    let tokens = 0;
    let sessions = 0;
    for (const b of day) {
      events24 += b.events;
      tokens += b.budget_tokens;
      sessions += b.budget_sessions;
    }
    const last = open.at(-1);
    const head = last ? { seq: last.seq, hash: last.hash } : entries.length > 0 ? { seq: entries.at(-1)!.last_seq, hash: entries.at(-1)!.last_hash } : null;
    const firstOpen = open[0];
    const summary: PersonaSummary = {
      persona_id: this.persona,
      backend: this.backendName,
      runtime: lastCycle?.runtime ?? null,
      cycles,
      last_cycle: lastCycle ? { cycle: lastCycle.cycle, at: lastCycle.at, phase: lastCycle.phase, outcome: lastCycle.outcome } : null,
      budget: lastCycle
        ? {
            source: lastCycle.budget.source,
            token_budget: lastCycle.budget.token_budget,
            tokens_used_24h: tokens,
            tokens_remaining_24h: lastCycle.budget.token_budget === null ? null : Math.max(0, lastCycle.budget.token_budget - tokens),
            sessions_24h: sessions,
            max_autonomous_sessions_per_day: lastCycle.budget.max_autonomous_sessions_per_day,
            read_only: lastCycle.budget.read_only,
          }
        : null,
      executor: lastCycle ? { ...lastCycle.executor } : null,
      last_defer_reason: lastDefer,
      events_24h: events24,
      tokens_per_hour_24h: Math.round(tokens / 24),
      history: {
        head,
        sealed_segments: listing.length,
        archived_segments: listing.filter((s) => s.archived).length,
        open_segment: { index: firstOpen?.type === 'log_segment' ? (firstOpen.payload as { segment: number }).segment : 1, records: open.length },
        checkpoint: checkpoint ? { kind: checkpoint.cp.kind, seq: checkpoint.cp.chain.seq, written_at: checkpoint.cp.written_at } : null,
        ...(checkpoint ? { sections: checkpoint.state.sections } : {}),
      },
    };
    return summary;
  }

  /** Events with seq > `afterSeq`, oldest first, at most `limit` (a follower's read: only the segments that hold them). */
  eventsAfter(afterSeq: number, limit = Infinity): EventEnvelope[] {
    const out: EventEnvelope[] = [];
    for (const e of this.#backend.events.readAfter(afterSeq)) {
      if (out.length >= limit) break;
      out.push(e);
    }
    return out;
  }

  /** True when the persona's backend holds no event. */
  isEmpty(): boolean {
    return this.#backend.events.isEmpty();
  }

  async close(): Promise<void> {
    await this.#backend.close();
  }
}

/** Opens a persona's history read-only through the backend its persistence.yaml names. */
export async function openHistoryReader(stateDir: string, personaId: string, options: { pluginsDir?: string } = {}): Promise<HistoryReader> {
  const dir = path.join(stateDir, personaId);
  const name = readPersistenceConfig(dir).backend;
  const backend = await openBackend(dir, name, { readonly: true, personaId, ...(options.pluginsDir ? { pluginsDir: options.pluginsDir } : {}) });
  return new HistoryReader(personaId, backend);
}

/** Persona folders that hold events (an event log, or a persistence.yaml naming their backend), sorted. */
export function personasWithHistory(stateDir: string): string[] {
  if (!existsSync(stateDir)) return [];
  return readdirSync(stateDir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && (existsSync(path.join(stateDir, d.name, EVENT_LOG_RELATIVE)) || existsSync(path.join(stateDir, d.name, PERSISTENCE_CONFIG_FILE))))
    .map((d) => d.name)
    .sort();
}

export type FleetEntry = PersonaSummary | { persona_id: string; error: string };

/** One summary per persona with events; a persona whose history cannot be read is reported with the reason. */
export async function fleetSummary(stateDir: string, nowMs: number, onError: (error: unknown) => string): Promise<FleetEntry[]> {
  const out: FleetEntry[] = [];
  for (const id of personasWithHistory(stateDir)) {
    let reader: HistoryReader | undefined;
    try {
      reader = await openHistoryReader(stateDir, id);
      // Nothing stored and no file at the log's path: never ran. A file there that holds nothing readable (a FIFO) is read and refused.
      if (reader.isEmpty() && !existsSync(path.join(stateDir, id, EVENT_LOG_RELATIVE))) continue;
      out.push(reader.summary(nowMs));
    } catch (error) {
      out.push({ persona_id: id, error: onError(error) });
    } finally {
      await reader?.close();
    }
  }
  return out;
}
