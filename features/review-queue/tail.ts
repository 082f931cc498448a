/**
 * Reading only what was appended since the last change. The loop touches each persona's
 * queue every cycle; replaying a year-long log each time would cost more every cycle, so the
 * process remembers where its last change stopped (a cursor) and the next change checks and
 * replays only the records after it. The full chain is still checked whenever a process
 * first opens the log, and by `runtimectl verify`.
 *
 * A cursor is trusted only if the file is the same file (inode), at least as long, and the
 * line it ended on is still there byte for byte. A new or shorter file is replayed whole; a
 * changed last line is reported. An in-place edit of an earlier line is not seen by a
 * process that already read it; it is caught by every full replay (each `runtimectl
 * proposals` command, each process start) and by `runtimectl verify`.
 * Each new line gets the same checks the event-log scanner makes: JSON, envelope schema,
 * version, seq with no gap, prev matching, hash matching its content.
 */
import { createHash } from 'node:crypto';
import { closeSync, fstatSync, readSync, statSync } from 'node:fs';
import { kernelError } from '../../kernel/errors.ts';
import { computeEventHash, EVENT_SCHEMA_VERSION, EventEnvelopeSchema, type EventEnvelope } from '../../kernel/events/envelope.ts';
import type { TornTail } from '../../kernel/events/scan.ts';
import { ImpossibleRecord, reduce, type QueueState } from './state.ts';
import { openRegularFile } from '../../kernel/storage/safe-read.ts';

export interface LogCursor {
  /** Inode of the file the cursor belongs to. */
  ino: number;
  /** Byte offset just past the last complete line replayed. */
  end: number;
  /** Where that last line starts (to check it is still there). */
  lastLineStart: number;
  /** Complete lines replayed (the next line's number is lines + 1). */
  lines: number;
  /** sha256 of that last line's bytes, newline included: it must still be there, byte for byte. */
  lastLineDigest: string;
  state: QueueState;
}

function readRange(file: string, from: number, to?: number): Buffer {
  const fd = openRegularFile(file);
  if (fd === undefined) return Buffer.alloc(0);
  try {
    const size = to ?? fstatSync(fd).size;
    const out = Buffer.alloc(Math.max(0, size - from));
    let read = 0;
    while (read < out.length) {
      const n = readSync(fd, out, read, out.length - read, from + read);
      if (n === 0) break;
      read += n;
    }
    return out.subarray(0, read);
  } finally {
    closeSync(fd);
  }
}

/**
 * `valid`: the file still holds, where the cursor ended, the record it ended on.
 * `replaced`: another file now (new inode) or a shorter one: replay it whole.
 * `rewritten`: same file, but the record the cursor ended on is not what this process read:
 * something edited the log in place, which a hash chain alone cannot show once the hashes
 * are recomputed; this process saw it, so it says so.
 */
export function cursorStatus(file: string, cursor: LogCursor): 'valid' | 'replaced' | 'rewritten' {
  let stat;
  try {
    stat = statSync(file);
  } catch {
    return 'replaced';
  }
  if (stat.ino !== cursor.ino || stat.size < cursor.end) return 'replaced';
  return lineDigest(readRange(file, cursor.lastLineStart, cursor.end)) === cursor.lastLineDigest ? 'valid' : 'rewritten';
}

export function lineDigest(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The digest of the line in [start, end) of the file, for a cursor made by a full replay. */
export function lineDigestAt(file: string, start: number, end: number): string {
  return lineDigest(readRange(file, start, end));
}

/** Where a record line is, for messages: the log's display name, its 1-based line, and (in a file) its byte offset. */
export interface LinePosition {
  displayName: string;
  line: number;
  offset?: number;
}

/**
 * Checks one record line (without its newline) against the state, as the event-log scanner
 * checks a line: JSON, envelope schema, version, seq with no gap, prev matching, hash
 * matching its content; then applies it (a record the queue's state does not allow is
 * refused). Throws RTC_ERR_REVIEW_LOG_CORRUPT naming the log, line and seq.
 */
export function replayLine(state: QueueState, text: string, where: LinePosition): void {
  const { displayName, line, offset } = where;
  const fail = (what: string, seq?: number): never => {
    const at = `${displayName}:${line}${seq === undefined ? '' : ` (seq ${seq})`}`;
    throw kernelError('RTC_ERR_REVIEW_LOG_CORRUPT', `${at}: ${what}`, {
      details: { file: displayName, line, ...(offset === undefined ? {} : { offset }), ...(seq === undefined ? {} : { seq }), what },
    });
  };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    fail(`not valid JSON (${(error as Error).message.split('\n')[0]})`);
  }
  const claimed = raw !== null && typeof raw === 'object' ? (raw as Record<string, unknown>) : {};
  if (typeof claimed.v === 'number' && claimed.v > EVENT_SCHEMA_VERSION) fail(`written with event schema version ${claimed.v}; this kernel reads version ${EVENT_SCHEMA_VERSION} and older`);
  const parsed = EventEnvelopeSchema.safeParse(raw);
  if (!parsed.success) fail(`not a valid record: ${parsed.error.issues[0]?.path.join('.') || '(root)'}: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  const event: EventEnvelope = { ...parsed.data!, payload: claimed.payload as EventEnvelope['payload'] };
  if (event.seq !== state.lastSeq + 1) fail(`seq ${event.seq} where seq ${state.lastSeq + 1} was expected`, event.seq);
  if (event.prev !== state.lastHash) fail('prev does not match the hash of the record before it', event.seq);
  if (computeEventHash(event) !== event.hash) fail("hash does not match the record's content: the record was edited", event.seq);
  try {
    reduce(state, { seq: event.seq, type: event.type, hash: event.hash, payload: event.payload });
  } catch (error) {
    if (!(error instanceof ImpossibleRecord)) throw error;
    fail(error.message, event.seq);
  }
}

/** Replays the lines after the cursor into its state (mutating both); returns a torn tail if there is one. */
export function replayTail(file: string, cursor: LogCursor, displayName: string): { torn?: TornTail } {
  const bytes = readRange(file, cursor.end);
  let start = 0;
  for (let nl = bytes.indexOf(0x0a); nl !== -1; nl = bytes.indexOf(0x0a, start)) {
    const line = cursor.lines + 1;
    const offset = cursor.end + start;
    replayLine(cursor.state, bytes.subarray(start, nl).toString('utf8'), { displayName, line, offset });
    cursor.lines = line;
    cursor.lastLineStart = offset;
    cursor.lastLineDigest = lineDigest(bytes.subarray(start, nl + 1));
    start = nl + 1;
  }
  cursor.end += start;
  if (start < bytes.length) return { torn: { line: cursor.lines + 1, offset: cursor.end, bytes: Buffer.from(bytes.subarray(start)) } };
  return {};
}
