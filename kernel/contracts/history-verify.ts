/**
 * The types of verifying a sealed history (the code: features/history-segments/verify.ts,
 * segment-check.ts, parallel-check.ts): what PersistenceBackend.verify takes and reports, kept
 * in the kernel so the persistence contract names them without importing the implementation.
 * What only the implementation reads (the store's open segment check, `OpenCheck`, and what
 * verifying is handed, `VerifySource`) is features/history-segments/verify.ts's.
 */
import type { EventEnvelope } from '../events/envelope.ts';
import type { EventLogProblem } from '../events/scan.ts';
import type { SegmentHeader } from '../events/segment-header.ts';
import type { EventChainReport } from './persistence.ts';

/** What checking one segment's bytes found (features/history-segments/segment-check.ts). */
export interface SegmentCheck {
  records: number;
  first_seq: number;
  last_seq: number;
  /** prev of the first record: where the segment chains from */
  first_prev: string;
  last_hash: string;
  min_at: string;
  max_at: string;
  /** the header that opens the segment, when it has one */
  header?: SegmentHeader;
  problems: EventLogProblem[];
  /** bytes after the last newline (a sealed segment never has any) */
  torn: boolean;
}

/** One segment checked in a worker thread (features/history-segments/parallel-check.ts). */
export type CheckResult =
  | { index: number; gz_sha256: string; gz_bytes: number; bytes: number; sha256: string; check: SegmentCheck }
  | { index: number; error: string };

/** What one verification saw, kept so the next incremental one can skip it. */
export interface VerifiedRecord {
  format: 'runtimectl.verified/1';
  verified_at: string;
  mode: 'full' | 'incremental';
  segments: { segment: number; identity: string; gz_sha256: string; last_seq: number; last_hash: string }[];
}

export interface HistoryVerifyOptions {
  mode?: 'full' | 'incremental';
  since?: VerifiedRecord;
  /**
   * `deep`: every sealed record is parsed again (its payload's JSON and canonical form) and
   * each segment's rollup recomputed with `rollup` and compared. Without it a sealed segment is
   * checked at `links` depth (features/history-segments/segment-check.ts): its digest against the chain,
   * every record's hash over its stored text, every link, and its rollup against the digest
   * the chain's header records; every record was parsed and checked when it was sealed.
   */
  deep?: boolean;
  rollup?: (events: EventEnvelope[]) => unknown;
  now?: () => Date;
  /** sealed segments already checked in worker threads (features/history-segments/parallel-check.ts), by index */
  precomputed?: ReadonlyMap<number, CheckResult>;
}

export interface HistoryVerifyReport extends EventChainReport {
  mode: 'full' | 'incremental';
  sealed: number;
  archived: number;
  /** sealed segments read and checked in full by this run */
  read_segments: number;
  /** sealed segments not read: unchanged since the verification of `since_at` */
  unchanged_segments: number;
  since_at: string | null;
  /** the first seq this run checked record by record (how far back it looked) */
  looked_back_to_seq: number | null;
  looked_back_to_segment: number | null;
  /** records checked one by one, bytes decompressed, and the time it took */
  checked_records: number;
  checked_bytes: number;
  seconds: number;
  /** what to keep for the next incremental verification (undefined when it found errors) */
  record?: VerifiedRecord;
}

