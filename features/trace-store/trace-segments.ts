/**
 * Sealing the cycle trace (trace-store.ts) into segments, as the event log seals
 * (features/history-segments): the open file's complete lines become `trace/segments/NNNNNN.jsonl.gz`,
 * indexed in `trace/index.jsonl` with the cycles they hold, and the open file is replaced by
 * one header line for the next segment:
 *
 *   {"v":1,"segment":N,"sealed":{segment, first_seq, last_seq, records, bytes, sha256, last_hash},"hash":"…"}
 *
 * `seq` numbers a trace segment's lines across the whole trace (header lines included);
 * `last_hash` is the hash of the segment's last line (a record's own `hash`, or a header's).
 * The header's `hash` is the sha256 of its canonical JSON without it. The event log's
 * `log_segment` record that follows the seal carries the same description (`attached.trace`),
 * so the event chain vouches for the trace's segments.
 */
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { z } from 'zod';
import { kernelError } from '../../kernel/errors.ts';
import { canonicalJson } from '../../kernel/events/canonical.ts';
import { sha256 } from '../../kernel/events/envelope.ts';
import { sealedSegmentSchema, type SealedSegment } from '../../kernel/events/segment-header.ts';
import { replaceFileDurably } from '../../kernel/storage/durable-files.ts';
import { INDEX_FORMAT, type SegmentIndexEntry } from '../history-segments/index-entry.ts';
import { readIndexEntries } from '../history-segments/reader.ts';
import { compressSegment, decompressSegment, sha256Hex } from '../history-segments/seal.ts';
import type { HistoryStorage, StoredSegment } from '../../kernel/contracts/history-storage.ts';
import type { TraceLine } from './trace-store.ts';

export const traceHeaderSchema = z.strictObject({
  v: z.literal(1),
  segment: z.number().int().min(2),
  sealed: sealedSegmentSchema,
  hash: z.string().regex(/^[0-9a-f]{64}$/),
});
export type TraceHeader = z.infer<typeof traceHeaderSchema>;

/** What a trace seal recorded: its segment and the cycles it holds (the event log's header carries it). */
export interface TraceSealed extends SealedSegment {
  gz_sha256: string;
  first_cycle: number | null;
  last_cycle: number | null;
}

export function traceHeaderHash(segment: number, sealed: SealedSegment): string {
  return sha256(canonicalJson({ v: 1, segment, sealed }));
}

export function traceHeaderLine(segment: number, sealed: SealedSegment): string {
  return `${JSON.stringify({ v: 1, segment, sealed, hash: traceHeaderHash(segment, sealed) })}\n`;
}

/** Parses a header line; undefined when the line is not a header, an error when it is a damaged one. */
export function traceHeaderOf(line: string, where: string): TraceHeader | undefined {
  if (!line.startsWith('{"v":1,"segment":')) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch {
    throw kernelError('RTC_ERR_REPLAY_RECORDING', `${where}: a segment header that is not JSON`);
  }
  const parsed = traceHeaderSchema.safeParse(raw);
  if (!parsed.success) throw kernelError('RTC_ERR_REPLAY_RECORDING', `${where}: not a valid trace segment header: ${parsed.error.issues[0]?.path.join('.') || '(root)'}: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  if (traceHeaderHash(parsed.data.segment, parsed.data.sealed) !== parsed.data.hash) {
    throw kernelError('RTC_ERR_REPLAY_RECORDING', `${where}: the trace segment header's content does not hash to its stored hash: it was edited`);
  }
  return parsed.data;
}

/** The index of the open trace segment: 1, or what its header line says. */
export function openTraceIndex(file: string): number {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return 1;
  }
  try {
    const head = Buffer.alloc(4096);
    const n = readSync(fd, head, 0, head.length, 0);
    const firstLine = head.subarray(0, n).toString('utf8').split('\n')[0]!;
    return traceHeaderOf(firstLine, file)?.segment ?? 1;
  } catch {
    return 1;
  } finally {
    closeSync(fd);
  }
}

