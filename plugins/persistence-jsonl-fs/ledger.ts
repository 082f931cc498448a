/**
 * The ledger's rows in the jsonl-fs format: an append-only record log at the ledger's path
 * (`orchestra/orchestra.db`): line 1 a header, then one committed change a line, each appended
 * and fsynced under the file's write lock only while the file is still as long as the change's
 * writer last read it (so records never interleave and no change is decided on stale rows).
 * The version is the byte length of the complete lines; the ledger plugin replays the lines.
 */
import { files, type Token } from '../persistence-shared/storage.ts';

/** Longest stretch read in one call (whole lines). */
const RANGE = 8 * 1024 * 1024;

export function ledgerLoad(s: Token, a: { db: string; since: number | null; repair: boolean; init: string }) {
  let stat = files.stat(s, a.db);
  let created = false;
  if (stat.size === 0) {
    if (!a.repair) return { missing: true };
    created = files.appendIfSize(s, a.db, 0, a.init).appended;
    stat = files.stat(s, a.db);
  }
  let start = a.since ?? 0;
  let fromStart = start === 0;
  // Shorter than what was read before: it was replaced; replay it from the start.
  if (start > stat.size) {
    start = 0;
    fromStart = true;
  }
  const lines: string[] = [];
  let version = start;
  while (version < stat.size) {
    const part = files.read(s, a.db, { offset: version, length: RANGE, whole_lines: true });
    if (part.text === null || part.end === version) break;
    const got = part.text.split('\n');
    got.pop();
    lines.push(...got);
    version = part.end;
  }
  const torn = stat.size - version;
  let cut: number | undefined;
  if (a.repair && torn > 0) {
    // Cut only if nobody wrote since this look (the same lock every writer takes); a header
    // torn at creation is written again.
    const header = version === 0 ? a.init : '';
    const done = files.appendIfSize(s, a.db, stat.size, header, version);
    if (done.appended) {
      cut = torn;
      if (header !== '') {
        lines.push(header.replace(/\n$/, ''));
        version = done.size;
      }
    }
  }
  return { log: true, version, from_start: fromStart, lines, torn, created, ...(cut === undefined ? {} : { cut }) };
}

export function ledgerCommit(s: Token, a: { db: string; base: number; seq: number; change: string; ops: unknown[]; note?: string }) {
  const record = { seq: a.seq, change: a.change, ops: a.ops, ...(a.note === undefined ? {} : { note: a.note }) };
  const done = files.appendIfSize(s, a.db, a.base, `${JSON.stringify(record)}\n`);
  return done.appended ? { ok: true, version: done.size } : { ok: false };
}
