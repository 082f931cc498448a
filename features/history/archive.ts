/**
 * Retention: moving sealed segments out of the live history into an archive, and back.
 *
 * archiveSegments selects sealed event segments (older than a cutoff, or up to a segment)
 * and the trace segments that hold only their cycles; writes them, with the trace blobs they
 * refer to and a manifest, to a folder or a tarball (archive-store.ts); reads every member
 * back and checks it against the digests the live history keeps; and only then swaps each
 * segment for a stub holding its digests and where it went (kernel/contracts/history-storage.ts). The
 * chain keeps each archived segment's digest and last hash in the header that follows it, so
 * `verify` still proves the history continuous. Blobs only archived records refer to, and
 * blobs no record refers to at all (older than a day: a running loop may have just stored one
 * for its next record), are then collected from the live store.
 *
 * The open segment is never archived: a selection that reaches it is refused, naming it.
 * Every refusal is one line and changes nothing.
 *
 * restoreSegments reads each archived segment's member back (all of them first: a missing
 * member refuses the whole restore), checks it against its stub, and puts it back.
 */
import { readdirSync, statSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { kernelError } from '../../kernel/errors.ts';
import type { PersistenceBackend } from '../../kernel/contracts/persistence.ts';
import { readIndexEntries } from '../history-segments/reader.ts';
import { decompressSegment, sha256Hex } from '../history-segments/seal.ts';
import type { ArchivedStub, HistoryStorage, StoredSegment } from '../../kernel/contracts/history-storage.ts';
import type { SegmentIndexEntry } from '../history-segments/index-entry.ts';
import type { TraceRecord, TracedText } from '../cycle-recording/trace-record.ts';
import { TOOL_TRACE_FILE, TraceStore } from '../trace-store/trace-store.ts';
import { syncDirectory } from '../../kernel/storage/durable-files.ts';
import { openBackend } from '../persistence/open.ts';
import { lockPersonaWriter, type WriterLock } from '../persistence/state/writer-lock.ts';
import { blobMember, memberName, readArchiveMembers, readFolderManifest, writeFolderArchive, writeTarball, type ArchiveKind, type ArchiveManifest, type ArchivedMember, type MemberWant } from './archive-store.ts';
import { BLOB_CAP } from '../trace-store/content-store.ts';

const DAY_MS = 86_400_000;
/** An unreferenced blob younger than this is kept: a running loop may have stored it for a record it is about to write. */
export const BLOB_GRACE_MS = DAY_MS;

export interface ArchiveSelection {
  /** sealed segments whose last record is older than nowMs - olderThanMs */
  olderThanMs?: number;
  /** sealed segments up to and including this index */
  throughSegment?: number;
}

export interface ArchiveOptions {
  personaDir: string;
  personaId: string;
  to: string;
  format: ArchiveKind;
  select: ArchiveSelection;
  nowMs: number;
  /** an opened, writable backend (the loop's); opened here otherwise */
  backend?: PersistenceBackend;
  /** the loop's trace store (so the blobs it keeps in this process are never collected) */
  trace?: TraceStore;
}

export interface ArchiveReport {
  persona: string;
  archive: { kind: ArchiveKind; path: string };
  events: number[];
  trace: number[];
  blobs_archived: number;
  blobs_collected: number;
  bytes: number;
}

function refuse(what: string, details: Record<string, unknown> = {}): never {
  throw kernelError('RTC_ERR_HISTORY_RETENTION', `${what} (nothing was changed)`, { details });
}

/** Every blob digest a trace record refers to: its profile, each call's bundle, every text stored by digest. */
export function blobRefs(record: TraceRecord, into: Set<string>): void {
  into.add(record.profile);
  const text = (t: TracedText) => {
    if (typeof t !== 'string') into.add(t.blob);
  };
  for (const call of record.calls) {
    into.add(call.bundle);
    text(call.args);
    text(call.result);
    for (const e of call.effects) {
      text(e.args);
      text(e.answer);
    }
  }
}

function listed(storage: HistoryStorage): StoredSegment[] {
  return storage.list().segments;
}

/** The event segments a selection takes (sealed, live), or a refusal when it reaches the open segment. */
function selectEventSegments(storage: HistoryStorage, entries: SegmentIndexEntry[], select: ArchiveSelection, nowMs: number, openLabel: string): StoredSegment[] {
  const live = listed(storage).filter((s) => !s.archived);
  const openIndex = entries.length + 1;
  if (select.throughSegment !== undefined && select.throughSegment >= openIndex) {
    refuse(`${openLabel}: segment ${select.throughSegment} is ${select.throughSegment === openIndex ? 'the open segment' : 'beyond the open segment'} (${openIndex}) and not sealed; only sealed segments are archived, so this would drop unsealed data`, { segment: select.throughSegment });
  }
  if (select.olderThanMs !== undefined && select.olderThanMs < 0) refuse(`a retention age of ${select.olderThanMs} ms would reach records not yet written`);
  return live.filter((s) => {
    const entry = entries[s.index - 1];
    if (!entry) return false;
    if (select.throughSegment !== undefined && s.index > select.throughSegment) return false;
    if (select.olderThanMs !== undefined && Date.parse(entry.max_at) >= nowMs - select.olderThanMs) return false;
    return true;
  });
}

export async function archiveSegments(options: ArchiveOptions): Promise<ArchiveReport> {
  const owned = options.backend === undefined;
  const backend = options.backend ?? (await openBackend(options.personaDir, undefined, { personaId: options.personaId }));
  // From the CLI, the persona's one writer lock (a running loop applies retention itself, holding it already).
  let lock: WriterLock | undefined;
  try {
    if (owned) lock = await lockPersonaWriter(backend, 'archive');
  } catch (error) {
    await backend.close();
    throw error;
  }
  try {
    const storage = backend.events.history;
    if (!storage.writable) refuse(`${storage.label}: the persistence backend was opened read-only`);
    const entries = readIndexEntries(storage);
    const openLabel = path.relative(path.dirname(options.personaDir), backend.events.location);
    const events = selectEventSegments(storage, entries, options.select, options.nowMs, openLabel);
    const trace = options.trace ?? new TraceStore(options.personaDir);
    const traceEntries = readIndexEntries(trace.history);
    // The trace segments sealed with the archived event segments (their headers name them).
    const traceNamed = new Set<number>();
    for (const s of events) {
      const t = (entries[s.index - 1]!.attached as { trace?: { segment?: number } } | undefined)?.trace;
      if (t?.segment) traceNamed.add(t.segment);
    }
    const traceSegments = listed(trace.history).filter((s) => !s.archived && traceNamed.has(s.index));
    if (events.length === 0) {
      return { persona: options.personaId, archive: { kind: options.format, path: options.to }, events: [], trace: [], blobs_archived: 0, blobs_collected: 0, bytes: 0 };
    }
    // Members, checked against the digests the live history keeps before anything is written.
    const members = new Map<string, Buffer>();
    const manifest: ArchiveManifest = options.format === 'folder' ? readFolderManifest(options.to, options.personaId) : { format: 'runtimectl.archive/1', persona: options.personaId, segments: [], blobs: [] };
    const added: ArchivedMember[] = [];
    let bytes = 0;
    for (const s of events) {
      const entry = entries[s.index - 1]!;
      const gz = storage.readSealed(s.index);
      if (sha256Hex(gz) !== entry.gz_sha256) refuse(`${s.name}: does not hash to the digest recorded when segment ${s.index} was sealed; it is not archived`, { file: s.name });
      const member = memberName(options.personaId, 'events', s.index);
      members.set(member, gz);
      added.push({ log: 'events', segment: s.index, first_seq: entry.first_seq, last_seq: entry.last_seq, records: entry.records, bytes: entry.bytes, sha256: entry.sha256, gz_sha256: entry.gz_sha256, member });
      bytes += gz.length;
    }
    const archivedRefs = new Set<string>();
    for (const s of traceSegments) {
      const entry = traceEntries[s.index - 1];
      if (!entry) continue;
      const gz = trace.history.readSealed(s.index);
      if (sha256Hex(gz) !== entry.gz_sha256) refuse(`${s.name}: does not hash to the digest recorded when trace segment ${s.index} was sealed; it is not archived`, { file: s.name });
      for (const { record } of trace.checkLines(decompressSegment(gz, s.name).toString('utf8'), s.name)) blobRefs(record, archivedRefs);
      const member = memberName(options.personaId, 'trace', s.index);
      members.set(member, gz);
      added.push({ log: 'trace', segment: s.index, first_seq: entry.first_seq, last_seq: entry.last_seq, records: entry.records, bytes: entry.bytes, sha256: entry.sha256, gz_sha256: entry.gz_sha256, member });
      bytes += gz.length;
    }
    // The blobs the archived trace refers to go with it (each checked by its digest as it is read).
    const blobs: { digest: string; member: string }[] = [];
    for (const digest of archivedRefs) {
      if (!trace.blobs.has(digest)) continue;
      const member = blobMember(options.personaId, digest);
      members.set(member, trace.blobs.get(digest));
      blobs.push({ digest, member });
    }
    manifest.segments = [...manifest.segments.filter((m) => !added.some((a) => a.log === m.log && a.segment === m.segment)), ...added];
    manifest.blobs = [...manifest.blobs.filter((b) => !blobs.some((x) => x.digest === b.digest)), ...blobs];
    members.set(`${options.personaId}/manifest.json`, Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`));
    const first = events[0]!.index;
    const last = events.at(-1)!.index;
    const location = options.format === 'folder' ? options.to : path.join(options.to, `${options.personaId}-segments-${String(first).padStart(6, '0')}-${String(last).padStart(6, '0')}.tar`);
    if (options.format === 'folder') writeFolderArchive(options.to, members);
    else await writeTarball(location, members);
    // Read back and check every member before the live history lets go of anything.
    const back = await readArchiveMembers(options.format, location, [...members].map(([name, bytes]) => ({ name, maxBytes: bytes.length, exactBytes: bytes.length })));
    for (const [name, expected] of members) {
      if (!back.get(name)!.equals(expected)) refuse(`${location}: member ${name} does not read back as it was written; the segments stay live`, { file: location, member: name });
    }
    const at = new Date(options.nowMs).toISOString();
    for (const m of added) {
      const stub: ArchivedStub = {
        format: 'runtimectl.archived-segment/1',
        segment: m.segment,
        first_seq: m.first_seq,
        last_seq: m.last_seq,
        records: m.records,
        bytes: m.bytes,
        sha256: m.sha256,
        gz_bytes: members.get(m.member)!.length,
        gz_sha256: m.gz_sha256,
        archive: { kind: options.format, path: location, member: m.member },
        archived_at: at,
      };
      (m.log === 'events' ? storage : trace.history).archive(m.segment, stub);
    }
    const collected = collectBlobs(trace, options.nowMs, archivedRefs);
    return {
      persona: options.personaId,
      archive: { kind: options.format, path: location },
      events: added.filter((m) => m.log === 'events').map((m) => m.segment),
      trace: added.filter((m) => m.log === 'trace').map((m) => m.segment),
      blobs_archived: blobs.length,
      blobs_collected: collected.length,
      bytes,
    };
  } finally {
    try {
      if (owned) await backend.close();
    } finally {
      lock?.release();
    }
  }
}

/**
 * Removes from the live trace store the blobs no live record refers to: those only archived
 * records refer to (`archivedRefs`, copied to the archive first), and unreferenced ones older
 * than BLOB_GRACE_MS. Blobs this process's trace store keeps for its next records stay.
 */
export function collectBlobs(trace: TraceStore, nowMs: number, archivedRefs: ReadonlySet<string> = new Set()): string[] {
  const live = new Set<string>();
  for (const s of trace.history.list().segments) {
    if (s.archived) continue;
    for (const { record } of trace.checkLines(decompressSegment(trace.history.readSealed(s.index), s.name).toString('utf8'), s.name)) blobRefs(record, live);
  }
  for (const { record } of trace.readOpen()) blobRefs(record, live);
  // tool calls outside cycles (mcp serve, tools call) are never archived: their blobs stay live
  for (const { record } of new TraceStore(trace.personaDir, { readonly: true, file: TOOL_TRACE_FILE }).readOpen()) blobRefs(record, live);
  for (const digest of trace.keptDigests()) live.add(digest);
  let names: string[];
  try {
    names = readdirSync(trace.blobs.dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    if (!/^[0-9a-f]{64}$/.test(name)) continue;
    const digest = `sha256:${name}`;
    if (live.has(digest)) continue;
    const file = path.join(trace.blobs.dir, name);
    const young = nowMs - statSync(file).mtimeMs < BLOB_GRACE_MS;
    if (!archivedRefs.has(digest) && young) continue;
    unlinkSync(file);
    removed.push(digest);
  }
  if (removed.length > 0) syncDirectory(trace.blobs.dir);
  return removed;
}

/** A trace segment's JSONL bytes, refused when it would inflate past the size its stub records (a gzip bomb). */
function gunzipBounded(gz: Buffer, bytes: number, shown: string): Buffer {
  try {
    return gunzipSync(gz, { maxOutputLength: Math.max(1, bytes) });
  } catch (error) {
    throw kernelError('RTC_ERR_HISTORY_ARCHIVE', `${shown}: does not inflate to the ${bytes} bytes its stub records (${(error as Error).message.split('\n')[0]}); nothing was restored`, { details: { member: shown } });
  }
}

export interface RestoreOptions {
  personaDir: string;
  personaId: string;
  /** restore only the stubs that point into this archive (a folder or a .tar); default: every stub */
  from?: string;
}

export interface RestoreReport {
  persona: string;
  events: number[];
  trace: number[];
  blobs: number;
}

export async function restoreSegments(options: RestoreOptions): Promise<RestoreReport> {
  const backend = await openBackend(options.personaDir, undefined, { personaId: options.personaId });
  let lock: WriterLock;
  try {
    lock = await lockPersonaWriter(backend, 'archive restore');
  } catch (error) {
    await backend.close();
    throw error;
  }
  try {
    const trace = new TraceStore(options.personaDir);
    const wanted = (s: StoredSegment) => s.archived && (options.from === undefined || path.resolve(s.archived.archive.path) === path.resolve(options.from));
    const plan = [
      ...listed(backend.events.history).filter(wanted).map((s) => ({ log: 'events' as const, storage: backend.events.history, s })),
      ...listed(trace.history).filter(wanted).map((s) => ({ log: 'trace' as const, storage: trace.history, s })),
    ];
    if (plan.length === 0) refuse(`${options.personaId}: no archived segment${options.from ? ` points into ${options.from}` : ''}`);
    // Every member is read and checked first: a missing, oversized or altered one refuses the
    // whole restore. Only the members the live history names are read (each segment's stub
    // names its member and its exact size), never what the archive's own manifest says.
    const byArchive = new Map<string, { kind: ArchiveKind; wants: MemberWant[] }>();
    for (const { s } of plan) {
      const a = s.archived!.archive;
      const group = byArchive.get(a.path) ?? { kind: a.kind, wants: [] };
      group.wants.push({ name: a.member, maxBytes: s.archived!.gz_bytes, exactBytes: s.archived!.gz_bytes });
      byArchive.set(a.path, group);
    }
    const read = new Map<string, Map<string, Buffer>>();
    for (const [location, group] of byArchive) read.set(location, await readArchiveMembers(group.kind, location, group.wants));
    for (const { s } of plan) {
      const a = s.archived!.archive;
      const gz = read.get(a.path)!.get(a.member)!;
      if (sha256Hex(gz) !== s.archived!.gz_sha256) {
        throw kernelError('RTC_ERR_HISTORY_ARCHIVE', `${a.path}: member ${a.member} does not hash to the digest the live history keeps for segment ${s.index}; nothing was restored`, { details: { file: a.path, member: a.member } });
      }
    }
    // The blobs the restored trace records refer to and the live store lacks, from the archive
    // each trace segment came from: named by the (checked) records, checked by their digest.
    const blobs = new Map<string, Buffer>();
    for (const { log, s } of plan) {
      if (log !== 'trace') continue;
      const a = s.archived!.archive;
      const text = gunzipBounded(read.get(a.path)!.get(a.member)!, s.archived!.bytes, `${a.path}: member ${a.member}`);
      const refs = new Set<string>();
      for (const { record } of trace.checkLines(text.toString('utf8'), `${a.path}#${a.member}`)) blobRefs(record, refs);
      const wanted = [...refs].filter((d) => /^sha256:[0-9a-f]{64}$/.test(d) && !blobs.has(d) && !trace.blobs.has(d));
      const got = await readArchiveMembers(a.kind, a.path, wanted.map((d) => ({ name: blobMember(options.personaId, d), maxBytes: BLOB_CAP, optional: true })));
      for (const digest of wanted) {
        const member = blobMember(options.personaId, digest);
        const bytes = got.get(member);
        if (bytes === undefined) continue; // never archived (it was already gone from the live store)
        if (`sha256:${sha256Hex(bytes)}` !== digest) throw kernelError('RTC_ERR_HISTORY_ARCHIVE', `${a.path}: member ${member} does not hash to its digest; nothing was restored`, { details: { file: a.path, member } });
        blobs.set(digest, bytes);
      }
    }
    for (const [, bytes] of blobs) trace.blobs.put(bytes);
    for (const { storage, s } of plan) {
      const a = s.archived!.archive;
      storage.restore(s.index, read.get(a.path)!.get(a.member)!);
    }
    return { persona: options.personaId, events: plan.filter((p) => p.log === 'events').map((p) => p.s.index), trace: plan.filter((p) => p.log === 'trace').map((p) => p.s.index), blobs: blobs.size };
  } finally {
    try {
      await backend.close();
    } finally {
      lock.release();
    }
  }
}
