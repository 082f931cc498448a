/**
 * The history's checks in `runtimectl verify` (registered in cli.ts):
 *
 *   events  the event log's chain in the persona's configured backend, across its sealed
 *           segments and the open one (kernel/history/verify.ts): incremental by default,
 *           every segment and link with --full, each sealed segment's rollup recomputed
 *   trace   the cycle trace's segments: digests, record hashes, headers, and each one
 *           against what the event log's header recorded when they were sealed together
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { errorLine, isKernelError } from '../../kernel/errors.ts';
import { EVENT_LOG_RELATIVE } from '../../kernel/events/paths.ts';
import { readIndexEntries } from '../../kernel/history/reader.ts';
import { checkSealedParallel, PARALLEL_FROM, workerCount } from '../../kernel/history/parallel-check.ts';
import type { HistoryVerifyReport, VerifiedRecord } from '../../kernel/history/verify.ts';
import { TRACE_DIR, TraceStore } from '../../kernel/replay/trace-store.ts';
import { verifyTrace } from '../../kernel/replay/trace-verify.ts';
import { readPersistenceConfig } from '../../kernel/storage/persistence-config.ts';
import { openBackend } from '../persistence/open.ts';
import { rollupOf } from '../history/rollup.ts';
import type { VerifyCheck, VerifyCheckResult, VerifyFinding, VerifyTarget } from './cli.ts';

function recordOf(value: unknown): VerifiedRecord | undefined {
  const r = value as VerifiedRecord | undefined;
  return r && r.format === 'runtimectl.verified/1' && Array.isArray(r.segments) ? r : undefined;
}

function rate(records: number, seconds: number): string {
  return seconds > 0 ? `${Math.round(records / seconds).toLocaleString('en-US')} records/s` : 'instant';
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
    let backendName: string;
    try {
      backendName = readPersistenceConfig(target.personaDir).backend;
    } catch (error) {
      return { status: 'failed', summary: 'persistence.yaml is unreadable (see the persistence check)', findings: [{ severity: 'error', file: path.join(target.personaDir, 'persistence.yaml'), ...(isKernelError(error) ? { code: error.code } : {}), what: errorLine(error) }] };
    }
    const backend = await openBackend(target.personaDir, backendName, { readonly: true, personaId: target.personaId });
    try {
      if (backend.events.isEmpty() && !existsSync(path.join(target.personaDir, EVENT_LOG_RELATIVE))) return { status: 'absent', summary: 'no event log', findings: [] };
      const since = recordOf(target.since?.events);
      const mode = target.mode ?? 'incremental';
      // A full check of many sealed segments uses every core (kernel/history/parallel-check.ts).
      const started = performance.now();
      const live = backend.events.history.list().segments.filter((s) => !s.archived);
      const precomputed = mode === 'full' && !target.deep && live.length >= PARALLEL_FROM ? await checkSealedParallel(backend.events.history, live.map((s) => ({ index: s.index, name: s.name })), 'links') : undefined;
      const report = backend.events.verify({ mode, ...(since ? { since } : {}), rollup: rollupOf, ...(target.deep ? { deep: true } : {}), ...(precomputed ? { precomputed } : {}) });
      report.seconds = (performance.now() - started) / 1000;
      const findings: VerifyFinding[] = report.problems.map((p) => ({ severity: p.severity, file: p.file, ...(p.line === undefined ? {} : { line: p.line }), ...(p.seq === undefined ? {} : { seq: p.seq }), code: p.code, what: p.what }));
      return {
        status: report.ok ? 'ok' : 'failed',
        summary: eventSummary(report),
        findings,
        ...(report.record ? { keep: report.record } : {}),
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
      await backend.close();
    }
  },
};

export const traceCheck: VerifyCheck = {
  name: 'trace',
  async run(target: VerifyTarget): Promise<VerifyCheckResult> {
    if (!existsSync(path.join(target.personaDir, TRACE_DIR))) return { status: 'absent', summary: 'no trace', findings: [] };
    const store = new TraceStore(target.personaDir, { readonly: true });
    let eventIndex;
    try {
      const backend = await openBackend(target.personaDir, readPersistenceConfig(target.personaDir).backend, { readonly: true, personaId: target.personaId });
      try {
        eventIndex = readIndexEntries(backend.events.history);
      } finally {
        await backend.close();
      }
    } catch {
      // the events check reports an unreadable event history; the trace is still checked on its own
    }
    const since = recordOf(target.since?.trace);
    const report = verifyTrace(store, { mode: target.mode ?? 'incremental', ...(since ? { since } : {}), ...(eventIndex ? { eventIndex } : {}) });
    const findings: VerifyFinding[] = report.problems.map((p) => ({ severity: p.severity, file: p.file, code: p.code, what: p.what }));
    const unchanged = report.unchanged_segments > 0 ? `, ${report.unchanged_segments} unchanged since the last verification` : '';
    return {
      status: report.ok ? 'ok' : 'failed',
      summary: `${report.records} record(s) checked; ${report.sealed} sealed segment(s)${report.archived ? ` (${report.archived} archived)` : ''}, ${report.read_segments} read${unchanged}`,
      findings,
      ...(report.record ? { keep: report.record } : {}),
    };
  },
};
