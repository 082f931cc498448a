/**
 * The history's checks in `runtimectl verify` (registered in cli.ts):
 *
 *   events  the event log's chain in the persona's configured backend, across its sealed
 *           segments and the open one (features/history-segments/verify.ts): incremental by default,
 *           every segment and link with --full, each sealed segment's rollup recomputed;
 *           then its checkpoint (checkpoint-check.ts)
 *   trace   the cycle trace's segments (files, or the rows of a backend that keeps the trace):
 *           digests, record hashes, headers, and each one against what the event log's header
 *           recorded when they were sealed together; then every cycle event (and out-of-cycle
 *           tool call) read names a trace record that is there and is its own
 *
 * Both read the persona's state through target.backend: one read-only opening of its
 * configured backend, found on verify's plugin search path, with verify's database.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { errorLine, isKernelError } from '../../kernel/errors.ts';
import type { EventEnvelope } from '../../kernel/events/envelope.ts';
import { EVENT_LOG_RELATIVE } from '../../kernel/events/paths.ts';
import { readIndexEntries } from '../history-segments/reader.ts';
import { checkSealedParallel, PARALLEL_FROM, workerCount } from '../history-segments/parallel-check.ts';
import type { HistoryVerifyReport, VerifiedRecord } from '../history-segments/verify.ts';
import { CYCLE_EVENT } from '../../kernel/loop/cycle-event.ts';
import { traceSummarySchema } from '../cycle-recording/trace-record.ts';
import { TOOL_TRACE_FILE, TRACE_DIR, TraceStore } from '../trace-store/trace-store.ts';
import { verifyTrace } from './trace-verify.ts';
import { readPersistenceConfig } from '../persistence/state/persistence-config.ts';
import { openBackend } from '../persistence/open.ts';
import type { PersonaBackend } from '../persistence/backend.ts';
import { rollupOf } from '../history/rollup.ts';
import { checkpointFindings } from './checkpoint-check.ts';
import type { VerifyCheck, VerifyCheckResult, VerifyFinding, VerifyTarget } from './cli.ts';

function recordOf(value: unknown): VerifiedRecord | undefined {
  const r = value as VerifiedRecord | undefined;
  return r && r.format === 'runtimectl.verified/1' && Array.isArray(r.segments) ? r : undefined;
}

function rate(records: number, seconds: number): string {
  return seconds > 0 ? `${Math.round(records / seconds).toLocaleString('en-US')} records/s` : 'instant';
}

/** The persona's backend as the target opened it (shared by every check), or a read-only opening of its own. */
export async function targetBackend(target: VerifyTarget): Promise<{ backend: PersonaBackend; release: () => Promise<void> }> {
  if (target.backend) return { backend: await target.backend(), release: async () => {} };
  const backend = await openBackend(target.personaDir, readPersistenceConfig(target.personaDir).backend, {
    readonly: true,
    personaId: target.personaId,
    ...(target.registry ? { registry: target.registry } : {}),
    ...(target.dsn ? { dsn: target.dsn } : {}),
  });
  return { backend, release: () => backend.close() };
}

function eventSummary(report: HistoryVerifyReport): string {
  const head = `${report.events} event(s), last seq ${report.lastSeq}`;
  const segments = `${report.sealed} sealed segment(s)${report.archived > 0 ? ` (${report.archived} archived)` : ''} + the open one`;
  if (report.mode === 'full') {
    return `${head}; full: ${segments}, every record and link checked (${report.checked_records.toLocaleString('en-US')} records, ${(report.checked_bytes / 1e6).toFixed(1)} MB in ${report.seconds.toFixed(2)} s: ${rate(report.checked_records, report.seconds)})`;
  }
  const from = report.looked_back_to_seq === null ? 'nothing new' : `seq ${report.looked_back_to_seq}..${report.lastSeq}`;
  const read = report.read_segments > 0 ? `the open segment and ${report.read_segments} sealed segment(s)` : 'the open segment';
  const since = report.unchanged_segments > 0 ? `; ${report.unchanged_segments} earlier sealed segment(s) unchanged since the verification of ${report.since_at}` : report.sealed > 0 && report.since_at === null ? '; no earlier verification: everything was read' : '';
  return `${head}; incremental: checked ${from} (${report.checked_records} record(s): ${read})${since}`;
}

