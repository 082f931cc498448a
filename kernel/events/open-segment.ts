/** The open segment's shape from its events, for a reader that does not hold the log open. */
import type { EventEnvelope } from './envelope.ts';
import type { OpenSegment } from './event-log.ts';
import { SEGMENT_EVENT, segmentHeaderSchema } from './segment-header.ts';

/** Counts one more event of the open segment, in order: the first one's seq (and header, when it is one), the first record's time. */
export function noteOpenSegmentEvent(segment: OpenSegment, event: Pick<EventEnvelope, 'seq' | 'type' | 'payload' | 'at'>): void {
  if (segment.records === 0) {
    segment.firstSeq = event.seq;
    if (event.type === SEGMENT_EVENT) {
      segment.header = segmentHeaderSchema.parse(event.payload);
      segment.index = segment.header.segment;
    }
  }
  if (segment.firstAt === undefined && event.type !== SEGMENT_EVENT) segment.firstAt = event.at;
  segment.records += 1;
}

export function openSegmentOf(events: Iterable<EventEnvelope>, bytes: number): OpenSegment {
  const segment: OpenSegment = { index: 1, firstSeq: 0, bytes, records: 0 };
  for (const event of events) noteOpenSegmentEvent(segment, event);
  return segment;
}
