/**
 * The port between the event log and a sealed history. The log owns its open segment (the
 * file or rows it appends to, the chain, the header that opens each segment); what it needs
 * from the sealed side is this interface, implemented by features/history-segments and handed
 * in by whoever opens the log with a history (the persistence backends' placements, tests):
 *
 *   checkAtOpen   the sealed side checked without reading it all (missing, reordered, edited
 *                 segments refused in one line), its missing index lines rebuilt
 *   prepareSeal   the open segment's bytes checked record by record and compressed, with the
 *                 index entry and the header of the next segment
 *   decompress    a stored segment's bytes read back (a seal a crash cut short is compared
 *                 with the open segment before it is completed)
 *
 * A log opened with a history storage always has the implementation with it (LogHistory): a
 * sealed side is never opened half-checked.
 */
import type { EventEnvelope } from './envelope.ts';
import type { SealedSegment, SegmentHeader } from './segment-header.ts';
import type { HistoryStorage } from '../contracts/history-storage.ts';

/** A sealed segment's line in the index (`index.jsonl`); its schema is features/history-segments/index-entry.ts. */
export interface SegmentIndexEntry extends SealedSegment {
  v: 1;
  /** compressed (stored) size and digest of the sealed segment */
  gz_bytes: number;
  gz_sha256: string;
  /** earliest and latest record `at` in the segment (ISO); a clock can go backwards */
  min_at: string;
  max_at: string;
  /** what was sealed with it (the trace segment sealed with an event segment) */
  attached?: Record<string, unknown> | undefined;
}

/** The rollup a sealed segment's index carries, folded from its events (features/history). */
export type RollupFold = (events: EventEnvelope[]) => unknown;

export interface SealInput {
  /** index of the segment being sealed */
  segment: number;
  /** its bytes: complete lines, exactly as stored in the open segment */
  bytes: Buffer;
  /** names the open segment in problems */
  file: string;
  /** what else is sealed with it (recorded in the header and the index) */
  attached?: Record<string, unknown>;
  rollup?: RollupFold;
}

export interface PreparedSeal {
  gz: Buffer;
  /** the rollup line (rollups.jsonl), when a rollup was asked */
  rollupLine?: string;
  sealed: SealedSegment;
  /** the payload of the `log_segment` record that opens the next segment */
  header: SegmentHeader;
  entry: SegmentIndexEntry;
}

export interface OpenSegmentRef {
  index: number;
  header?: SegmentHeader;
  /** names the open segment in messages */
  label: string;
}

export interface CheckAtOpenOptions {
  rollup?: RollupFold;
  /** rebuild missing index entries (a writable open); read-only opens only report */
  rebuild: boolean;
}

/** The sealed side of a log, as checkAtOpen found it. */
export interface SealedSide {
  storage: HistoryStorage;
  /** index entries of segments 1..open-1 */
  entries: SegmentIndexEntry[];
  rollup?: RollupFold;
  /** segments whose index entry was missing and rebuilt from the segment */
  rebuilt: number[];
  /** a segment already stored at the open segment's index: a seal a crash cut short */
  resume: boolean;
}

/** The sealed side with the implementation that seals it further: what an EventLog is built with. */
export interface SealedHistory extends SealedSide {
  segments: SealedSegments;
}

/** What the event log needs from a sealed history's implementation (features/history-segments). */
export interface SealedSegments {
  checkAtOpen(storage: HistoryStorage, open: OpenSegmentRef, options: CheckAtOpenOptions): SealedSide;
  prepareSeal(input: SealInput): Promise<PreparedSeal>;
  /** a stored segment's gzip bytes decompressed; a truncated or foreign one is RTC_ERR_HISTORY_SEGMENT naming `name` */
  decompress(gz: Buffer, name: string): Buffer;
}

/** A log's history as it is handed to openEventLog: where the sealed segments are, and the code that keeps them. */
export interface LogHistory {
  storage: HistoryStorage;
  segments: SealedSegments;
}
