/**
 * A checkpoint: what start-up needs, written at each seal and at clean shutdown
 * (`<log>/checkpoint.json`, or the sqlite backend's `history_documents`), so start-up reads
 * it and the open segment instead of the whole history.
 *
 * The kernel's part says where in the log the state stands: the record it covers through
 * (`chain`: seq and hash), the last segment sealed when it was written (`sealed`: index,
 * digests, last seq and hash), and the open segment it was written in. What the state holds
 * (counts, usage window, digests of the brain, the ledger, the proposals, the substrate) is
 * the loop's, opaque here (`state`).
 *
 * A checkpoint is never trusted blindly. verifyCheckpoint compares it with the segment it
 * seals (the index entry and the stored bytes' digest) and with the chain (the record at its
 * seq must carry its hash, which the open segment's scan or a sealed segment confirms).
 * A checkpoint that fails is refused: kept aside as evidence, the state rebuilt by a full
 * scan, and the start says so.
 */
import { z } from 'zod';
import { parseIndexLines, type SegmentIndexEntry } from './index-entry.ts';
import { sha256Hex } from './seal.ts';
import type { HistoryStorage, StoredSegment } from '../../kernel/contracts/history-storage.ts';

export const CHECKPOINT_FORMAT = 'runtimectl.checkpoint/1';

const sha256Hex64 = z.string().regex(/^[0-9a-f]{64}$/);

export const checkpointSchema = z.strictObject({
  format: z.literal(CHECKPOINT_FORMAT),
  /** `seal`: written right after a seal; `shutdown`: at a clean close; `rebuilt`: after a full scan replaced a refused one */
  kind: z.enum(['seal', 'shutdown', 'rebuilt']),
  persona: z.string(),
  /** wall-clock time it was written (not covered by any hash) */
  written_at: z.string(),
  /** the last record the state covers */
  chain: z.strictObject({ seq: z.number().int().min(0), hash: z.string() }),
  /** the last sealed segment when it was written */
  sealed: z.strictObject({ segment: z.number().int().min(1), sha256: sha256Hex64, gz_sha256: sha256Hex64, last_seq: z.number().int(), last_hash: sha256Hex64 }).nullable(),
  /** the segment that was open when it was written */
  open_segment: z.number().int().min(1),
  state: z.unknown(),
});
export type Checkpoint = z.infer<typeof checkpointSchema>;

/** Why a checkpoint was refused, in a few words naming what disagrees. */
export class CheckpointMismatch extends Error {}

/** Parses the stored text; undefined when there is none; CheckpointMismatch when it is not a checkpoint. */
export function parseCheckpoint(text: string | undefined, where: string, persona: string): Checkpoint | undefined {
  if (text === undefined) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new CheckpointMismatch(`${where}: not valid JSON`);
  }
  const parsed = checkpointSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new CheckpointMismatch(`${where}: ${issue && issue.path.length > 0 ? issue.path.join('.') : '(root)'}: ${issue?.message ?? 'invalid'}`);
  }
  if (parsed.data.persona !== persona) throw new CheckpointMismatch(`${where}: written for persona ${JSON.stringify(parsed.data.persona)}, not ${persona}`);
  return parsed.data;
}

export function sealedOf(entry: SegmentIndexEntry | undefined): Checkpoint['sealed'] {
  if (!entry) return null;
  return { segment: entry.segment, sha256: entry.sha256, gz_sha256: entry.gz_sha256, last_seq: entry.last_seq, last_hash: entry.last_hash };
}

export interface CheckpointContext {
  storage: HistoryStorage;
  /** the index entries (checked at open) */
  entries: readonly SegmentIndexEntry[];
  /** the open segment's index and first seq, and the log's last seq */
  openIndex: number;
  openFirstSeq: number;
  lastSeq: number;
}

/**
 * The checks that need no record of the open segment: the segment it seals against its index
 * entry and the stored bytes, its position against the log. The record at `chain.seq` is
 * confirmed by the caller as it reads (confirmChain).
 */
