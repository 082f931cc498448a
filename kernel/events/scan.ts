/**
 * Reads an event log line by line and checks each line: JSON, envelope schema, version,
 * seq contiguity, the prev/hash chain. One reader serves opening (refuse at the first
 * problem), verifying (collect every problem) and reading (yield the events). It never
 * writes. The file is read in chunks, so a long log costs no more memory than its longest line.
 *
 * (It formats zod issues itself rather than through manifest/load.ts, which would load the
 * YAML parser into every process that only appends events.)
 */
import { closeSync, readSync } from 'node:fs';
import path from 'node:path';
import { openRegularFile } from '../storage/safe-read.ts';
import { computeEventHash, EVENT_SCHEMA_VERSION, EventEnvelopeSchema, GENESIS_HASH, type EventEnvelope } from './envelope.ts';
import { headerProblem, SEGMENT_EVENT } from './segment-header.ts';

export type EventProblemCode = 'RTC_ERR_EVENTS_CORRUPT' | 'RTC_ERR_EVENTS_CHAIN' | 'RTC_ERR_EVENTS_VERSION';

export interface EventLogProblem {
  file: string;
  /** 1-based line number. */
  line: number;
  /** Byte offset where the line starts. */
  offset: number;
  /** The seq the line carries, when it could be read. */
  seq?: number;
  code: EventProblemCode;
  /** What is wrong, in a few words. */
  what: string;
  /** `warning`: a torn last line, cut off at the next open; anything else is an `error`. */
  severity: 'error' | 'warning';
}

/** The bytes after the last newline: a write cut short by a crash. */
export interface TornTail {
  line: number;
  offset: number;
  bytes: Buffer;
}

export type ScanItem =
  | { kind: 'event'; event: EventEnvelope; line: number; offset: number }
  | { kind: 'problem'; problem: EventLogProblem }
  | { kind: 'torn'; torn: TornTail };

/** One problem as the one-line message a KernelError carries. */
export function describeProblem(problem: EventLogProblem): string {
  const seq = problem.seq === undefined ? '' : ` (seq ${problem.seq})`;
  return `${problem.file}:${problem.line}${seq}: ${problem.what}`;
}

/**
 * For a chain problem: two writers on one log leave repeated seqs and crossed prev links, and
 * `runtimectl events repair` is the way back. '' for other problems.
 */
export function chainRepairHint(problem: Pick<EventLogProblem, 'file' | 'code'>): string {
  if (problem.code !== 'RTC_ERR_EVENTS_CHAIN') return '';
  const persona = path.basename(path.dirname(path.dirname(path.resolve(problem.file))));
  return `; if two kernels wrote it, "runtimectl events repair --persona ${persona}" keeps one chain and the rest aside`;
}

const CHUNK = 1 << 16;
const NEWLINE = 0x0a;

export interface RawLine {
  line: number;
  offset: number;
  bytes: Buffer;
  terminated: boolean;
}

/** The lines of bytes already in memory (a sealed segment, decompressed), as readLines gives a file's. */
export function* bufferLines(data: Buffer): Generator<RawLine> {
  let start = 0;
  let line = 0;
  for (let nl = data.indexOf(NEWLINE, start); nl !== -1; nl = data.indexOf(NEWLINE, start)) {
    line += 1;
    yield { line, offset: start, bytes: data.subarray(start, nl), terminated: true };
    start = nl + 1;
  }
  if (start < data.length) yield { line: line + 1, offset: start, bytes: data.subarray(start), terminated: false };
}

/** Every complete line with its number and offset, then the torn tail if there is one. A missing file yields nothing. */
export function* readLines(file: string): Generator<RawLine> {
  // Non-blocking, regular files only: a FIFO or a device at the log's path is refused, never waited on.
  const fd = openRegularFile(file);
  if (fd === undefined) return;
  try {
    let carry: Buffer = Buffer.alloc(0);
    let carryOffset = 0;
    let line = 0;
    const chunk = Buffer.allocUnsafe(CHUNK);
    for (;;) {
      const read = readSync(fd, chunk, 0, CHUNK, null);
      if (read === 0) break;
      // A fresh buffer per read: the lines yielded are views into it and must stay valid.
      const data = carry.length > 0 ? Buffer.concat([carry, chunk.subarray(0, read)]) : Buffer.from(chunk.subarray(0, read));
      let start = 0;
      for (let nl = data.indexOf(NEWLINE, start); nl !== -1; nl = data.indexOf(NEWLINE, start)) {
        line += 1;
        yield { line, offset: carryOffset + start, bytes: data.subarray(start, nl), terminated: true };
        start = nl + 1;
      }
      carryOffset += start;
      carry = data.subarray(start);
    }
    if (carry.length > 0) yield { line: line + 1, offset: carryOffset, bytes: carry, terminated: false };
  } finally {
    closeSync(fd);
  }
}

/** Where a scan expects the chain to start. */
export interface ScanStart {
  seq: number;
  prev: string;
}

export interface ScanOptions {
  /**
   * The seq and prev the first line must have. Without it: seq 1 after the genesis, or, when
   * the first line is a segment header (`log_segment`), whatever that header chains from: a
   * segment's file cannot know the segments before it, which features/history-segments checks.
   */
  start?: ScanStart;
}

/**
 * Checks every line of a file. After a problem it carries on from what the bad line claims
 * (its seq and hash) when it can, so one edited event is reported once, not as a cascade.
 */
