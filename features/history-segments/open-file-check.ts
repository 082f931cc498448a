/** OpenCheck for an open segment kept as a file (the JSONL event log, the proposal log). */
import { existsSync } from 'node:fs';
import { scanEventLog, type ScanStart } from '../../kernel/events/scan.ts';
import { SEGMENT_EVENT, segmentHeaderSchema } from '../../kernel/events/segment-header.ts';
import type { OpenCheck } from './verify.ts';

export function checkOpenFile(file: string, start: ScanStart | undefined): OpenCheck {
  const check: OpenCheck = { exists: existsSync(file), records: 0, first_seq: 0, last_seq: 0, last_hash: start?.prev ?? '', problems: [] };
  for (const item of scanEventLog(file, start ? { start } : {})) {
    if (item.kind === 'event') {
      const e = item.event;
      if (check.records === 0) {
        check.first_seq = e.seq;
        if (e.type === SEGMENT_EVENT && item.line === 1) check.header = segmentHeaderSchema.parse(e.payload);
      }
      check.records += 1;
      check.last_seq = e.seq;
      check.last_hash = e.hash;
    } else if (item.kind === 'problem') {
      const p = item.problem;
      check.problems.push({ file: p.file, line: p.line, ...(p.seq === undefined ? {} : { seq: p.seq }), code: p.code, what: p.what, severity: p.severity });
    } else {
      check.problems.push({
        file,
        line: item.torn.line,
        code: 'RTC_ERR_EVENTS_CORRUPT',
        what: `torn last line: ${item.torn.bytes.length} bytes with no trailing newline (a write cut short; the next open saves and cuts it off)`,
        severity: 'warning',
      });
    }
  }
  return check;
}
