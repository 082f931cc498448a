/**
 * Sealing a segment: its exact bytes are checked, digested (sha256 of the uncompressed
 * lines), compressed with gzip (node's zlib) and described twice: in the header that opens
 * the next segment (a chained record) and in the segment index (with the compressed size and
 * digest, the records' time span and the rollup). What the backend then does atomically is
 * its own (kernel/contracts/history-storage.ts).
 */
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { gunzipSync, gzip, constants as zlibConstants } from 'node:zlib';
import { kernelError } from '../../kernel/errors.ts';
import type { EventEnvelope } from '../../kernel/events/envelope.ts';
import { describeProblem } from '../../kernel/events/scan.ts';
import type { SealedSegment, SegmentHeader } from '../../kernel/events/segment-header.ts';
import { INDEX_FORMAT, type SegmentIndexEntry } from './index-entry.ts';
import type { PreparedSeal, SealInput } from '../../kernel/events/segments.ts';
export type { PreparedSeal, SealInput };
import { checkSegmentBytes } from './segment-check.ts';

const gzipAsync = promisify(gzip);

/** zlib level 6 (its default): level 9 saves about 1% on cycle events for twice the time. */
const GZIP_OPTIONS = { level: 6, memLevel: 9, strategy: zlibConstants.Z_DEFAULT_STRATEGY };

export function rollupLine(segment: number, rollup: unknown): string {
  return JSON.stringify({ segment, rollup });
}

export function sha256Hex(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export async function compressSegment(bytes: Buffer): Promise<Buffer> {
  return gzipAsync(bytes, GZIP_OPTIONS);
}

/** A sealed segment's stored bytes, decompressed; a truncated or foreign file is an error naming it. */
export function decompressSegment(gz: Buffer, name: string): Buffer {
  try {
    return gunzipSync(gz);
  } catch (error) {
    throw kernelError('RTC_ERR_HISTORY_SEGMENT', `${name}: not a complete gzip segment (${(error as Error).message.split('\n')[0]}); it was truncated or replaced (nothing was changed)`, {
      details: { file: name },
    });
  }
}

/**
 * Checks the open segment's bytes (a problem stops the seal: nothing unsound is sealed),
 * and prepares what sealing it writes.
 */
export async function prepareSeal(input: SealInput): Promise<PreparedSeal> {
  const events: EventEnvelope[] = [];
  const check = checkSegmentBytes(input.bytes, { file: input.file, ...(input.rollup ? { onEvent: (e) => events.push(e) } : {}) });
  const first = check.problems.find((p) => p.severity === 'error');
  if (first) throw kernelError(first.code, `${describeProblem(first)}; the segment was not sealed`, { details: { ...first } });
  if (check.records === 0) throw kernelError('RTC_ERR_HISTORY_SEGMENT', `${input.file}: an empty segment is never sealed`, { internal: true });
  const sealed: SealedSegment = {
    segment: input.segment,
    first_seq: check.first_seq,
    last_seq: check.last_seq,
    records: check.records,
    bytes: input.bytes.length,
    sha256: sha256Hex(input.bytes),
    last_hash: check.last_hash,
  };
  const gz = await compressSegment(input.bytes);
  const entry: SegmentIndexEntry = {
    v: INDEX_FORMAT,
    ...sealed,
    gz_bytes: gz.length,
    gz_sha256: sha256Hex(gz),
    min_at: check.min_at,
    max_at: check.max_at,
    ...(input.attached ? { attached: input.attached } : {}),
  };
  const rolled = input.rollup ? rollupLine(input.segment, input.rollup(events)) : undefined;
  const header: SegmentHeader = { segment: input.segment + 1, sealed, ...(rolled ? { rollup: sha256Hex(rolled) } : {}), ...(input.attached ? { attached: input.attached } : {}) };
  return { gz, sealed, header, entry, ...(rolled ? { rollupLine: rolled } : {}) };
}
