/**
 * The loop's side of a persona's history: start-up from the last checkpoint and the open
 * segment, sealing when a segment is due, and a checkpoint at each seal and at clean close.
 *
 * Start-up reads the checkpoint, opens the event log (which checks the open segment, record by
 * record, and the sealed side without reading it: features/history-segments/open-check.ts), and verifies
 * the checkpoint against the segment it seals and against the chain (the record at its seq
 * must carry its hash). The state is then the checkpoint's, with the events after it folded
 * in: those of the open segment, and those of a sealed segment when the checkpoint is older
 * than the last seal (a crash between a seal and its checkpoint). A checkpoint that does not
 * match is refused: kept aside as evidence (`checkpoint.json.refused`), the state rebuilt by
 * a full scan, a `rebuilt` checkpoint written, and the start says so (`startup`).
 *
 * The state folded here (fold.ts) is the history's own: counts, last cycle, the usage window,
 * daily counts. The loop adds its sections (brain, probes, ledger, proposals, substrate)
 * when a checkpoint is written.
 */
import { z } from 'zod';
import type { EventEnvelope } from '../../kernel/events/envelope.ts';
import type { PersistenceBackend } from '../../kernel/contracts/persistence.ts';
import type { SealOutcome } from '../../kernel/events/event-log.ts';
import { CHECKPOINT_FORMAT, CheckpointMismatch, parseCheckpoint, sealedOf, verifyCheckpointAgainstSegments, type Checkpoint } from '../history-segments/checkpoint.ts';
import { readIndexEntries } from '../history-segments/reader.ts';
import { HistoryFold, historyStateSchema, type HistoryState } from './fold.ts';
import { sealDue, type HistoryConfig } from './policy.ts';
import { rollupOf } from './rollup.ts';

/** The loop's sections of a checkpoint: what else start-up and operators need to find again. */
export type CheckpointSections = Record<string, unknown>;

export const loopCheckpointStateSchema = z.object({ history: historyStateSchema, sections: z.record(z.string(), z.unknown()) });
export type LoopCheckpointState = z.infer<typeof loopCheckpointStateSchema>;

export interface HistoryStartup {
  /** used: the checkpoint matched; none: there was none; refused: it did not match (see reason) */
  checkpoint: 'used' | 'none' | 'refused';
  /** why a checkpoint was refused (names what disagrees) */
  reason?: string;
  /** where the refused checkpoint was kept */
  set_aside?: string;
  /** the checkpoint's seq, when one was used */
  checkpoint_seq?: number;
  /** events folded at start (after the checkpoint, or all of them on a full scan) */
  folded_events: number;
  /** sealed segments read at start (0 when the checkpoint is current) */
  sealed_segments_read: number;
  sealed_segments: number;
  open_segment: { index: number; records: number; bytes: number };
  /** a seal a crash cut short, completed at open */
  resumed_seal?: number;
}

export interface OpenHistoryOptions {
  persona: string;
  config: HistoryConfig;
  nowMs: number;
  /** false: a tools session, no restart of the loop (EventOpenOptions.reboot) */
  reboot?: boolean;
}