export function* scanEventLog(file: string, options: ScanOptions = {}): Generator<ScanItem> {
  yield* scanEventLines(readLines(file), file, options);
}

/** scanEventLog over lines from anywhere (a file, a decompressed segment); `file` names them in problems. */
export function* scanEventLines(lines: Iterable<RawLine>, file: string, options: ScanOptions = {}): Generator<ScanItem> {
  let expectedSeq = options.start?.seq ?? 1;
  let prevHash = options.start?.prev ?? GENESIS_HASH;
  for (const { line, offset, bytes, terminated } of lines) {
    if (!terminated) {
      yield { kind: 'torn', torn: { line, offset, bytes } };
      return;
    }
    const problem = (code: EventProblemCode, what: string, seq?: number): ScanItem => ({
      kind: 'problem',
      problem: { file, line, offset, code, what, severity: 'error', ...(seq === undefined ? {} : { seq }) },
    });
    if (bytes.length === 0) {
      yield problem('RTC_ERR_EVENTS_CORRUPT', 'empty line (every line must be one event)');
      expectedSeq += 1;
      continue;
    }
    let raw: unknown;
    try {
      raw = JSON.parse(bytes.toString('utf8'));
    } catch (error) {
      yield problem('RTC_ERR_EVENTS_CORRUPT', `not valid JSON (${(error as Error).message.split('\n')[0]})`);
      expectedSeq += 1;
      continue;
    }
    const claimed = raw !== null && typeof raw === 'object' ? (raw as Record<string, unknown>) : {};
    const claimedSeq = Number.isSafeInteger(claimed.seq) ? (claimed.seq as number) : undefined;
    if (typeof claimed.v === 'number' && claimed.v > EVENT_SCHEMA_VERSION) {
      yield problem('RTC_ERR_EVENTS_VERSION', `written with event schema version ${claimed.v}; this kernel reads version ${EVENT_SCHEMA_VERSION} and older`, claimedSeq);
      expectedSeq = (claimedSeq ?? expectedSeq) + 1;
      if (typeof claimed.hash === 'string') prevHash = claimed.hash;
      continue;
    }
    const parsed = EventEnvelopeSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue && issue.path.length > 0 ? issue.path.join('.') : '(root)';
      const reason = issue?.message ?? 'invalid';
      yield problem('RTC_ERR_EVENTS_CORRUPT', `not a valid event: ${field}: ${reason}`, claimedSeq);
      expectedSeq = (claimedSeq ?? expectedSeq) + 1;
      if (typeof claimed.hash === 'string') prevHash = claimed.hash;
      continue;
    }
    // zod copies a record key by key, and a `__proto__` key does not survive that copy; the
    // hash and the caller both get the payload exactly as JSON.parse read it.
    const event: EventEnvelope = { ...parsed.data, payload: claimed.payload as EventEnvelope['payload'] };
    const step = chainStep(event, line === 1, { expectedSeq, prevHash }, options.start !== undefined, 'line');
    for (const message of step.broken) yield problem('RTC_ERR_EVENTS_CHAIN', message, event.seq);
    ({ expectedSeq, prevHash } = step.next);
    if (step.broken.length === 0) yield { kind: 'event', event, line, offset };
  }
}

/** Where a chain stands while its records are read: the seq and prev hash the next one must have. */
export interface ChainPosition {
  expectedSeq: number;
  prevHash: string;
}

/**
 * One event as a link of the chain, the same rule for a file's lines (the scan above) and a
 * table's records (features/persistence/storage/rows.ts): a segment header only first, and
 * then where its segment starts (unless the reader was given a start); the seq and prev
 * links. Returns what is broken and the position after it.
 */
export function chainStep(event: EventEnvelope, first: boolean, at: ChainPosition, startGiven: boolean, unit: 'line' | 'record'): { broken: string[]; next: ChainPosition } {
  const broken: string[] = [];
  let { expectedSeq, prevHash } = at;
  if (event.type === SEGMENT_EVENT) {
    const wrong = !first ? `a segment header in the middle of a segment (a header is only ever the first ${unit})` : headerProblem(event.payload, event.seq, event.prev);
    if (wrong !== undefined) broken.push(wrong);
    else if (!startGiven) {
      // A segment starts where its header says the sealed segment before it ended.
      expectedSeq = event.seq;
      prevHash = event.prev;
    }
  }
  broken.push(...chainLinkProblems(event, expectedSeq, prevHash));
  return { broken, next: { expectedSeq: event.seq + 1, prevHash: event.hash } };
}

/**
 * What is wrong with one link of the chain (any backend's): its seq against the one
 * expected, its `prev` against the previous event's hash, and its own hash against its
 * content. Empty when the link is sound.
 */
function chainLinkProblems(event: EventEnvelope, expectedSeq: number, prevHash: string): string[] {
  const problems: string[] = [];
  if (event.seq !== expectedSeq) {
    const why = event.seq > expectedSeq ? 'an event is missing or out of order' : 'an event is repeated or out of order';
    problems.push(`seq ${event.seq} where seq ${expectedSeq} was expected (${why})`);
  } else if (event.prev !== prevHash) {
    problems.push(`prev ${short(event.prev)} does not match the hash of the event before it (${short(prevHash)})`);
  }
  const actual = computeEventHash(event);
  if (actual !== event.hash) problems.push(`hash ${short(event.hash)} does not match the event's content (${short(actual)}): the event was edited`);
  return problems;
}

function short(hash: string): string {
  return `${hash.slice(0, 12)}…`;
}
