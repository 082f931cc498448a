/**
 * Verifying a persona's trace segments (trace-segments.ts): every sealed segment's stored
 * bytes against its index entry, its lines (each record's own hash, the header that opens it)
 * and the header of the segment after it; and each segment against what the event log's
 * header recorded when the two were sealed together (`attached.trace` of the event index), so
 * a trace segment swapped for another one is caught even when its own digests were rewritten.
 * `incremental` skips sealed segments whose stored identity is the one the last verification
 * saw, as features/history-segments/verify.ts does for the event log.
 */
import type { StoreProblem } from '../../kernel/contracts/persistence.ts';
import { isKernelError } from '../../kernel/errors.ts';
import { IndexLineError, parseIndexLines, sealedPartOf, type SegmentIndexEntry } from '../history-segments/index-entry.ts';
import { decompressSegment, sha256Hex } from '../history-segments/seal.ts';
import type { VerifiedRecord } from '../history-segments/verify.ts';
import type { TraceStore } from '../trace-store/trace-store.ts';
import { traceHeaderOf } from '../trace-store/trace-segments.ts';

export interface TraceVerifyReport {
  ok: boolean;
  sealed: number;
  archived: number;
  read_segments: number;
  unchanged_segments: number;
  records: number;
  problems: StoreProblem[];
  record?: VerifiedRecord;
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

export interface TraceVerifyOptions {
  mode: 'full' | 'incremental';
  since?: VerifiedRecord;
  eventIndex?: readonly SegmentIndexEntry[];
  now?: () => Date;
  /** filled with every record read (by its hash), so the caller can match the events that name them */
  seen?: Map<string, { cycle: number; persona: string }>;
}

export function verifyTrace(store: TraceStore, options: TraceVerifyOptions): TraceVerifyReport {
  const note = (lines: readonly { record: { hash: string; cycle: number; persona: string } }[]): number => {
    for (const { record } of lines) options.seen?.set(record.hash, { cycle: record.cycle, persona: record.persona });
    return lines.length;
  };
  const history = store.history;
  const report: TraceVerifyReport = { ok: true, sealed: 0, archived: 0, read_segments: 0, unchanged_segments: 0, records: 0, problems: [] };
  const error = (file: string, what: string, code = 'RTC_ERR_HISTORY_SEGMENT') => report.problems.push({ file, code, what, severity: 'error' });
  let entries: SegmentIndexEntry[] = [];
  try {
    entries = parseIndexLines(history.readIndex(), history.indexLabel);
  } catch (e) {
    if (!(e instanceof IndexLineError)) throw e;
    error(history.indexLabel, e.message, 'RTC_ERR_HISTORY_INDEX');
  }
  // What the event log's headers say about each trace segment (the chain's word for it).
  const fromEvents = new Map<number, Record<string, unknown>>();
  for (const e of options.eventIndex ?? []) {
    const trace = (e.attached as { trace?: Record<string, unknown> } | undefined)?.trace;
    if (trace && typeof trace.segment === 'number') fromEvents.set(trace.segment, trace);
  }
  const since = new Map((options.mode === 'incremental' ? (options.since?.segments ?? []) : []).map((s) => [s.segment, s]));
  const recorded: VerifiedRecord['segments'] = [];
  const listing = history.list().segments;
  report.sealed = listing.length;
  let previous: SegmentIndexEntry | undefined;
  let trusting = true;
  for (const [i, segment] of listing.entries()) {
    const entry = entries[i];
    if (segment.index !== i + 1) {
      error(history.segmentLabel(i + 1), `trace segment ${i + 1} is missing`);
      break;
    }
    if (!entry) {
      error(history.indexLabel, `trace segment ${segment.index} has no index entry`, 'RTC_ERR_HISTORY_INDEX');
      continue;
    }
    const chained = fromEvents.get(segment.index);
    if (chained && (chained.sha256 !== entry.sha256 || chained.last_hash !== entry.last_hash || chained.gz_sha256 !== entry.gz_sha256)) {
      error(segment.name, `trace segment ${segment.index} is not the one the event log's header recorded when it was sealed (digest or last hash differ)`);
    }
    if (segment.archived) {
      report.archived += 1;
      if (segment.archived.gz_sha256 !== entry.gz_sha256) error(segment.name, `the archived trace segment's stub does not match its index entry`);
      recorded.push({ segment: segment.index, identity: 'archived', gz_sha256: entry.gz_sha256, last_seq: entry.last_seq, last_hash: entry.last_hash });
      previous = entry;
      continue;
    }
    const seen = since.get(segment.index);
    if (trusting && seen && segment.identity !== '' && seen.identity === segment.identity && seen.gz_sha256 === entry.gz_sha256 && i < listing.length - 1) {
      report.unchanged_segments += 1;
      recorded.push(seen);
      previous = entry;
      continue;
    }
    trusting = false;
    report.read_segments += 1;
    const gz = history.readSealed(segment.index);
    const gzSha = sha256Hex(gz);
    if (gzSha !== entry.gz_sha256 || gz.length !== entry.gz_bytes) error(segment.name, `its bytes do not hash to the digest recorded when trace segment ${segment.index} was sealed: edited, truncated or replaced`);
    let text: string;
    try {
      text = decompressSegment(gz, segment.name).toString('utf8');
    } catch (e) {
      error(segment.name, isKernelError(e) ? e.message : String(e));
      continue;
    }
    if (sha256Hex(text) !== entry.sha256) error(segment.name, `its lines do not hash to the digest of its index entry`);
    try {
      const header = traceHeaderOf(text.slice(0, text.indexOf('\n')), `${segment.name}:1`);
      if (segment.index > 1 && (!header || header.segment !== segment.index || (previous && !same(header.sealed, sealedPartOf(previous))))) {
        error(segment.name, `its header does not describe trace segment ${segment.index - 1} as it is stored`);
      }
      report.records += note(store.checkLines(text, segment.name));
    } catch (e) {
      error(segment.name, isKernelError(e) ? e.message.replace(`${segment.name}:`, 'line ') : String(e), 'RTC_ERR_REPLAY_RECORDING');
    }
    recorded.push({ segment: segment.index, identity: segment.identity, gz_sha256: gzSha, last_seq: entry.last_seq, last_hash: entry.last_hash });
    previous = entry;
  }
  // The open segment: the file, or the rows of a backend that keeps the trace (postgres).
  const open = store.openText();
  if (open !== '') {
    try {
      const header = traceHeaderOf(open.slice(0, open.indexOf('\n')), `${store.file}:1`);
      if (listing.length > 0 && (!header || header.segment !== listing.length + 1 || (previous && !same(header.sealed, sealedPartOf(previous))))) {
        error(store.file, `the open trace segment's header does not describe trace segment ${listing.length} as it is stored`);
      }
      report.records += note(store.checkLines(open, store.file));
    } catch (e) {
      // checkLines names `<file>:<line>`: the problem carries the line, the message the rest
      const line = isKernelError(e) && typeof e.details['line'] === 'number' ? e.details['line'] : undefined;
      const what = isKernelError(e) ? (line === undefined ? e.message : e.message.replace(`${store.file}:${line}: `, '')) : String(e);
      report.problems.push({ file: store.file, ...(line === undefined ? {} : { line }), code: 'RTC_ERR_REPLAY_RECORDING', what, severity: 'error' });
    }
  }
  report.ok = report.problems.length === 0;
  if (report.ok) report.record = { format: 'runtimectl.verified/1', verified_at: (options.now?.() ?? new Date()).toISOString(), mode: options.mode, segments: recorded };
  return report;
}
