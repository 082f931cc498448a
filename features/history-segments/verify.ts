/**
 * Verifying a segmented log: never writes, reports every problem with where it is.
 *
 * `full`: every sealed segment is read, decompressed and checked line by line (every record,
 * every chain link, across segments), its digest compared with the header that follows it
 * and with its index entry, and its rollup recomputed and compared; archived segments are
 * checked through the digests their stubs and the chain keep. Then the open segment.
 *
 * `incremental`: what changed since the last verification (the record `since`): a sealed
 * segment whose stored identity (inode, size, ctime; what any edit changes) is the one that
 * verification saw is not read again; the first segment that is new or changed and every one
 * after it are checked in full, chained from where the verified ones ended. The last sealed
 * segment's digest and the open segment are always checked. The report says how far back it
 * looked. A store that cannot tell identities (sqlite) checks its recorded digests only.
 */
import { GENESIS_HASH, type EventEnvelope } from '../../kernel/events/envelope.ts';
import type { EventLogProblem, ScanStart } from '../../kernel/events/scan.ts';
import type { SegmentHeader } from '../../kernel/events/segment-header.ts';
import type { StoreProblem } from '../../kernel/contracts/persistence.ts';
import type { HistoryVerifyOptions, HistoryVerifyReport, VerifiedRecord } from '../../kernel/contracts/history-verify.ts';
export type { HistoryVerifyOptions, HistoryVerifyReport, VerifiedRecord };
import { IndexLineError, parseIndexLines, parseRollupLines, sealedPartOf, type SegmentIndexEntry } from './index-entry.ts';
import { decompressSegment, sha256Hex } from './seal.ts';
import { checkSegmentBytes, type SegmentCheck } from './segment-check.ts';
import type { HistoryStorage, StoredSegment } from '../../kernel/contracts/history-storage.ts';

/** What a store reports of its open segment, checked from `start`. */
export interface OpenCheck {
  exists: boolean;
  records: number;
  first_seq: number;
  last_seq: number;
  last_hash: string;
  header?: SegmentHeader;
  problems: StoreProblem[];
}

export interface VerifySource {
  history: HistoryStorage;
  /** where the open segment is, for messages */
  location: string;
  checkOpen(start: ScanStart | undefined): OpenCheck;
}