function stateOf(cp: Checkpoint): LoopCheckpointState {
  const parsed = loopCheckpointStateSchema.safeParse(cp.state);
  if (!parsed.success) throw new CheckpointMismatch(`its state: ${parsed.error.issues[0]?.path.join('.') || '(root)'}: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  return parsed.data;
}

export class LoopHistory {
  readonly fold: HistoryFold;
  readonly startup: HistoryStartup;
  readonly #backend: PersistenceBackend;
  readonly #config: HistoryConfig;
  readonly #persona: string;
  /** the last record the fold covers */
  #chain: { seq: number; hash: string };

  private constructor(backend: PersistenceBackend, options: OpenHistoryOptions, fold: HistoryFold, chain: { seq: number; hash: string }, startup: HistoryStartup) {
    this.#backend = backend;
    this.#config = options.config;
    this.#persona = options.persona;
    this.fold = fold;
    this.#chain = chain;
    this.startup = startup;
  }

  /** Opens the backend's events for appends (writing `reboot` when it had events) and builds the start state. */
  static async open(backend: PersistenceBackend, options: OpenHistoryOptions): Promise<LoopHistory> {
    const events = backend.events;
    const where = events.history.documentLabel('checkpoint');
    let cp: Checkpoint | undefined;
    let refused: string | undefined;
    try {
      cp = parseCheckpoint(events.history.readDocument('checkpoint'), where, options.persona);
    } catch (error) {
      if (!(error instanceof CheckpointMismatch)) throw error;
      refused = error.message;
    }
    const after = cp?.chain.seq ?? 0;
    const pending: EventEnvelope[] = [];
    let confirmed: boolean | undefined;
    let last = { seq: 0, hash: '' };
    const startup = await events.open({
      rollup: rollupOf,
      ...(options.reboot === false ? { reboot: false } : {}),
      onEvent: (e) => {
        if (cp && e.seq === cp.chain.seq) confirmed = e.hash === cp.chain.hash;
        if (e.seq > after) pending.push(e);
        last = { seq: e.seq, hash: e.hash };
      },
    });
    const open = events.openSegment();
    const entries = readIndexEntries(events.history);
    const report: HistoryStartup = {
      checkpoint: 'none',
      folded_events: 0,
      sealed_segments_read: 0,
      sealed_segments: entries.length,
      open_segment: { index: open.index, records: open.records, bytes: open.bytes },
      ...(startup.resumedSeal ? { resumed_seal: startup.resumedSeal } : {}),
    };
    // Records the scan of the open segment saw are `pending`; `last` is where it ended (before reboot/persona_start).
    const openFirst = open.firstSeq || last.seq + 1;
    let fold: HistoryFold | undefined;
    if (cp && !refused) {
      try {
        verifyCheckpointAgainstSegments(cp, { storage: events.history, entries, openIndex: open.index, openFirstSeq: openFirst, lastSeq: last.seq }, where);
        const state = stateOf(cp);
        const candidate = HistoryFold.from(state.history);
        let folded = 0;
        if (cp.chain.seq < openFirst && cp.chain.seq > 0) {
          // Older than the last seal: the records between it and the open segment are in sealed segments.
          const gap: EventEnvelope[] = [];
          const reading = new Set<number>();
          for (const e of events.readAfter(cp.chain.seq - 1)) {
            if (e.seq >= openFirst) break;
            if (e.seq === cp.chain.seq) confirmed = e.hash === cp.chain.hash;
            else gap.push(e);
            const entry = entries.find((x) => x.first_seq <= e.seq && e.seq <= x.last_seq);
            if (entry) reading.add(entry.segment);
          }
          report.sealed_segments_read = reading.size;
          for (const e of gap) candidate.add(e);
          folded += gap.length;
        } else if (cp.chain.seq === 0) confirmed = true;
        if (confirmed !== true) throw new CheckpointMismatch(`${where}: the record at seq ${cp.chain.seq} ${confirmed === false ? 'does not carry the hash it records' : 'is not in the log'}`);
        for (const e of pending) candidate.add(e);
        folded += pending.length;
        fold = candidate;
        report.checkpoint = 'used';
        report.checkpoint_seq = cp.chain.seq;
        report.folded_events = folded;
      } catch (error) {
        if (!(error instanceof CheckpointMismatch)) throw error;
        refused = error.message;
      }
    }
    if (!fold) {
      // No checkpoint, or one that does not match: every record is folded (a full scan).
      fold = new HistoryFold();
      let sealedRead = 0;
      let lastSegment = 0;
      for (const e of events.readAfter(0)) {
        if (e.seq > last.seq) break;
        fold.add(e);
        const entry = e.seq < openFirst ? entries.find((x) => x.first_seq <= e.seq && e.seq <= x.last_seq) : undefined;
        if (entry && entry.segment !== lastSegment) {
          sealedRead += 1;
          lastSegment = entry.segment;
        }
      }
      report.folded_events = fold.events;
      report.sealed_segments_read = sealedRead;
      if (refused) {
        report.checkpoint = 'refused';
        report.reason = refused;
        if (events.history.writable) {
          const aside = events.history.setAside('checkpoint', 'refused');
          if (aside) report.set_aside = aside;
        }
      }
    }
    const history = new LoopHistory(backend, options, fold, last, report);
    return history;
  }

  /** Folds the records appended since the fold's last one (the open segment only, normally). */
  #advance(): void {
    for (const e of this.#backend.events.readAfter(this.#chain.seq)) {
      this.fold.add(e);
      this.#chain = { seq: e.seq, hash: e.hash };
    }
  }

  /** Whether the open segment is due to be sealed (size, or a UTC day over). */
  sealDue(nowMs: number): boolean {
    return sealDue(this.#config, this.#backend.events.openSegment(), nowMs);
  }

  get config(): HistoryConfig {
    return this.#config;
  }

  /**
   * Seals the open segment and writes the seal's checkpoint. `attached` goes into the header
   * (the trace segment sealed with it); `sections` are the loop's checkpoint sections.
   */
  async seal(nowMs: number, sections: CheckpointSections, attached?: Record<string, unknown>): Promise<SealOutcome | undefined> {
    this.#advance();
    const outcome = await this.#backend.events.seal(attached ? { attached } : {});
    if (!outcome) return undefined;
    this.#advance();
    this.writeCheckpoint('seal', nowMs, sections);
    return outcome;
  }

  /** Writes a checkpoint through the last record (a seal's, a clean close's, or a rebuilt one after a refusal). */
  writeCheckpoint(kind: Checkpoint['kind'], nowMs: number, sections: CheckpointSections): void {
    const events = this.#backend.events;
    if (!events.history.writable) return;
    this.#advance();
    const open = events.openSegment();
    const entries = readIndexEntries(events.history);
    const state: LoopCheckpointState = { history: this.fold.toState(nowMs), sections };
    const cp: Checkpoint = {
      format: CHECKPOINT_FORMAT,
      kind,
      persona: this.#persona,
      written_at: new Date(nowMs).toISOString(),
      chain: this.#chain,
      sealed: sealedOf(entries.at(-1)),
      open_segment: open.index,
      state,
    };
    events.history.writeDocument('checkpoint', `${JSON.stringify(cp)}\n`);
  }

  /** The state a checkpoint would hold now (tests, status). */
  state(nowMs: number): HistoryState {
    this.#advance();
    return this.fold.toState(nowMs);
  }
}