export function isTraceHeader(line: string, where: string): boolean {
  return traceHeaderOf(line, where) !== undefined;
}

/** The sealed trace segments that may hold cycles in `range` (all of them without one), in order. */
export function traceSegmentsFor(history: HistoryStorage, range?: { fromCycle: number; toCycle: number }): StoredSegment[] {
  const listing = history.list().segments;
  if (!range) return listing;
  const entries = readIndexEntries(history);
  return listing.filter((s) => {
    const cycles = entries[s.index - 1]?.attached as { first_cycle?: number | null; last_cycle?: number | null } | undefined;
    // An entry that does not say (or a segment without one) is read: never skip what may hold the range.
    if (cycles?.first_cycle == null || cycles.last_cycle == null) return true;
    return cycles.last_cycle >= range.fromCycle && cycles.first_cycle <= range.toCycle;
  });
}

/**
 * Seals `file` (the open trace segment) into `history`; `parse` checks its lines. A seal a
 * crash cut short (the segment stored, the open file not yet replaced) is completed.
 */
export async function sealTrace(file: string, history: HistoryStorage, parse: (text: string, where: string) => TraceLine[]): Promise<TraceSealed | undefined> {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  // Only complete lines are sealed; a torn tail stays for the store's own repair.
  const end = bytes.lastIndexOf(0x0a) + 1;
  if (end < bytes.length) return undefined;
  const text = bytes.toString('utf8');
  const lines = text.split('\n').slice(0, -1);
  const header = lines.length > 0 ? traceHeaderOf(lines[0]!, file) : undefined;
  const index = header?.segment ?? 1;
  const records = parse(text, file);
  if (records.length === 0) return undefined;
  const entries = readIndexEntries(history);
  if (entries.length > index) throw kernelError('RTC_ERR_HISTORY_INDEX', `${history.indexLabel}: describes ${entries.length} trace segments, but the open one is segment ${index}`);
  const firstSeq = header ? header.sealed.last_seq + 1 : 1;
  const lastLine = lines.at(-1)!;
  const lastHash = (JSON.parse(lastLine) as { hash: string }).hash;
  const sealed: SealedSegment = { segment: index, first_seq: firstSeq, last_seq: firstSeq + lines.length - 1, records: lines.length, bytes: bytes.length, sha256: sha256Hex(bytes), last_hash: lastHash };
  const stored = history.list().segments.find((s) => s.index === index && !s.archived);
  let gz: Buffer;
  if (stored) {
    gz = history.readSealed(index);
    if (!decompressSegment(gz, stored.name).equals(bytes)) {
      throw kernelError('RTC_ERR_HISTORY_SEGMENT', `${stored.name}: is stored as trace segment ${index} but does not hold the lines of the open trace ${file}; neither was changed`);
    }
  } else {
    gz = await compressSegment(bytes);
    history.writeSealed(index, gz);
  }
  let firstCycle: number | null = null;
  let lastCycle: number | null = null;
  let minNow = Infinity;
  let maxNow = -Infinity;
  for (const { record } of records) {
    firstCycle = firstCycle === null ? record.cycle : Math.min(firstCycle, record.cycle);
    lastCycle = lastCycle === null ? record.cycle : Math.max(lastCycle, record.cycle);
    minNow = Math.min(minNow, record.now);
    maxNow = Math.max(maxNow, record.now);
  }
  const iso = (ms: number) => (Number.isFinite(ms) ? new Date(ms).toISOString() : '');
  const entry: SegmentIndexEntry = { v: INDEX_FORMAT, ...sealed, gz_bytes: gz.length, gz_sha256: sha256Hex(gz), min_at: iso(minNow), max_at: iso(maxNow), attached: { first_cycle: firstCycle, last_cycle: lastCycle } };
  if (entries.length < index) history.appendIndex(JSON.stringify(entry));
  replaceFileDurably(file, traceHeaderLine(index + 1, sealed));
  return { ...sealed, gz_sha256: entry.gz_sha256, first_cycle: firstCycle, last_cycle: lastCycle };
}