function problemOf(file: string, p: EventLogProblem | StoreProblem, segment?: number): StoreProblem {
  return { file, ...(p.line === undefined ? {} : { line: p.line }), ...(p.seq === undefined ? {} : { seq: p.seq }), code: p.code, what: segment === undefined ? p.what : p.what, severity: p.severity };
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

export function verifyHistory(source: VerifySource, options: HistoryVerifyOptions = {}): HistoryVerifyReport {
  const started = performance.now();
  const mode = options.mode ?? 'full';
  const storage = source.history;
  const report: HistoryVerifyReport = {
    file: source.location,
    exists: false,
    events: 0,
    lastSeq: 0,
    lastHash: GENESIS_HASH,
    problems: [],
    ok: true,
    mode,
    sealed: 0,
    archived: 0,
    read_segments: 0,
    unchanged_segments: 0,
    since_at: options.since?.verified_at ?? null,
    looked_back_to_seq: null,
    looked_back_to_segment: null,
    checked_records: 0,
    checked_bytes: 0,
    seconds: 0,
  };
  const error = (file: string, code: string, what: string, extra: { line?: number; seq?: number } = {}) => report.problems.push({ file, code, what, severity: 'error', ...extra });
  const listing = storage.list();
  for (const stray of listing.strays) {
    if (!/\.tmp$/.test(stray)) report.problems.push({ file: stray, code: 'RTC_ERR_HISTORY_SEGMENT', what: 'not a segment or an archived stub (left as it is)', severity: 'warning' });
  }
  let entries: SegmentIndexEntry[] = [];
  try {
    entries = parseIndexLines(storage.readIndex(), storage.indexLabel);
  } catch (e) {
    if (!(e instanceof IndexLineError)) throw e;
    error(storage.indexLabel, 'RTC_ERR_HISTORY_INDEX', e.message.replace(`${storage.indexLabel}:`, '').replace(/^\d+: /, ''));
  }
  const deep = options.deep === true && options.rollup !== undefined;
  const depth = options.deep ? 'records' : 'links';
  /** rollup lines by segment, as stored (the chain's headers carry their digests) */
  const rollupLines = new Map<number, string>();
  let rollups: Map<number, unknown> | undefined;
  if (mode === 'full') {
    for (const line of storage.readRollups(1)) {
      const m = /^\{"segment":(\d+)[,}]/.exec(line);
      if (m) rollupLines.set(Number(m[1]), line);
    }
    if (deep) {
      try {
        rollups = new Map(parseRollupLines([...rollupLines.values()], storage.rollupsLabel).map((r) => [r.segment, r.rollup]));
      } catch (e) {
        if (!(e instanceof IndexLineError)) throw e;
        error(storage.rollupsLabel, 'RTC_ERR_HISTORY_INDEX', e.message);
      }
    }
  }
  /** a header's rollup digest against the stored rollup line of the segment it seals */
  const checkRollupDigest = (header: SegmentHeader | undefined, where: string) => {
    if (!header?.rollup || mode !== 'full') return;
    const line = rollupLines.get(header.sealed.segment);
    if (line === undefined) error(storage.rollupsLabel, 'RTC_ERR_HISTORY_INDEX', `segment ${header.sealed.segment} has no rollup, but the header at ${where} records one (the next writable open rebuilds it)`);
    else if (sha256Hex(line) !== header.rollup) error(storage.rollupsLabel, 'RTC_ERR_HISTORY_INDEX', `the rollup of segment ${header.sealed.segment} is not the one its seal recorded (the header at ${where}): status and activity would be wrong; rollups are derived data: set the file aside and the next writable open rebuilds it`);
  };
  const since = new Map((mode === 'incremental' ? (options.since?.segments ?? []) : []).map((s) => [s.segment, s]));
  const recorded: VerifiedRecord['segments'] = [];
  /** where the next segment must start, and what the segment before it was */
  let start: ScanStart | undefined;
  let previousSealed: ReturnType<typeof sealedPartOf> | undefined;
  let trusting = true;
  const segments = listing.segments;
  report.sealed = segments.length;
  report.exists = segments.length > 0;
  for (let i = 0; i < segments.length; i++) {
    const segment: StoredSegment = segments[i]!;
    const expectedIndex = i + 1;
    if (segment.index !== expectedIndex) {
      error(storage.segmentLabel(expectedIndex), 'RTC_ERR_HISTORY_SEGMENT', `sealed segment ${expectedIndex} is missing (segment ${segment.index} follows segment ${expectedIndex - 1})`);
      break;
    }
    const entry = entries[i];
    if (!entry) error(storage.indexLabel, 'RTC_ERR_HISTORY_INDEX', `segment ${segment.index} has no index entry`);
    if (segment.archived) {
      report.archived += 1;
      const stub = segment.archived;
      if (entry && (stub.sha256 !== entry.sha256 || stub.gz_sha256 !== entry.gz_sha256 || stub.last_seq !== entry.last_seq || stub.first_seq !== entry.first_seq)) {
        error(segment.name, 'RTC_ERR_HISTORY_SEGMENT', `the archived segment's stub does not match the index entry of segment ${segment.index}`);
      }
      if (start && stub.first_seq !== start.seq) error(segment.name, 'RTC_ERR_HISTORY_SEGMENT', `archived segment ${segment.index} starts at seq ${stub.first_seq}, not ${start.seq}`);
      const lastHash = entry?.last_hash ?? '';
      previousSealed = entry ? sealedPartOf(entry) : undefined;
      start = { seq: stub.last_seq + 1, prev: lastHash };
      report.events += stub.records;
      report.lastSeq = stub.last_seq;
      report.lastHash = lastHash;
      recorded.push({ segment: segment.index, identity: 'archived', gz_sha256: stub.gz_sha256, last_seq: stub.last_seq, last_hash: lastHash });
      continue;
    }
    if (entry && segment.gzBytes !== entry.gz_bytes) {
      error(segment.name, 'RTC_ERR_HISTORY_SEGMENT', `is ${segment.gzBytes} bytes, but segment ${segment.index} was sealed at ${entry.gz_bytes}: truncated, replaced or reordered`);
    }
    const isLast = i === segments.length - 1;
    const seen = since.get(segment.index);
    // Unchanged since it was verified (same file identity, or, incrementally, a store without
    // identities whose digest still matches): its links were checked then.
    const sameFile = segment.identity !== '' ? seen?.identity === segment.identity : mode === 'incremental';
    if (trusting && seen && entry && sameFile && seen.gz_sha256 === entry.gz_sha256 && !isLast) {
      report.unchanged_segments += 1;
      previousSealed = sealedPartOf(entry);
      start = { seq: entry.last_seq + 1, prev: entry.last_hash };
      report.events += entry.records;
      report.lastSeq = entry.last_seq;
      report.lastHash = entry.last_hash;
      recorded.push(seen);
      continue;
    }
    trusting = false;
    // Checked in a worker (parallel-check.ts) or here; a worker checks without `start`, so the
    // first record's link to the segment before is checked below.
    let gzSha: string;
    let bytesLength: number;
    let bytesSha: string;
    let check: SegmentCheck;
    const events: EventEnvelope[] = [];
    const pre = options.precomputed?.get(segment.index);
    if (pre && !deep) {
      if ('error' in pre) {
        error(segment.name, 'RTC_ERR_HISTORY_SEGMENT', pre.error.replace(`${segment.name}: `, ''));
        break;
      }
      ({ gz_sha256: gzSha, bytes: bytesLength, sha256: bytesSha, check } = pre);
      if (start && check.records > 0 && (check.first_seq !== start.seq || check.first_prev !== start.prev)) {
        error(segment.name, 'RTC_ERR_EVENTS_CHAIN', `its first record (seq ${check.first_seq}) does not follow segment ${segment.index - 1}, which ends before seq ${start.seq}: a segment is missing, edited or out of order`, { line: 1, seq: check.first_seq });
      }
    } else {
      let gz: Buffer;
      try {
        gz = storage.readSealed(segment.index);
      } catch (e) {
        error(segment.name, 'RTC_ERR_HISTORY_SEGMENT', (e as Error).message.replace(`${segment.name}: `, ''));
        break;
      }
      gzSha = sha256Hex(gz);
      let bytes: Buffer;
      try {
        bytes = decompressSegment(gz, segment.name);
      } catch (e) {
        error(segment.name, 'RTC_ERR_HISTORY_SEGMENT', (e as Error).message.replace(`${segment.name}: `, ''));
        break;
      }
      bytesLength = bytes.length;
      bytesSha = sha256Hex(bytes);
      check = checkSegmentBytes(bytes, { file: segment.name, depth, ...(start ? { start } : {}), ...(deep ? { onEvent: (e) => events.push(e) } : {}) });
    }
    if (entry && gzSha !== entry.gz_sha256) error(segment.name, 'RTC_ERR_HISTORY_SEGMENT', `its bytes do not hash to the digest recorded when segment ${segment.index} was sealed: edited or replaced`);
    report.read_segments += 1;
    report.looked_back_to_segment ??= segment.index;
    checkRollupDigest(check.header, segment.name);
    report.looked_back_to_seq ??= check.first_seq || null;
    report.checked_records += check.records;
    report.checked_bytes += bytesLength;
    for (const p of check.problems) report.problems.push(problemOf(segment.name, p));
    if (segment.index > 1 && !check.header) error(segment.name, 'RTC_ERR_HISTORY_SEGMENT', `segment ${segment.index} does not start with a segment header`, { line: 1 });
    if (check.header && check.header.segment !== segment.index) error(segment.name, 'RTC_ERR_HISTORY_SEGMENT', `its header opens segment ${check.header.segment}, but it is stored as segment ${segment.index}: segments were reordered`, { line: 1 });
    if (check.header && previousSealed && !same(check.header.sealed, previousSealed)) {
      error(segment.name, 'RTC_ERR_HISTORY_SEGMENT', `its header does not describe segment ${segment.index - 1} as it is stored (digest, seq range or last hash): segment ${segment.index - 1} was edited, replaced or reordered`, { line: 1 });
    }
    const sealed = { segment: segment.index, first_seq: check.first_seq, last_seq: check.last_seq, records: check.records, bytes: bytesLength, sha256: bytesSha, last_hash: check.last_hash };
    if (entry && !same(sealedPartOf(entry), sealed)) error(storage.indexLabel, 'RTC_ERR_HISTORY_INDEX', `the entry of segment ${segment.index} does not describe the segment as stored`);
    if (deep && rollups && check.problems.length === 0) {
      const stored = rollups.get(segment.index);
      if (stored === undefined) error(storage.rollupsLabel, 'RTC_ERR_HISTORY_INDEX', `segment ${segment.index} has no rollup (the next writable open rebuilds it)`);
      else if (!same(stored, options.rollup!(events))) {
        error(storage.rollupsLabel, 'RTC_ERR_HISTORY_INDEX', `the rollup of segment ${segment.index} does not match its events (status and activity would be wrong); rollups are derived data: set the file aside and the next writable open rebuilds it`);
      }
    }
    previousSealed = sealed;
    start = { seq: check.last_seq + 1, prev: check.last_hash };
    report.events += check.records;
    report.lastSeq = check.last_seq;
    report.lastHash = check.last_hash;
    recorded.push({ segment: segment.index, identity: segment.identity, gz_sha256: gzSha, last_seq: check.last_seq, last_hash: check.last_hash });
  }
  if (entries.length > segments.length) error(storage.indexLabel, 'RTC_ERR_HISTORY_INDEX', `describes ${entries.length} segments, but ${segments.length} are stored`);
  const open = source.checkOpen(start);
  checkRollupDigest(open.header, source.location);
  report.exists ||= open.exists;
  for (const p of open.problems) report.problems.push(p);
  if (open.records > 0) {
    report.looked_back_to_seq ??= open.first_seq;
    report.checked_records += open.records;
    report.events += open.records;
    report.lastSeq = open.last_seq;
    report.lastHash = open.last_hash;
    if (segments.length > 0 && !open.header) error(source.location, 'RTC_ERR_HISTORY_SEGMENT', `the open segment does not start with a segment header, but ${segments.length} segment(s) are sealed`, { line: 1 });
    if (open.header) {
      if (open.header.segment !== segments.length + 1) {
        error(source.location, 'RTC_ERR_HISTORY_SEGMENT', `the open segment's header opens segment ${open.header.segment}, but ${segments.length} segment(s) are sealed: a sealed segment is missing or extra`, { line: 1 });
      } else if (previousSealed && !same(open.header.sealed, previousSealed)) {
        error(source.location, 'RTC_ERR_HISTORY_SEGMENT', `its header does not describe segment ${segments.length} as it is stored: it was edited, replaced or reordered`, { line: 1 });
      }
    }
  }
  report.ok = !report.problems.some((p) => p.severity === 'error');
  report.seconds = (performance.now() - started) / 1000;
  if (report.ok) report.record = { format: 'runtimectl.verified/1', verified_at: (options.now?.() ?? new Date()).toISOString(), mode, segments: recorded };
  return report;
}
