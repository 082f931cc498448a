/**
 * What opening a segmented log checks of its sealed segments, without reading them all:
 * the open segment's header says how many segments were sealed before it and describes the
 * last one; every segment from 1 to that one must be stored (or archived, with a stub), each
 * stored at the size its index entry recorded, no segment beyond the open one, and the last
 * sealed segment's bytes must hash to what its entry records and match the header. Reading
 * one segment and listing the rest keeps start-up independent of the persona's age; an edit
 * inside an older segment that keeps its size is for `verify` (features/history-segments/verify.ts).
 *
 * The index is derived data: entries missing from it (a crash between storing a segment and
 * indexing it, or a deleted index) are rebuilt from the segments and the headers that follow
 * them. An entry that disagrees with what is stored is refused, naming the segment.
 */
import { kernelError } from '../../kernel/errors.ts';
import type { EventEnvelope } from '../../kernel/events/envelope.ts';
import type { SegmentHeader } from '../../kernel/events/segment-header.ts';
import type { CheckAtOpenOptions, OpenSegmentRef, RollupFold, SealedSide } from '../../kernel/events/segments.ts';
export type { CheckAtOpenOptions, OpenSegmentRef, SealedSide };
import { IndexLineError, INDEX_FORMAT, parseIndexLines, sealedPartOf, type SegmentIndexEntry } from './index-entry.ts';
import { decompressSegment, rollupLine, sha256Hex } from './seal.ts';
import { checkSegmentBytes } from './segment-check.ts';
import type { HistoryStorage, StoredSegment } from '../../kernel/contracts/history-storage.ts';

