/**
 * Checking a segment's bytes: every line is an event, seqs follow each other, every prev is
 * the hash before it, every hash matches its event, and a header opens the segment when it
 * is not the first. The same rules as kernel/events/scan.ts (which stays the authority), on a
 * fast path for the lines this kernel writes.
 *
 * The writer emits each line as `{"v":1,"seq":N,"type":"T","payload":P,"prev":"…","hash":"…","at":"…"}`
 * with P the payload's canonical JSON, which is exactly the text the hash covers. So a line
 * can be checked without rebuilding it: the envelope by its fixed layout, P by one native
 * JSON.parse (P is canonical when JSON.stringify gives it back and every object's keys are in
 * order), and the hash over P's own text. A line that does not take the fast path (written
 * another way, or damaged) sends the whole segment to the scanner, whose findings are the
 * ones reported, so both paths agree on what is an error.
 */
import { createHash } from 'node:crypto';
import { GENESIS_HASH, sha256, appendHashInput, EVENT_SCHEMA_VERSION, type EventEnvelope } from '../../kernel/events/envelope.ts';
import { bufferLines, scanEventLines, type EventLogProblem, type ScanStart } from '../../kernel/events/scan.ts';
import type { SegmentCheck } from '../../kernel/contracts/history-verify.ts';
import { headerProblem, SEGMENT_EVENT, segmentHeaderSchema, type SegmentHeader } from '../../kernel/events/segment-header.ts';

export type { SegmentCheck };

export interface CheckOptions {
  /** names the segment in problems */
  file: string;
  /** the seq and prev the first record must have (default: seq 1, or what its header chains from) */
  start?: ScanStart;
  /** called with every event, in order, when the segment is sound up to it (needs depth `records`) */
  onEvent?: (event: EventEnvelope) => void;
  /**
   * `records` (the default): every line's envelope, its payload's JSON and canonical form, its
   * hash and its link. `links`: the envelope's layout, every hash over the payload's stored
   * text and every link, without parsing payloads: for a sealed segment whose bytes hash to
   * the digest in the chain, whose every record was checked at `records` depth when it was
   * sealed. (A segment's first line, a header, is always parsed.)
   */
  depth?: 'records' | 'links';
}

const PREFIX = /^\{"v":1,"seq":([1-9][0-9]{0,15}),"type":"([a-z][a-z0-9_.:-]{0,127})","payload":/;
/** `,"prev":"<64>","hash":"<64>","at":"<24>"}`: 9 + 64 + 10 + 64 + 8 + 24 + 2 characters. */
const TAIL_LENGTH = 181;
const TAIL = /^,"prev":"([0-9a-f]{64})","hash":"([0-9a-f]{64})","at":"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)"\}$/;

function keysInOrder(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return true;
  if (Array.isArray(value)) {
    for (const item of value) if (!keysInOrder(item)) return false;
    return true;
  }
  let last: string | undefined;
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (last !== undefined && !(last < key)) return false;
    last = key;
    if (!keysInOrder(record[key])) return false;
  }
  return true;
}

class Slow extends Error {}

/**
 * The `links` fast path, on the bytes themselves: only each line's ASCII prefix and tail are
 * decoded, and each hash is fed the payload's stored bytes between the hash input's fixed
 * parts (the same bytes the writer hashed: its text is that payload, UTF-8). The header line
 * (a segment's first) is parsed and checked as at `records` depth.
 */
function fastLinks(bytes: Buffer, options: CheckOptions): SegmentCheck {
  let expectedSeq = options.start?.seq ?? 1;
  let prev = options.start?.prev ?? GENESIS_HASH;
  const check: SegmentCheck = { records: 0, first_seq: 0, last_seq: 0, first_prev: prev, last_hash: prev, min_at: '', max_at: '', problems: [], torn: false };
  let pos = 0;
  let line = 0;
  while (pos < bytes.length) {
    const nl = bytes.indexOf(0x0a, pos);
    if (nl === -1) throw new Slow();
    line += 1;
    const head = PREFIX.exec(bytes.toString('latin1', pos, Math.min(nl, pos + 200)));
    const tailStart = nl - TAIL_LENGTH;
    if (!head || tailStart < pos + head[0].length + 2) throw new Slow();
    const tail = TAIL.exec(bytes.toString('latin1', tailStart, nl));
    if (!tail) throw new Slow();
    const payloadStart = pos + head[0].length;
    if (bytes[payloadStart] !== 0x7b || bytes[tailStart - 1] !== 0x7d) throw new Slow();
    const seq = Number(head[1]);
    const type = head[2]!;
    const [, recordPrev, hash, at] = tail as unknown as [string, string, string, string];
    if (Number.isNaN(Date.parse(at))) throw new Slow();
    if (type === SEGMENT_EVENT) {
      let payload: unknown;
      try {
        payload = JSON.parse(bytes.toString('utf8', payloadStart, tailStart));
      } catch {
        throw new Slow();
      }
      if (line !== 1 || headerProblem(payload, seq, recordPrev) !== undefined) throw new Slow();
      if (options.start === undefined) {
        expectedSeq = seq;
        prev = recordPrev;
        check.first_prev = prev;
      }
      check.header = segmentHeaderSchema.parse(payload);
    }
    if (seq !== expectedSeq || recordPrev !== prev) throw new Slow();
    const digest = createHash('sha256').update('{"payload":').update(bytes.subarray(payloadStart, tailStart)).update(`,"prev":"${recordPrev}","seq":${seq},"type":"${type}","v":${EVENT_SCHEMA_VERSION}}`).digest('hex');
    if (digest !== hash) throw new Slow();
    if (check.records === 0) check.first_seq = seq;
    check.records += 1;
    check.last_seq = seq;
    check.last_hash = hash;
    if (check.min_at === '' || at < check.min_at) check.min_at = at;
    if (at > check.max_at) check.max_at = at;
    expectedSeq = seq + 1;
    prev = hash;
    pos = nl + 1;
  }
  return check;
}