export const eventChainCheck: VerifyCheck = {
  name: 'events',
  async run(target: VerifyTarget): Promise<VerifyCheckResult> {
    if (!target.fleet) {
      try {
        readPersistenceConfig(target.personaDir);
      } catch (error) {
        return { status: 'failed', summary: 'persistence.yaml is unreadable (see the persistence check)', findings: [{ severity: 'error', file: path.join(target.personaDir, 'persistence.yaml'), ...(isKernelError(error) ? { code: error.code } : {}), what: errorLine(error) }] };
      }
    }
    const { backend, release } = await targetBackend(target);
    try {
      if (backend.events.isEmpty() && !existsSync(path.join(target.personaDir, EVENT_LOG_RELATIVE))) return { status: 'absent', summary: 'no event log', findings: [] };
      const since = recordOf(target.since?.events);
      const mode = target.mode ?? 'incremental';
      // A full check of many sealed segments uses every core (features/history-segments/parallel-check.ts).
      const started = performance.now();
      const live = backend.events.history.list().segments.filter((s) => !s.archived);
      const precomputed = mode === 'full' && !target.deep && live.length >= PARALLEL_FROM ? await checkSealedParallel(backend.events.history, live.map((s) => ({ index: s.index, name: s.name })), 'links') : undefined;
      const report = backend.events.verify({ mode, ...(since ? { since } : {}), rollup: rollupOf, ...(target.deep ? { deep: true } : {}), ...(precomputed ? { precomputed } : {}) });
      report.seconds = (performance.now() - started) / 1000;
      const findings: VerifyFinding[] = report.problems.map((p) => ({ severity: p.severity, file: p.file, ...(p.line === undefined ? {} : { line: p.line }), ...(p.seq === undefined ? {} : { seq: p.seq }), code: p.code, what: p.what }));
      // The checkpoint start-up trusts is checked against the chain it vouches for (a sound chain only).
      const checkpoint = report.ok ? checkpointFindings(backend, target.personaId, report.lastSeq) : [];
      findings.push(...checkpoint);
      const ok = findings.every((f) => f.severity !== 'error');
      return {
        status: ok ? 'ok' : 'failed',
        summary: eventSummary(report),
        findings,
        ...(ok && report.record ? { keep: report.record } : {}),
        details: {
          backend: backend.name,
          mode: report.mode,
          sealed_segments: report.sealed,
          archived_segments: report.archived,
          read_segments: report.read_segments,
          unchanged_segments: report.unchanged_segments,
          since: report.since_at,
          looked_back_to_seq: report.looked_back_to_seq,
          checked_records: report.checked_records,
          checked_bytes: report.checked_bytes,
          seconds: report.seconds,
          records_per_second: report.seconds > 0 ? Math.round(report.checked_records / report.seconds) : null,
          threads: precomputed ? Math.min(workerCount(), live.length) : 1,
        },
      };
    } finally {
      await release();
    }
  },
};

/**
 * The events whose trace records this verification can hold to account: the open segment's
 * (its trace records are in the open trace segment, or the last sealed one, which is always
 * read); with --full every event after the last archived segment. Undefined when the events
 * cannot be read (the events check reports why).
 */
function eventsToMatch(backend: PersonaBackend, mode: 'full' | 'incremental'): EventEnvelope[] | undefined {
  try {
    if (mode === 'incremental') return [...backend.events.readOpen()];
    const archived = backend.events.history.list().segments.filter((s) => s.archived).map((s) => s.archived!.last_seq);
    return [...backend.events.readAfter(archived.length > 0 ? Math.max(...archived) : 0)];
  } catch {
    return undefined;
  }
}

/** Every event read that names a trace record which is not there (or not its own). */
function missingTraceRecords(events: readonly EventEnvelope[], seen: ReadonlyMap<string, { cycle: number; persona: string }>, tools: ReadonlyMap<string, { cycle: number; persona: string }>, personaId: string, where: string, toolsWhere: string): VerifyFinding[] {
  const findings: VerifyFinding[] = [];
  for (const event of events) {
    if (event.type === CYCLE_EVENT) {
      const summary = traceSummarySchema.safeParse(event.payload.trace);
      // no plugin call: no trace line was written (features/cycle-recording/cycle-recorder.ts)
      if (!summary.success || summary.data.calls === 0) continue;
      const cycle = Number(event.payload.cycle);
      const record = seen.get(summary.data.hash);
      if (record === undefined) {
        findings.push({ severity: 'error', file: where, seq: event.seq, code: 'RTC_ERR_REPLAY_RECORDING', what: `cycle ${cycle}: its trace record ${summary.data.hash.slice(0, 16)}… is not in the trace (removed or replaced); the cycle cannot be replayed` });
      } else if (record.cycle !== cycle || record.persona !== personaId) {
        findings.push({ severity: 'error', file: where, seq: event.seq, code: 'RTC_ERR_REPLAY_RECORDING', what: `cycle ${cycle}: the trace record it names is for ${record.persona} cycle ${record.cycle}` });
      }
    } else if (event.type === 'tool_call') {
      const trace = event.payload.trace as { file?: unknown; hash?: unknown } | undefined;
      if (trace?.file !== TOOL_TRACE_FILE || typeof trace.hash !== 'string') continue;
      if (!tools.has(trace.hash)) findings.push({ severity: 'error', file: toolsWhere, seq: event.seq, code: 'RTC_ERR_REPLAY_RECORDING', what: `tool call: its trace record ${trace.hash.slice(0, 16)}… is not in ${TOOL_TRACE_FILE} (removed or replaced)` });
    }
  }
  return findings;
}

