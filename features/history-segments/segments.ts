/**
 * The sealed-segments implementation the event log is handed (the port: kernel/events/segments.ts):
 * the checks at open (open-check.ts), the seal (seal.ts) and reading a stored segment back.
 */
import type { HistoryStorage } from '../../kernel/contracts/history-storage.ts';
import type { LogHistory, SealedHistory, SealedSegments, SealedSide } from '../../kernel/events/segments.ts';
import { checkSealedAtOpen } from './open-check.ts';
import { decompressSegment, prepareSeal } from './seal.ts';

export const historySegments: SealedSegments = {
  checkAtOpen: checkSealedAtOpen,
  prepareSeal,
  decompress: decompressSegment,
};

/** A log's history over `storage`, kept by this implementation: what openEventLog's `history` takes. */
export function logHistory(storage: HistoryStorage): LogHistory {
  return { storage, segments: historySegments };
}

/** A sealed side checked by hand (a table placement's open) with the implementation that seals it further. */
export function withSegments(side: SealedSide): SealedHistory {
  return { ...side, segments: historySegments };
}
