/**
 * `runtimectl archive`, `archive restore` and `archive list`: retention of a persona's sealed
 * history (archive.ts), by its history.yaml policy or by flags.
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { kernelError } from '../../kernel/errors.ts';
import { parseFlags, printJson, type CliIo, type Command } from '../command/command.ts';
import { TraceStore } from '../trace-store/trace-store.ts';
import { readIndexEntries } from '../history-segments/reader.ts';
import { resolveStateDir } from '../persistence/state-dir.ts';
import { parseSince } from './window.ts';
import { openBackend } from '../persistence/open.ts';
import { archiveSegments, restoreSegments } from './archive.ts';
import { readHistoryConfig } from './policy.ts';
import type { ArchiveKind } from './archive-store.ts';
import { PERSONA_ID_PATTERN } from '../../kernel/ids.ts';

const ARCHIVE_USAGE = `Usage: runtimectl archive --persona ID [--older-than AGE | --through-segment N] [--to PATH] [--format folder|tarball]
                          [--state-dir DIR] [--json]
       runtimectl archive restore --persona ID [--from PATH] [--state-dir DIR] [--json]
       runtimectl archive list --persona ID [--state-dir DIR] [--json]

Moves sealed segments of a persona's event log, with the trace segments sealed with them and
the trace blobs they refer to, to an archive (a folder, or one .tar per run in a folder),
checks every member read back against the digests the live history keeps, and only then
swaps each segment for a stub holding its digests and where it went. The chain keeps every
segment's digest and last hash in the header that follows it, so "runtimectl verify" still
proves the history continuous. Trace blobs no live record refers to are collected.

Without --older-than or --through-segment, the persona's history.yaml policy is applied
(retention: {mode: archive, after_days, to, format}). The open segment is never archived: a
selection that reaches it is refused and nothing changes.

Options:
  --persona ID          the persona (required)
  --older-than AGE      sealed segments whose last record is older than AGE (30m, 12h, 90d)
  --through-segment N   sealed segments 1..N
  --to PATH             the archive folder (absolute or relative to the working directory)
  --format F            folder (default) or tarball
  --state-dir DIR       default: $SCIDEX_AGENT_STATE_DIR, else ./state
  --json                print the report as one JSON document
`;

function personaDirOf(stateDir: string, persona: string | undefined, verb: string): { id: string; dir: string } {
  if (persona === undefined) throw kernelError('RTC_ERR_CLI_USAGE', `--persona is required; see "runtimectl ${verb} --help"`);
  if (!PERSONA_ID_PATTERN.test(persona)) throw kernelError('RTC_ERR_CLI_USAGE', `--persona ${persona}: lowercase letters, digits, "-" and "_"`);
  const dir = path.join(stateDir, persona);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw kernelError('RTC_ERR_PERSONA_NOT_FOUND', `persona ${persona} has no folder in state directory ${stateDir}`, { details: { persona } });
  return { id: persona, dir };
}

function parseFormat(value: string | undefined): ArchiveKind | undefined {
  if (value === undefined) return undefined;
  if (value !== 'folder' && value !== 'tarball') throw kernelError('RTC_ERR_CLI_USAGE', `--format ${value}: folder or tarball`);
  return value;
}

async function archive(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseFlags(
    argv,
    { persona: { type: 'string' }, 'older-than': { type: 'string' }, 'through-segment': { type: 'string' }, to: { type: 'string' }, format: { type: 'string' }, 'state-dir': { type: 'string' }, json: { type: 'boolean' } },
    'archive',
    false,
  );
  const stateDir = resolveStateDir(values['state-dir'], io);
  const { id, dir } = personaDirOf(stateDir, values.persona, 'archive');
  if (values['older-than'] !== undefined && values['through-segment'] !== undefined) throw kernelError('RTC_ERR_CLI_USAGE', '--older-than and --through-segment are exclusive');
  if (values['through-segment'] !== undefined && !/^[1-9]\d*$/.test(values['through-segment'])) throw kernelError('RTC_ERR_CLI_USAGE', `--through-segment ${values['through-segment']}: a segment number (1 or more)`);
  const config = readHistoryConfig(dir);
  const byFlags = values['older-than'] !== undefined || values['through-segment'] !== undefined;
  let to = values.to === undefined ? undefined : path.resolve(io.cwd, values.to);
  let format = parseFormat(values.format);
  let select: { olderThanMs?: number; throughSegment?: number };
  if (byFlags) {
    select = values['older-than'] !== undefined ? { olderThanMs: parseSince(values['older-than']) } : { throughSegment: Number(values['through-segment']) };
    if (to === undefined) {
      if (config.retention.mode !== 'archive') throw kernelError('RTC_ERR_CLI_USAGE', '--to PATH is required (history.yaml names no archive)');
      to = config.retention.to;
    }
    format ??= config.retention.mode === 'archive' ? config.retention.format : 'folder';
  } else {
    if (config.retention.mode !== 'archive') {
      throw kernelError('RTC_ERR_HISTORY_RETENTION', `${id}/history.yaml: the retention policy keeps every sealed segment (mode keep); pass --older-than AGE or --through-segment N with --to PATH to archive some (nothing was changed)`);
    }
    select = { olderThanMs: config.retention.after_days * 86_400_000 };
    to ??= config.retention.to;
    format ??= config.retention.format;
  }
  const report = await archiveSegments({ personaDir: dir, personaId: id, to, format, select, nowMs: Date.now() });
  if (values.json) printJson(io, report);
  else if (report.events.length === 0) io.stdout(`${id}: no sealed segment is selected; nothing was archived\n`);
  else {
    io.stdout(
      `${id}: archived event segment(s) ${report.events.join(', ')}${report.trace.length ? ` and trace segment(s) ${report.trace.join(', ')}` : ''} (${report.bytes.toLocaleString('en-US')} bytes, ${report.blobs_archived} blob(s)) to ${report.archive.path}; ${report.blobs_collected} unreferenced blob(s) collected\n`,
    );
  }
  return 0;
}

async function restore(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseFlags(argv, { persona: { type: 'string' }, from: { type: 'string' }, 'state-dir': { type: 'string' }, json: { type: 'boolean' } }, 'archive restore', false);
  const stateDir = resolveStateDir(values['state-dir'], io);
  const { id, dir } = personaDirOf(stateDir, values.persona, 'archive restore');
  const report = await restoreSegments({ personaDir: dir, personaId: id, ...(values.from !== undefined ? { from: path.resolve(io.cwd, values.from) } : {}) });
  if (values.json) printJson(io, report);
  else io.stdout(`${id}: restored event segment(s) ${report.events.join(', ') || 'none'}${report.trace.length ? ` and trace segment(s) ${report.trace.join(', ')}` : ''}, ${report.blobs} blob(s)\n`);
  return 0;
}

async function list(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseFlags(argv, { persona: { type: 'string' }, 'state-dir': { type: 'string' }, json: { type: 'boolean' } }, 'archive list', false);
  const stateDir = resolveStateDir(values['state-dir'], io);
  const { id, dir } = personaDirOf(stateDir, values.persona, 'archive list');
  const backend = await openBackend(dir, undefined, { readonly: true, personaId: id });
  try {
    const trace = new TraceStore(dir, { readonly: true });
    const entries = readIndexEntries(backend.events.history);
    const rows = backend.events.history.list().segments.map((s) => {
      const e = entries[s.index - 1];
      return {
        log: 'events',
        segment: s.index,
        seq: e ? `${e.first_seq}..${e.last_seq}` : null,
        from: e?.min_at ?? null,
        to: e?.max_at ?? null,
        stored_bytes: s.gzBytes,
        status: s.archived ? `archived in ${s.archived.archive.path}` : 'live',
      };
    });
    const traceRows = trace.history.list().segments.map((s) => ({ log: 'trace', segment: s.index, status: s.archived ? `archived in ${s.archived.archive.path}` : 'live', stored_bytes: s.gzBytes }));
    const open = backend.events.openSegment();
    if (values.json) printJson(io, { persona: id, open_segment: { index: open.index, records: open.records, bytes: open.bytes }, segments: [...rows, ...traceRows] });
    else {
      for (const r of rows) io.stdout(`events  ${String(r.segment).padStart(6)}  seq ${r.seq ?? '?'}  ${r.from ?? ''} .. ${r.to ?? ''}  ${r.stored_bytes} bytes  ${r.status}\n`);
      for (const r of traceRows) io.stdout(`trace   ${String(r.segment).padStart(6)}  ${r.stored_bytes} bytes  ${r.status}\n`);
      io.stdout(`open    ${String(open.index).padStart(6)}  ${open.records} record(s), ${open.bytes} bytes\n`);
    }
  } finally {
    await backend.close();
  }
  return 0;
}

export const archiveCommand: Command = { path: ['archive'], summary: "move a persona's old sealed segments to an archive (folder or tarball); the chain keeps their digests", usage: ARCHIVE_USAGE, run: archive, takesFlags: true };
export const archiveRestoreCommand: Command = { path: ['archive', 'restore'], summary: 'put archived segments back into the live history, checked against their digests', usage: ARCHIVE_USAGE, run: restore };
export const archiveListCommand: Command = { path: ['archive', 'list'], summary: "a persona's sealed segments: live or archived, and where", usage: ARCHIVE_USAGE, run: list };
export const HISTORY_CLI_COMMANDS: readonly Command[] = [archiveCommand, archiveRestoreCommand, archiveListCommand];