/** At most 20 findings of one kind, then one saying how many more (a trace removed whole would name every cycle). */
function capped(findings: VerifyFinding[]): VerifyFinding[] {
  if (findings.length <= 20) return findings;
  const { seq: _seq, ...next } = findings[20]!;
  return [...findings.slice(0, 20), { ...next, what: `and ${findings.length - 20} more like these` }];
}

export const traceCheck: VerifyCheck = {
  name: 'trace',
  async run(target: VerifyTarget): Promise<VerifyCheckResult> {
    const files = !target.fleet && existsSync(path.join(target.personaDir, TRACE_DIR));
    let opened: Awaited<ReturnType<typeof targetBackend>> | undefined;
    try {
      opened = await targetBackend(target);
    } catch (error) {
      // A backend that cannot be opened is the events check's finding; a trace kept in files is still checked on its own.
      if (!files) throw error;
    }
    const backend = opened?.backend;
    try {
      const storage = backend?.trace;
      const store = new TraceStore(target.personaDir, { readonly: true, ...(storage ? { storage } : {}) });
      const mode = target.mode ?? 'incremental';
      if (!files && (storage === undefined || storage.lines().length === 0)) {
        // No trace at all is fine only when no event names a record in it.
        const events = backend ? eventsToMatch(backend, mode) : undefined;
        const missing = events ? missingTraceRecords(events.filter((e) => e.type === CYCLE_EVENT), new Map(), new Map(), target.personaId, store.file, store.file) : [];
        if (missing.length === 0) return { status: 'absent', summary: 'no trace', findings: [] };
        return { status: 'failed', summary: `the trace is missing: ${missing.length} cycle event(s) name records in it`, findings: capped(missing) };
      }
      let eventIndex;
      try {
        if (backend) eventIndex = readIndexEntries(backend.events.history);
      } catch {
        // the events check reports an unreadable event history; the trace is still checked on its own
      }
      const since = recordOf(target.since?.trace);
      const seen = new Map<string, { cycle: number; persona: string }>();
      const report = verifyTrace(store, { mode, ...(since ? { since } : {}), ...(eventIndex ? { eventIndex } : {}), seen });
      const findings: VerifyFinding[] = report.problems.map((p) => ({ severity: p.severity, file: p.file, ...(p.line === undefined ? {} : { line: p.line }), code: p.code, what: p.what }));
      // The tool calls made outside any cycle: one plain file of records.
      const tools = new Map<string, { cycle: number; persona: string }>();
      const toolStore = new TraceStore(target.personaDir, { readonly: true, file: TOOL_TRACE_FILE });
      if (!target.fleet) {
        try {
          for (const { record } of toolStore.readOpen()) tools.set(record.hash, { cycle: record.cycle, persona: record.persona });
        } catch (error) {
          findings.push({ severity: 'error', file: toolStore.file, ...(isKernelError(error) && typeof error.details['line'] === 'number' ? { line: error.details['line'] } : {}), code: isKernelError(error) ? error.code : 'RTC_ERR_REPLAY_RECORDING', what: errorLine(error) });
        }
      }
      // Every event read names a record that is there: a removed record is caught, not only an edited one.
      const events = backend && report.ok ? eventsToMatch(backend, mode) : undefined;
      // (a persona read from a database alone has no tools.jsonl to match its tool calls with)
      if (events) findings.push(...capped(missingTraceRecords(target.fleet ? events.filter((e) => e.type !== 'tool_call') : events, seen, tools, target.personaId, store.file, toolStore.file)));
      const ok = findings.every((f) => f.severity !== 'error');
      const unchanged = report.unchanged_segments > 0 ? `, ${report.unchanged_segments} unchanged since the last verification` : '';
      const matched = events ? `; ${events.filter((e) => e.type === CYCLE_EVENT).length} cycle event(s) matched to their records` : '';
      return {
        status: ok ? 'ok' : 'failed',
        summary: `${report.records} record(s) checked; ${report.sealed} sealed segment(s)${report.archived ? ` (${report.archived} archived)` : ''}, ${report.read_segments} read${unchanged}${matched}`,
        findings,
        ...(ok && report.record ? { keep: report.record } : {}),
      };
    } finally {
      await opened?.release();
    }
  },
};
