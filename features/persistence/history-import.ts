/**
 * Importing a segmented log verbatim into an empty store (what `persistence export` does):
 * the events go into the open segment in batches; each `log_segment` record seals what came
 * before it as the segment its header names (the bytes must hash to the header's digest, as
 * they do when the lines are the original's), so the copy is segmented exactly as the source.
 */
import { kernelError } from '../../kernel/errors.ts';
import type { EventEnvelope } from '../../kernel/events/envelope.ts';
import { SEGMENT_EVENT, segmentHeaderSchema } from '../../kernel/events/segment-header.ts';
import { prepareSeal, sha256Hex } from '../history-segments/seal.ts';
import type { HistoryStorage } from '../../kernel/contracts/history-storage.ts';

export interface ImportTarget {
  history: HistoryStorage;
  /** appends events to the open segment verbatim, durably (done when it returns, or when its promise resolves) */
  appendEvents(events: readonly EventEnvelope[]): void | Promise<void>;
  /** the open segment's bytes, as JSONL */
  readOpenBytes(): Buffer;
  /** replaces the open segment with this one event (the next segment's header) */
  replaceOpen(header: EventEnvelope): void;
  /** names the open segment in messages */
  file: string;
  rollup?: (events: EventEnvelope[]) => unknown;
}

const BATCH = 4096;

export async function importSegmented(events: Iterable<EventEnvelope>, target: ImportTarget): Promise<number> {
  let count = 0;
  let batch: EventEnvelope[] = [];
  const flush = async () => {
    if (batch.length > 0) await target.appendEvents(batch);
    batch = [];
  };
  for (const event of events) {
    if (event.type === SEGMENT_EVENT) {
      await flush();
      const header = segmentHeaderSchema.parse(event.payload);
      const bytes = target.readOpenBytes();
      if (sha256Hex(bytes) !== header.sealed.sha256) {
        throw kernelError('RTC_ERR_PERSISTENCE_EXPORT', `${target.file}: the copied segment ${header.sealed.segment} does not hash to the digest its header (seq ${event.seq}) records; the copy is not the original's`, {
          details: { segment: header.sealed.segment, seq: event.seq },
        });
      }
      const prepared = await prepareSeal({ segment: header.sealed.segment, bytes, file: target.file, ...(header.attached ? { attached: header.attached } : {}), ...(target.rollup ? { rollup: target.rollup } : {}) });
      target.history.writeSealed(header.sealed.segment, prepared.gz);
      target.history.appendIndex(JSON.stringify(prepared.entry));
      if (prepared.rollupLine) target.history.appendRollup(prepared.rollupLine);
      target.replaceOpen(event);
    } else {
      batch.push(event);
      if (batch.length >= BATCH) await flush();
    }
    count += 1;
  }
  await flush();
  return count;
}
