/**
 * The proposal log's segments (features/history-segments), for the file storage (`review/proposals.jsonl`):
 *
 *   review/proposals.jsonl              the open segment (after the first seal it starts with a
 *                                       `log_segment` record, chained like any other)
 *   review/segments/NNNNNN.jsonl.gz     sealed segments
 *   review/index.jsonl                  one line per sealed segment
 *   review/checkpoint.json              the queue's state as the last seal left it
 *
 * Reading the queue replays the checkpoint's state and the open segment; the checkpoint is
 * used only when it names the last sealed segment as indexed and the open segment's header
 * record carries the seq and hash it records; otherwise every sealed segment is replayed. A
 * seal (sealProposalLog) runs under the queue's lock, so no change interleaves with it.
 */
import { closeSync, existsSync, openSync, readFileSync, readSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { kernelError } from '../../kernel/errors.ts';
import { GENESIS_HASH } from '../../kernel/events/envelope.ts';
import { bufferLines, describeProblem, scanEventLines } from '../../kernel/events/scan.ts';
import { SEGMENT_EVENT, segmentHeaderSchema, type SegmentHeader } from '../../kernel/events/segment-header.ts';
import { CHECKPOINT_FORMAT, CheckpointMismatch, parseCheckpoint, sealedOf, type Checkpoint } from '../history-segments/checkpoint.ts';
import { fileHistoryStorage } from '../history-segments/file-storage.ts';
import { replaceFileDurably } from '../../kernel/storage/durable-files.ts';
import { INDEX_FORMAT, type SegmentIndexEntry } from '../history-segments/index-entry.ts';
import { readIndexEntries } from '../history-segments/reader.ts';
import { decompressSegment, sha256Hex } from '../history-segments/seal.ts';
import { checkSegmentBytes } from '../history-segments/segment-check.ts';
import type { HistoryStorage } from '../../kernel/contracts/history-storage.ts';
import { encodeRecord } from './log-file.ts';
import { emptyQueueState, ImpossibleRecord, reduce, type Proposal, type QueueState } from './state.ts';

export function reviewHistory(logFile: string, persona: string, readonly = false): HistoryStorage {
  return fileHistoryStorage({ dir: path.dirname(logFile), label: `${persona}/review`, readonly });
}

/** The open segment's first line, parsed when it is a segment header. */
export function openHeaderOf(logFile: string): { header: SegmentHeader; seq: number; hash: string } | undefined {
  let fd: number;
  try {
    fd = openSync(logFile, 'r');
  } catch {
    return undefined;
  }
  try {
    const buffer = Buffer.alloc(8192);
    const n = readSync(fd, buffer, 0, buffer.length, 0);
    const nl = buffer.subarray(0, n).indexOf(0x0a);
    if (nl === -1) return undefined;
    const raw = JSON.parse(buffer.subarray(0, nl).toString('utf8')) as { type?: string; seq?: number; hash?: string; payload?: unknown };
    if (raw.type !== SEGMENT_EVENT) return undefined;
    const parsed = segmentHeaderSchema.safeParse(raw.payload);
    return parsed.success ? { header: parsed.data, seq: Number(raw.seq), hash: String(raw.hash) } : undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** A queue state as JSON (its maps as lists), for a checkpoint. */
export function serializeQueueState(state: QueueState): Record<string, unknown> {
  return { ...state, proposals: [...state.proposals.values()], applying: [...state.applying.values()] };
}

export function deserializeQueueState(value: unknown, persona: string): QueueState {
  const v = value as Omit<QueueState, 'proposals' | 'applying'> & { proposals: Proposal[]; applying: (QueueState['applying'] extends Map<string, infer A> ? A : never)[] };
  if (!v || v.persona !== persona || !Array.isArray(v.proposals) || !Array.isArray(v.applying)) throw new CheckpointMismatch('its queue state is not a queue state of this persona');
  return { ...v, proposals: new Map(v.proposals.map((p) => [p.id, p])), applying: new Map(v.applying.map((a) => [a.id, a])) } as QueueState;
}

/**
 * The queue's state before the open segment: the checkpoint's when it matches, else every
 * sealed segment replayed. `displayName` names the log in messages.
 */
export function stateBeforeOpen(logFile: string, persona: string, displayName: string): QueueState {
  const open = openHeaderOf(logFile);
  const empty = emptyQueueState(persona, GENESIS_HASH);
  if (!open) return empty;
  const history = reviewHistory(logFile, persona, true);
  const entries = readIndexEntries(history);
  try {
    const cp = parseCheckpoint(history.readDocument('checkpoint'), history.documentLabel('checkpoint'), persona);
    if (cp && cp.chain.seq === open.seq && cp.chain.hash === open.hash && JSON.stringify(cp.sealed) === JSON.stringify(sealedOf(entries[open.header.sealed.segment - 1]))) {
      const state = deserializeQueueState(cp.state, persona);
      if (state.lastSeq === open.seq - 1 && state.lastHash === open.header.sealed.last_hash) return state;
    }
  } catch (error) {
    if (!(error instanceof CheckpointMismatch)) throw error;
  }
  // Every sealed segment, in order (a segment stored at the open one's index is a seal cut short: the open file is the one read).
  const state = empty;
  const listing = history.list().segments;
  for (let i = 1; i < open.header.segment; i++) {
    if (!listing.some((s) => s.index === i)) {
      throw kernelError('RTC_ERR_HISTORY_SEGMENT', `${history.segmentLabel(i)}: segment ${i} of the proposal log is missing (its open segment ${displayName} is segment ${open.header.segment}); nothing was changed`, { details: { file: history.segmentLabel(i) } });
    }
  }
  for (const segment of listing) {
    if (segment.index >= open.header.segment) break;
    if (segment.archived) {
      throw kernelError('RTC_ERR_HISTORY_ARCHIVED', `${segment.name}: segment ${segment.index} of the proposal log is archived in ${segment.archived.archive.path}; restore it to read the queue's full history`, { details: { file: segment.name } });
    }
    const bytes = decompressSegment(history.readSealed(segment.index), segment.name);
    for (const item of scanEventLines(bufferLines(bytes), segment.name, { start: { seq: state.lastSeq + 1, prev: state.lastHash } })) {
      if (item.kind === 'problem') throw kernelError('RTC_ERR_REVIEW_LOG_CORRUPT', describeProblem(item.problem), { details: { ...item.problem } });
      if (item.kind === 'torn') throw kernelError('RTC_ERR_REVIEW_LOG_CORRUPT', `${segment.name}: truncated`, { details: { file: segment.name } });
      try {
        reduce(state, { seq: item.event.seq, type: item.event.type, hash: item.event.hash, payload: item.event.payload });
      } catch (error) {
        if (!(error instanceof ImpossibleRecord)) throw error;
        throw kernelError('RTC_ERR_REVIEW_LOG_CORRUPT', `${segment.name}:${item.line} (seq ${item.event.seq}): ${error.message}`, { details: { file: segment.name, line: item.line, seq: item.event.seq } });
      }
    }
  }
  if (state.lastSeq !== open.seq - 1 || state.lastHash !== open.header.sealed.last_hash) {
    throw kernelError('RTC_ERR_REVIEW_LOG_CORRUPT', `${displayName}:1 (seq ${open.seq}): the open segment follows seq ${open.header.sealed.last_seq}, but the sealed segments end at seq ${state.lastSeq}: a segment is missing`, { details: { file: displayName } });
  }
  return state;
}

export interface ReviewSealPolicy {
  max_bytes: number;
  rotate: 'daily' | 'size';
}

/**
 * Seals the open proposal log when it holds records after its header and is due (size, or a
 * UTC day over). Call with the queue's lock held and `state` up to date with the file.
 */
export function sealProposalLog(logFile: string, persona: string, state: QueueState, policy: ReviewSealPolicy, now: number): SegmentIndexEntry | undefined {
  if (!existsSync(logFile)) return undefined;
  const bytes = readFileSync(logFile);
  const end = bytes.lastIndexOf(0x0a) + 1;
  if (end !== bytes.length) return undefined; // a torn tail: the next change repairs it first
  const open = openHeaderOf(logFile);
  const index = open?.header.segment ?? 1;
  const check = checkSegmentBytes(bytes, { file: logFile });
  if (check.problems.length > 0) throw kernelError('RTC_ERR_REVIEW_LOG_CORRUPT', `${describeProblem(check.problems[0]!)}; the proposal log was not sealed`);
  if (check.records <= (open ? 1 : 0)) return undefined;
  const due = bytes.length >= policy.max_bytes || (policy.rotate === 'daily' && firstRecordAt(bytes, open ? 1 : 0).slice(0, 10) < new Date(now).toISOString().slice(0, 10));
  if (!due) return undefined;
  if (check.last_seq !== state.lastSeq) throw kernelError('RTC_ERR_REVIEW_LOG_CORRUPT', `${logFile}: ends at seq ${check.last_seq}, not at the ${state.lastSeq} the queue replayed; not sealed`);
  const history = reviewHistory(logFile, persona);
  const sealed = { segment: index, first_seq: check.first_seq, last_seq: check.last_seq, records: check.records, bytes: bytes.length, sha256: sha256Hex(bytes), last_hash: check.last_hash };
  const stored = history.list().segments.find((s) => s.index === index && !s.archived);
  let gz: Buffer;
  if (stored) {
    gz = history.readSealed(index);
    if (!decompressSegment(gz, stored.name).equals(bytes)) throw kernelError('RTC_ERR_HISTORY_SEGMENT', `${stored.name}: is stored as segment ${index} but does not hold the open proposal log's lines; neither was changed`);
  } else {
    gz = gzipSync(bytes);
    history.writeSealed(index, gz);
  }
  const entry: SegmentIndexEntry = { v: INDEX_FORMAT, ...sealed, gz_bytes: gz.length, gz_sha256: sha256Hex(gz), min_at: check.min_at, max_at: check.max_at };
  if (readIndexEntries(history).length < index) history.appendIndex(JSON.stringify(entry));
  // The header record, chained to the state, and the checkpoint of the state it opens on.
  const header: SegmentHeader = { segment: index + 1, sealed };
  const before = serializeQueueState(state);
  const { line, record } = encodeRecord(state, SEGMENT_EVENT, header, now);
  const cp: Checkpoint = { format: CHECKPOINT_FORMAT, kind: 'seal', persona, written_at: new Date(now).toISOString(), chain: { seq: record.seq, hash: record.hash }, sealed: sealedOf(entry), open_segment: index + 1, state: before };
  history.writeDocument('checkpoint', `${JSON.stringify(cp)}\n`);
  replaceFileDurably(logFile, line);
  reduce(state, record);
  return entry;
}

/** `at` of the first record after `skip` lines (the header): when the open segment started to fill. */
function firstRecordAt(bytes: Buffer, skip: number): string {
  for (const { bytes: line, line: n } of bufferLines(bytes)) {
    if (n <= skip) continue;
    const m = /"at":"([^"]+)"\}$/.exec(line.toString('utf8'));
    if (m) return m[1]!;
  }
  return '9999';
}