/** The fast path; throws Slow at the first line it cannot vouch for. */
function fast(text: string, options: CheckOptions): SegmentCheck {
  const links = options.depth === 'links';
  let expectedSeq = options.start?.seq ?? 1;
  let prev = options.start?.prev ?? GENESIS_HASH;
  const check: SegmentCheck = { records: 0, first_seq: 0, last_seq: 0, first_prev: prev, last_hash: prev, min_at: '', max_at: '', problems: [], torn: false };
  let start = 0;
  let line = 0;
  while (start < text.length) {
    const nl = text.indexOf('\n', start);
    if (nl === -1) throw new Slow();
    const row = text.slice(start, nl);
    start = nl + 1;
    line += 1;
    const head = PREFIX.exec(row);
    if (!head || row.length < head[0].length + 2 + TAIL_LENGTH) throw new Slow();
    const tail = TAIL.exec(row.slice(row.length - TAIL_LENGTH));
    if (!tail) throw new Slow();
    const payloadText = row.slice(head[0].length, row.length - TAIL_LENGTH);
    const seq = Number(head[1]);
    const type = head[2]!;
    let payload: unknown;
    if (links && type !== SEGMENT_EVENT) {
      if (payloadText.charCodeAt(0) !== 0x7b || payloadText.charCodeAt(payloadText.length - 1) !== 0x7d) throw new Slow();
    } else {
      try {
        payload = JSON.parse(payloadText);
      } catch {
        throw new Slow();
      }
      if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) throw new Slow();
      if (JSON.stringify(payload) !== payloadText || !keysInOrder(payload)) throw new Slow();
    }
    const [, recordPrev, hash, at] = tail as unknown as [string, string, string, string];
    if (Number.isNaN(Date.parse(at))) throw new Slow();
    if (type === SEGMENT_EVENT) {
      if (line !== 1 || headerProblem(payload, seq, recordPrev) !== undefined) throw new Slow();
      if (options.start === undefined) {
        expectedSeq = seq;
        prev = recordPrev;
        check.first_prev = prev;
      }
      check.header = segmentHeaderSchema.parse(payload);
    }
    if (seq !== expectedSeq || recordPrev !== prev) throw new Slow();
    if (sha256(appendHashInput(seq, type, payloadText, recordPrev)) !== hash) throw new Slow();
    if (check.records === 0) check.first_seq = seq;
    check.records += 1;
    check.last_seq = seq;
    check.last_hash = hash;
    if (check.min_at === '' || at < check.min_at) check.min_at = at;
    if (at > check.max_at) check.max_at = at;
    if (options.onEvent && !links) options.onEvent({ v: EVENT_SCHEMA_VERSION, seq, type, payload: payload as Record<string, unknown>, prev: recordPrev, hash, at });
    expectedSeq = seq + 1;
    prev = hash;
  }
  return check;
}

/** The scanner's verdict on the same bytes: every problem, with file, line and seq. */
function slow(bytes: Buffer, options: CheckOptions): SegmentCheck {
  const check: SegmentCheck = {
    records: 0,
    first_seq: 0,
    last_seq: 0,
    first_prev: options.start?.prev ?? GENESIS_HASH,
    last_hash: options.start?.prev ?? GENESIS_HASH,
    min_at: '',
    max_at: '',
    problems: [],
    torn: false,
  };
  for (const item of scanEventLines(bufferLines(bytes), options.file, options.start ? { start: options.start } : {})) {
    if (item.kind === 'problem') check.problems.push(item.problem);
    else if (item.kind === 'torn') {
      check.torn = true;
      check.problems.push({ file: options.file, line: item.torn.line, offset: item.torn.offset, code: 'RTC_ERR_EVENTS_CORRUPT', what: `truncated: ${item.torn.bytes.length} bytes after the last complete line`, severity: 'error' });
    } else {
      const e = item.event;
      if (check.records === 0) {
        check.first_seq = e.seq;
        check.first_prev = e.prev;
      }
      if (e.type === SEGMENT_EVENT && item.line === 1) check.header = segmentHeaderSchema.parse(e.payload);
      check.records += 1;
      check.last_seq = e.seq;
      check.last_hash = e.hash;
      if (check.min_at === '' || e.at < check.min_at) check.min_at = e.at;
      if (e.at > check.max_at) check.max_at = e.at;
    }
  }
  return check;
}

/** Checks a segment's bytes (decompressed). The problems are empty when it is sound. */
export function checkSegmentBytes(bytes: Buffer, options: CheckOptions): SegmentCheck {
  try {
    return options.depth === 'links' ? fastLinks(bytes, options) : fast(bytes.toString('utf8'), options);
  } catch (error) {
    if (!(error instanceof Slow)) throw error;
  }
  const check = slow(bytes, options);
  // The fast path refused a line the scanner accepts (written by another writer, keys that
  // are integers, ...): the scanner is the authority; replay the events to the caller.
  if (check.problems.length === 0 && options.onEvent) {
    for (const item of scanEventLines(bufferLines(bytes), options.file, options.start ? { start: options.start } : {})) if (item.kind === 'event') options.onEvent(item.event);
  }
  return check;
}
