/**
 * The header of a log segment: the first record of every segment after the first, an
 * ordinary chained record of type `log_segment` whose payload describes the segment sealed
 * just before it: its seq range, how many records and bytes it holds, the sha256 of its
 * bytes (the whole segment, `at` times included, which the chain alone does not cover) and
 * the hash of its last record (which is also this record's `prev`).
 *
 * Because the header is in the chain, a sealed segment that is removed, swapped for another
 * or edited is caught: its digest or its last hash no longer matches the header that follows
 * it, and rewriting that header breaks every later link. The event log, the proposal log and
 * (with its own line format, features/cycle-recording) the cycle trace all seal this way.
 */
import { z } from 'zod';

export const SEGMENT_EVENT = 'log_segment';

const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/, 'must be 64 lower-case hex digits (sha256)');

/** What the header of segment N says about segment N-1. */
export const sealedSegmentSchema = z.strictObject({
  segment: z.number().int().min(1).describe('index of the sealed segment (1 is the first)'),
  first_seq: z.number().int().min(1),
  last_seq: z.number().int().min(1),
  records: z.number().int().min(1).describe('lines in the segment'),
  bytes: z.number().int().min(1).describe('uncompressed size of the segment'),
  sha256: sha256Hex.describe('sha256 of the segment bytes, uncompressed'),
  last_hash: sha256Hex.describe('hash of the last record of the segment'),
});
export type SealedSegment = z.infer<typeof sealedSegmentSchema>;

/**
 * Payload of a `log_segment` record. `attached` carries what was sealed together with this
 * log (the event log's header names the trace segment sealed at the same moment), so one
 * chain covers both; it is opaque here.
 */
export const segmentHeaderSchema = z.strictObject({
  segment: z.number().int().min(2).describe('index of the segment this record opens'),
  sealed: sealedSegmentSchema,
  /** sha256 of the sealed segment's rollup line (features/history-segments): the chain vouches for the figures status reads */
  rollup: sha256Hex.optional(),
  attached: z.record(z.string(), z.unknown()).optional(),
});
export type SegmentHeader = z.infer<typeof segmentHeaderSchema>;

/**
 * What is wrong with a header record at `seq` with `prev`, or undefined when it is sound:
 * its payload must describe the segment that ends just before it.
 */
export function headerProblem(payload: unknown, seq: number, prev: string): string | undefined {
  const parsed = segmentHeaderSchema.safeParse(payload);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return `not a valid segment header: ${issue && issue.path.length > 0 ? issue.path.join('.') : '(root)'}: ${issue?.message ?? 'invalid'}`;
  }
  const h = parsed.data;
  if (h.segment !== h.sealed.segment + 1) return `segment header opens segment ${h.segment} but seals segment ${h.sealed.segment}`;
  if (h.sealed.last_seq !== seq - 1) return `segment header at seq ${seq} seals a segment ending at seq ${h.sealed.last_seq}`;
  if (h.sealed.first_seq > h.sealed.last_seq || h.sealed.last_seq - h.sealed.first_seq + 1 !== h.sealed.records) {
    return `segment header: seq ${h.sealed.first_seq}..${h.sealed.last_seq} is not ${h.sealed.records} record(s)`;
  }
  if (h.sealed.last_hash !== prev) return 'segment header: the sealed segment\'s last hash is not this record\'s prev';
  return undefined;
}
