/**
 * Read-only checks of an event log: verifyEventLog reports every problem with file, line,
 * seq and what is wrong; readEvents yields the events of an intact log. Neither writes:
 * a torn tail is reported (as a warning) and left for the next open to repair.
 */
import { statSync } from 'node:fs';
import { kernelError } from '../errors.ts';
import type { EventEnvelope } from './envelope.ts';
import { GENESIS_HASH } from './envelope.ts';
import { chainRepairHint, describeProblem, scanEventLog, type EventLogProblem } from './scan.ts';

export interface EventLogReport {
  file: string;
  /** False when the file does not exist (a persona that never ran). */
  exists: boolean;
  /** Events that passed every check. */
  events: number;
  /** seq and hash of the last line read, 0 and 64 zeros for an empty log. */
  lastSeq: number;
  lastHash: string;
  /** Errors and warnings in file order; `ok` is true when there is no error. */
  problems: EventLogProblem[];
  ok: boolean;
}

export function verifyEventLog(file: string): EventLogReport {
  const report: EventLogReport = { file, exists: false, events: 0, lastSeq: 0, lastHash: GENESIS_HASH, problems: [], ok: true };
  for (const item of scanEventLog(file)) {
    report.exists = true;
    if (item.kind === 'event') {
      report.events += 1;
      report.lastSeq = item.event.seq;
      report.lastHash = item.event.hash;
    } else if (item.kind === 'problem') {
      report.problems.push(item.problem);
      report.ok = false;
    } else {
      report.problems.push({
        file,
        line: item.torn.line,
        offset: item.torn.offset,
        code: 'RTC_ERR_EVENTS_CORRUPT',
        what: `torn last line: ${item.torn.bytes.length} bytes with no trailing newline (a write cut short; the next open saves and cuts it off)`,
        severity: 'warning',
      });
    }
  }
  if (!report.exists) report.exists = fileExists(file);
  return report;
}

/** The events of a log, in order. Throws the log's first problem as a KernelError; a torn tail is skipped. */
export function* readEvents(file: string): Generator<EventEnvelope> {
  for (const item of scanEventLog(file)) {
    if (item.kind === 'event') yield item.event;
    else if (item.kind === 'problem') {
      throw kernelError(item.problem.code, `${describeProblem(item.problem)}${chainRepairHint(item.problem)}`, { details: { ...item.problem } });
    }
  }
}

function fileExists(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}
