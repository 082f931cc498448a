/**
 * The storage operations a segmented log needs, and nothing else: what the kernel asks of
 * a persistence backend (or of the files it keeps itself: the trace and the proposal log).
 * Everything above them (headers, digests, checkpoints, verification, reading across
 * segments) is features/history-segments' (handed to the event log through the port in
 * kernel/events/segments.ts); a backend only says where the bytes go.
 *
 *   list()                     the sealed segments stored (and archived stubs), by index
 *   readSealed(i)              a sealed segment's stored (gzip) bytes
 *   writeSealed(i, gz)         stores a new sealed segment durably; never over another one
 *   readIndex() / appendIndex  the segment index, one JSON line per sealed segment
 *   readRollups(from) / appendRollup   one rollup line per sealed segment, read from segment `from` on
 *   readDocument / writeDocument   small documents replaced atomically: `checkpoint`, `verified`
 *   setAside(doc, why)         keeps a refused document as evidence under another name
 *   archive(i, stub) / restore(i, gz)   swaps a segment's bytes for a stub naming its archive, and back
 *
 * The open segment is the backend's own (the file `events.jsonl` with its O_DSYNC appends, or
 * the rows of the sqlite `events` table), as is the atomic step that seals it (files: segment
 * written, then the open file replaced by the header; sqlite: one transaction).
 */

export type HistoryDocument = 'checkpoint' | 'verified';

/** What an archived segment leaves in the live history: its digests and where it went. */
export interface ArchivedStub {
  format: 'runtimectl.archived-segment/1';
  segment: number;
  first_seq: number;
  last_seq: number;
  records: number;
  bytes: number;
  sha256: string;
  gz_bytes: number;
  gz_sha256: string;
  /** where the segment's bytes are now */
  archive: { kind: 'folder' | 'tarball'; path: string; member: string };
  archived_at: string;
}

export interface StoredSegment {
  index: number;
  /** a name for messages: `jerome/logs/segments/000003.jsonl.gz`, `persistence.db#segments/3` */
  name: string;
  /** stored (compressed) size; 0 for an archived segment */
  gzBytes: number;
  /**
   * What changes when the stored bytes change (files: inode, size, ctime), so an incremental
   * verify can skip a segment it checked before; '' where the store cannot tell.
   */
  identity: string;
  /** present when the segment was archived: its bytes are elsewhere */
  archived?: ArchivedStub;
}

export interface SealedListing {
  segments: StoredSegment[];
  /** entries of the segment store that are neither a segment nor a stub (names, for messages) */
  strays: string[];
}

export interface HistoryStorage {
  /** The log this history belongs to, for messages (relative to the state directory). */
  readonly label: string;
  /** Names the segment store, the index and documents in messages. */
  readonly segmentsLabel: string;
  /** Names sealed segment `index` in messages, whether or not it is stored. */
  segmentLabel(index: number): string;
  readonly indexLabel: string;
  documentLabel(name: HistoryDocument): string;
  list(): SealedListing;
  readSealed(index: number): Buffer;
  writeSealed(index: number, gz: Buffer): void;
  readIndex(): string[];
  appendIndex(line: string): void;
  /** Rollup lines of segments `fromSegment` and later, oldest first (a file store reads from its end). */
  readRollups(fromSegment: number): string[];
  appendRollup(line: string): void;
  readonly rollupsLabel: string;
  readDocument(name: HistoryDocument): string | undefined;
  writeDocument(name: HistoryDocument, text: string): void;
  /** Renames the document aside (evidence), returning the new name; nothing is deleted. */
  setAside(name: HistoryDocument, why: string): string | undefined;
  archive(index: number, stub: ArchivedStub): void;
  restore(index: number, gz: Buffer): void;
  /** False when the store cannot be written (opened read-only). */
  readonly writable: boolean;
}
