/**
 * Reading a segmented log in order, touching only the segments that hold what is asked:
 * the index says which seq range each sealed segment holds, so `eventsAfter(n)` skips every
 * segment that ends at or before n, decompresses and checks the rest one at a time (a
 * segment costs no more memory than its own size), and ends with the open segment.
 *
 * Each segment read is checked (every line, every link, its header) and chained to the one
 * before it; a problem is thrown as a KernelError naming the segment and line. An archived
 * segment in the range is RTC_ERR_HISTORY_ARCHIVED, naming the archive it went to.
 */
import { kernelError } from '../../kernel/errors.ts';
import type { EventEnvelope } from '../../kernel/events/envelope.ts';
import { describeProblem } from '../../kernel/events/scan.ts';
import { IndexLineError, parseIndexLines, type SegmentIndexEntry } from './index-entry.ts';
import { decompressSegment } from './seal.ts';
import { checkSegmentBytes } from './segment-check.ts';
import type { HistoryStorage, StoredSegment } from '../../kernel/contracts/history-storage.ts';

export interface SegmentedSource {
  history: HistoryStorage;
  /** the open segment's events, checked (they chain from its header) */
  readOpen(): Iterable<EventEnvelope>;
}

/** The index entries, or a KernelError naming the bad line. */
export function readIndexEntries(storage: HistoryStorage): SegmentIndexEntry[] {
  try {
    return parseIndexLines(storage.readIndex(), storage.indexLabel);
  } catch (error) {
    if (!(error instanceof IndexLineError)) throw error;
    throw kernelError('RTC_ERR_HISTORY_INDEX', error.message, { details: { file: storage.indexLabel } });
  }
}

/** The events of one stored sealed segment, checked, in order. */
export function readSealedSegment(storage: HistoryStorage, segment: StoredSegment, start?: { seq: number; prev: string }): EventEnvelope[] {
  if (segment.archived) {
    const a = segment.archived.archive;
    throw kernelError('RTC_ERR_HISTORY_ARCHIVED', `${segment.name}: segment ${segment.index} (seq ${segment.archived.first_seq}..${segment.archived.last_seq}) is archived in ${a.path} (${a.member}); restore it with "runtimectl archive restore" to read it`, {
      details: { file: segment.name, segment: segment.index },
    });
  }
  const events: EventEnvelope[] = [];
  const check = checkSegmentBytes(decompressSegment(storage.readSealed(segment.index), segment.name), { file: segment.name, ...(start ? { start } : {}), onEvent: (e) => events.push(e) });
  const first = check.problems[0];
  if (first) throw kernelError('RTC_ERR_HISTORY_SEGMENT', `${describeProblem(first)} (nothing was changed)`, { details: { ...first, segment: segment.index } });
  return events;
}

/**
 * Events with seq > `afterSeq` (0: all), in order. Sealed segments are read only from the
 * first one whose last seq is past `afterSeq`.
 */
export function* eventsAfter(source: SegmentedSource, afterSeq: number): Generator<EventEnvelope> {
  const storage = source.history;
  const listing = storage.list().segments;
  const entries = readIndexEntries(storage);
  let previous: { seq: number; prev: string } | undefined;
  for (const segment of listing) {
    const entry: SegmentIndexEntry | undefined = entries[segment.index - 1];
    const last = entry?.last_seq ?? segment.archived?.last_seq;
    if (last !== undefined && last <= afterSeq) {
      previous = entry ? { seq: entry.last_seq + 1, prev: entry.last_hash } : undefined;
      continue;
    }
    const events = readSealedSegment(storage, segment, previous);
    for (const event of events) if (event.seq > afterSeq) yield event;
    const tail = events.at(-1);
    if (tail) previous = { seq: tail.seq + 1, prev: tail.hash };
  }
  let first = true;
  for (const event of source.readOpen()) {
    if (first && previous && (event.seq !== previous.seq || event.prev !== previous.prev)) {
      throw kernelError('RTC_ERR_HISTORY_SEGMENT', `${storage.label}: the open segment starts at seq ${event.seq}, which does not follow the last sealed segment (it ends before seq ${previous.seq}); a segment is missing or out of order`, {
        details: { file: storage.label },
      });
    }
    first = false;
    if (event.seq > afterSeq) yield event;
  }
}