export function verifyCheckpointAgainstSegments(cp: Checkpoint, ctx: CheckpointContext, where: string): void {
  if (cp.chain.seq > ctx.lastSeq) throw new CheckpointMismatch(`${where}: covers the log through seq ${cp.chain.seq}, but the log ends at seq ${ctx.lastSeq}`);
  if (cp.open_segment > ctx.openIndex) throw new CheckpointMismatch(`${where}: was written in segment ${cp.open_segment}, but the open segment is ${ctx.openIndex}`);
  if (cp.sealed === null) {
    if (cp.open_segment !== 1) throw new CheckpointMismatch(`${where}: names no sealed segment but was written in segment ${cp.open_segment}`);
    return;
  }
  if (cp.sealed.segment !== cp.open_segment - 1) throw new CheckpointMismatch(`${where}: seals segment ${cp.sealed.segment} but was written in segment ${cp.open_segment}`);
  const entry = ctx.entries[cp.sealed.segment - 1];
  if (!entry) throw new CheckpointMismatch(`${where}: seals segment ${cp.sealed.segment}, which is not sealed`);
  const expected = sealedOf(entry)!;
  if (JSON.stringify(expected) !== JSON.stringify(cp.sealed)) {
    throw new CheckpointMismatch(`${where}: does not match segment ${cp.sealed.segment} as it was sealed (digest, last seq or last hash differ)`);
  }
  const stored: StoredSegment | undefined = ctx.storage.list().segments.find((s) => s.index === cp.sealed!.segment);
  if (stored && !stored.archived && sha256Hex(ctx.storage.readSealed(stored.index)) !== cp.sealed.gz_sha256) {
    throw new CheckpointMismatch(`${where}: segment ${cp.sealed.segment}'s stored bytes (${stored.name}) do not hash to the digest it records`);
  }
  if (cp.chain.seq < entry.last_seq) throw new CheckpointMismatch(`${where}: covers through seq ${cp.chain.seq}, before the end of the segment it seals (seq ${entry.last_seq})`);
}

/** What confirmCheckpoint reads of a store: its history, its open segment and a read from a seq on. */
export interface CheckpointStore {
  readonly history: HistoryStorage;
  openSegment(): { index: number; firstSeq: number };
  readAfter(afterSeq: number): Iterable<{ seq: number; hash: string }>;
}

/**
 * Checks checkpoint text `text` against a store whose chain ends at `lastSeq` (sound: the
 * caller verified it), read-only: it parses and names `persona`, it matches the segment it
 * seals and the log's length, and the record at its seq carries its hash. Throws
 * CheckpointMismatch naming what disagrees (start-up's rules; `runtimectl verify`, and
 * `persistence export` before it copies a checkpoint along).
 */
export function confirmCheckpoint(store: CheckpointStore, text: string, persona: string, lastSeq: number): Checkpoint {
  const where = store.history.documentLabel('checkpoint');
  const cp = parseCheckpoint(text, where, persona)!;
  const entries = parseIndexLines(store.history.readIndex(), store.history.indexLabel);
  const open = store.openSegment();
  verifyCheckpointAgainstSegments(cp, { storage: store.history, entries, openIndex: open.index, openFirstSeq: open.firstSeq || lastSeq + 1, lastSeq }, where);
  if (cp.chain.seq > 0) {
    let found: string | undefined;
    for (const event of store.readAfter(cp.chain.seq - 1)) {
      if (event.seq === cp.chain.seq) found = event.hash;
      break;
    }
    if (found === undefined) throw new CheckpointMismatch(`${where}: the record at seq ${cp.chain.seq} is not in the log`);
    if (found !== cp.chain.hash) throw new CheckpointMismatch(`${where}: the record at seq ${cp.chain.seq} does not carry the hash it records`);
  }
  return cp;
}