function segmentError(name: string, what: string, segment: number) {
  return kernelError('RTC_ERR_HISTORY_SEGMENT', `${name}: ${what} (nothing was changed)`, { details: { file: name, segment } });
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The header segment `index + 1` starts with: the first line of the next stored segment, or the open one's. */
function headerAfter(storage: HistoryStorage, index: number, open: OpenSegmentRef, stored: Map<number, StoredSegment>): SegmentHeader | undefined {
  if (index + 1 === open.index) return open.header;
  const next = stored.get(index + 1);
  if (!next || next.archived) return undefined;
  const check = checkSegmentBytes(decompressSegment(storage.readSealed(index + 1), next.name), { file: next.name });
  return check.header;
}

/** Rebuilds the index entry of stored segment `index`, checked against the header after it. */
function rebuildEntry(storage: HistoryStorage, segment: StoredSegment, open: OpenSegmentRef, stored: Map<number, StoredSegment>): SegmentIndexEntry {
  if (segment.archived) {
    throw kernelError('RTC_ERR_HISTORY_INDEX', `${storage.indexLabel}: the entry of archived segment ${segment.index} is missing, and an archived segment cannot be read to rebuild it; restore it first (nothing was changed)`, {
      details: { file: storage.indexLabel, segment: segment.index },
    });
  }
  const gz = storage.readSealed(segment.index);
  const bytes = decompressSegment(gz, segment.name);
  const check = checkSegmentBytes(bytes, { file: segment.name });
  if (check.problems.length > 0) throw segmentError(segment.name, `line ${check.problems[0]!.line}: ${check.problems[0]!.what}`, segment.index);
  const sealed = { segment: segment.index, first_seq: check.first_seq, last_seq: check.last_seq, records: check.records, bytes: bytes.length, sha256: sha256Hex(bytes), last_hash: check.last_hash };
  const header = headerAfter(storage, segment.index, open, stored);
  if (header && !same(header.sealed, sealed)) throw segmentError(segment.name, `does not match the header of segment ${segment.index + 1} (its digest or last hash differs): it was edited or replaced`, segment.index);
  return {
    v: INDEX_FORMAT,
    ...sealed,
    gz_bytes: gz.length,
    gz_sha256: sha256Hex(gz),
    min_at: check.min_at,
    max_at: check.max_at,
    ...(header?.attached ? { attached: header.attached } : {}),
  };
}

/** Rollups of sealed segments that have none (a crash before appending it, or a file set aside), rebuilt from the segments. */
function rebuildRollups(storage: HistoryStorage, sealedCount: number, stored: Map<number, StoredSegment>, rollup: RollupFold): number[] {
  const segmentOf = (line: string) => Number(/^\{"segment":(\d+)[,}]/.exec(line)?.[1] ?? 0);
  // Rollups are appended in segment order: when the last sealed segment has one, all do (a
  // start-up reads one line, not the file); otherwise the gaps are found and filled.
  if (sealedCount === 0 || storage.readRollups(sealedCount).some((line) => segmentOf(line) === sealedCount)) return [];
  const have = new Set<number>();
  for (const line of storage.readRollups(1)) {
    const m = /^\{"segment":(\d+)[,}]/.exec(line);
    if (m) have.add(Number(m[1]));
  }
  const rebuilt: number[] = [];
  for (let i = 1; i <= sealedCount; i++) {
    const segment = stored.get(i);
    if (have.has(i) || !segment || segment.archived) continue;
    const events: EventEnvelope[] = [];
    checkSegmentBytes(decompressSegment(storage.readSealed(i), segment.name), { file: segment.name, onEvent: (e) => events.push(e) });
    storage.appendRollup(rollupLine(i, rollup(events)));
    rebuilt.push(i);
  }
  return rebuilt;
}

export function checkSealedAtOpen(storage: HistoryStorage, open: OpenSegmentRef, options: CheckAtOpenOptions): SealedSide {
  const listing = storage.list();
  const stored = new Map(listing.segments.map((s) => [s.index, s]));
  const sealedCount = open.index - 1;
  let resume = false;
  for (const s of listing.segments) {
    if (s.index === open.index && !s.archived && s.index === listing.segments.at(-1)!.index) resume = true;
    else if (s.index >= open.index) {
      throw segmentError(s.name, `segment ${s.index} is stored, but the open segment ${open.label} is segment ${open.index}: segments are out of order or from another log`, s.index);
    }
  }
  for (let i = 1; i <= sealedCount; i++) {
    if (!stored.has(i)) {
      throw segmentError(storage.segmentLabel(i), `sealed segment ${i} is missing (the open segment ${open.label} is segment ${open.index}, so segments 1..${sealedCount} were sealed)`, i);
    }
  }
  let entries: SegmentIndexEntry[];
  try {
    entries = parseIndexLines(storage.readIndex(), storage.indexLabel);
  } catch (error) {
    if (!(error instanceof IndexLineError)) throw error;
    throw kernelError('RTC_ERR_HISTORY_INDEX', `${error.message} (nothing was changed)`, { details: { file: storage.indexLabel } });
  }
  if (entries.length > sealedCount + (resume ? 1 : 0)) {
    throw kernelError('RTC_ERR_HISTORY_INDEX', `${storage.indexLabel}: describes ${entries.length} sealed segment(s), but only ${sealedCount} are sealed before the open segment ${open.label} (nothing was changed)`, {
      details: { file: storage.indexLabel },
    });
  }
  const rebuilt: number[] = [];
  if (entries.length < sealedCount) {
    if (!options.rebuild) {
      throw kernelError('RTC_ERR_HISTORY_INDEX', `${storage.indexLabel}: describes ${entries.length} of the ${sealedCount} sealed segment(s); the next writable open rebuilds it from the segments`, { details: { file: storage.indexLabel } });
    }
    for (let i = entries.length + 1; i <= sealedCount; i++) {
      const entry = rebuildEntry(storage, stored.get(i)!, open, stored);
      storage.appendIndex(JSON.stringify(entry));
      entries.push(entry);
      rebuilt.push(i);
    }
  }
  for (const entry of entries.slice(0, sealedCount)) {
    const s = stored.get(entry.segment)!;
    if (s.archived) {
      if (s.archived.sha256 !== entry.sha256 || s.archived.gz_sha256 !== entry.gz_sha256 || s.archived.last_seq !== entry.last_seq) {
        throw segmentError(s.name, `the archived segment's stub does not match the index entry of segment ${entry.segment}`, entry.segment);
      }
    } else if (s.gzBytes !== entry.gz_bytes) {
      throw segmentError(s.name, `is ${s.gzBytes} bytes, but segment ${entry.segment} was sealed at ${entry.gz_bytes}: it was truncated, replaced or reordered`, entry.segment);
    }
  }
  if (sealedCount > 0) {
    const last = entries[sealedCount - 1]!;
    const s = stored.get(sealedCount)!;
    if (open.header && !same(open.header.sealed, sealedPartOf(last))) {
      throw segmentError(s.name, `its index entry does not match the header of the open segment ${open.label} (digest, seq range or last hash differ)`, sealedCount);
    }
    if (!s.archived && sha256Hex(storage.readSealed(sealedCount)) !== last.gz_sha256) {
      throw segmentError(s.name, `its bytes do not hash to the digest recorded when segment ${sealedCount} was sealed: it was edited or replaced`, sealedCount);
    }
  }
  // Rollups are rebuilt only where a fold is given and the open may write; readers do without.
  if (options.rebuild && options.rollup && storage.writable) rebuilt.push(...rebuildRollups(storage, sealedCount, stored, options.rollup).filter((i) => !rebuilt.includes(i)));
  return { storage, entries: entries.slice(0, sealedCount), ...(options.rollup ? { rollup: options.rollup } : {}), rebuilt, resume };
}
