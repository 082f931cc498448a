/**
 * One line of a log's segment index (`<log>/index.jsonl`, or the sqlite backend's
 * `segment_index` table): what a sealed segment holds and how it is stored, written when the
 * segment is sealed. It repeats what the next segment's header says (seq range, records,
 * bytes, sha256, last hash), adds what only the stored form knows (compressed size and
 * digest) and the wall-clock span of its records (outside every hash, used to pick the
 * segments a time window needs). Kept small: start-up reads all of it.
 *
 * Beside it, `rollups.jsonl` holds one rollup per sealed segment: the figures `status`,
 * `activity` and the loop's usage step read instead of the raw records (features/history
 * defines them; the kernel keeps them opaque), read from the end for recent windows.
 *
 * Both are derived data: checked against the headers (start-up, `verify`) and recomputed
 * from the segments by `verify --full`, never trusted for the chain itself.
 */
import { z } from 'zod';
import { sealedSegmentSchema } from '../../kernel/events/segment-header.ts';
import type { SegmentIndexEntry } from '../../kernel/events/segments.ts';

const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/);

export const INDEX_FORMAT = 1;

export const segmentIndexEntrySchema = sealedSegmentSchema.extend({
  v: z.literal(INDEX_FORMAT),
  /** compressed (stored) size and digest of the sealed segment */
  gz_bytes: z.number().int().min(1),
  gz_sha256: sha256Hex,
  /** earliest and latest record `at` in the segment (ISO); a clock can go backwards */
  min_at: z.string(),
  max_at: z.string(),
  /** what was sealed with it (the trace segment sealed with an event segment) */
  attached: z.record(z.string(), z.unknown()).optional(),
});
export type { SegmentIndexEntry };
// The kernel's type (kernel/events/segments.ts) and this schema describe one line: each is assignable to the other.
const _schemaIsKernelType = (entry: z.infer<typeof segmentIndexEntrySchema>): SegmentIndexEntry => entry;
const _kernelTypeIsSchema = (entry: SegmentIndexEntry): z.infer<typeof segmentIndexEntrySchema> => entry;
void _schemaIsKernelType;
void _kernelTypeIsSchema;

/** The fields of an entry that must equal what the next segment's header recorded. */
export function sealedPartOf(entry: SegmentIndexEntry) {
  return {
    segment: entry.segment,
    first_seq: entry.first_seq,
    last_seq: entry.last_seq,
    records: entry.records,
    bytes: entry.bytes,
    sha256: entry.sha256,
    last_hash: entry.last_hash,
  };
}

/** Parses index lines; a line that does not parse is an error naming the index and the line. */
export function parseIndexLines(lines: readonly string[], where: string): SegmentIndexEntry[] {
  const out: SegmentIndexEntry[] = [];
  for (const [i, text] of lines.entries()) {
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      throw new IndexLineError(`${where}:${i + 1}: not valid JSON`);
    }
    const parsed = segmentIndexEntrySchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new IndexLineError(`${where}:${i + 1}: ${issue && issue.path.length > 0 ? issue.path.join('.') : '(root)'}: ${issue?.message ?? 'invalid'}`);
    }
    if (parsed.data.segment !== i + 1) throw new IndexLineError(`${where}:${i + 1}: describes segment ${parsed.data.segment}, not segment ${i + 1}`);
    out.push(parsed.data);
  }
  return out;
}

/** One line of rollups.jsonl: a sealed segment's rollup (features/history), opaque to the kernel. */
export interface RollupLine {
  segment: number;
  rollup: unknown;
}

/** Parses rollup lines; a line that does not parse is an IndexLineError naming it. */
export function parseRollupLines(lines: readonly string[], where: string): RollupLine[] {
  return lines.map((text, i) => {
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      throw new IndexLineError(`${where}: line ${i + 1} from the end is not valid JSON`);
    }
    const r = raw as Partial<RollupLine>;
    if (typeof r?.segment !== 'number' || !Number.isInteger(r.segment) || r.segment < 1) throw new IndexLineError(`${where}: a line names no segment`);
    return { segment: r.segment, rollup: r.rollup };
  });
}

/** A malformed index line; callers turn it into RTC_ERR_HISTORY_INDEX with their context. */
export class IndexLineError extends Error {}
