/**
 * Where a review queue keeps its records and the long-term memory its promotions grow: the
 * persona's persistence backend (features/persistence), in one of two ways.
 *
 *   file     the jsonl-fs layout, read and appended as files: `review/proposals.jsonl` and
 *            `brain/memory/long-term.md`. A torn last line (a write cut short by a crash)
 *            is saved aside, cut off and recorded; a change replays only the bytes appended
 *            since the last change (tail.ts).
 *   backend  any backend that keeps them elsewhere (sqlite's persistence.db): the same record
 *            lines, byte for byte, through its ProposalStore, and long-term.md through its
 *            MemoryStore (backend-storage.ts).
 *
 * A backend whose ProposalStore is the file `review/proposals.jsonl` (jsonl-fs) gets the file
 * storage: the same file, plus the torn-tail repair and byte-offset tail that a store of
 * whole lines cannot offer. Either way the queue's lock (`review/proposals.lock`, O_EXCL) and
 * its blobs (`review/blobs/<hex>`) stay files in the persona directory: the backend interface
 * has no place for a cross-process lock or for content-addressed files, and both are the
 * queue's own mechanics rather than persona state a backend should hold.
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { kernelError } from '../../kernel/errors.ts';
import { cutTornTail, type Repair } from '../../kernel/events/repair.ts';
import type { TornTail } from '../../kernel/events/scan.ts';
import type { MemoryStore, ProposalStore } from '../../kernel/contracts/persistence.ts';
import { DEFAULT_BACKEND_NAME, PERSISTENCE_CONFIG_FILE } from '../persistence/state/persistence-config-schema.ts';
import { readPersistenceConfig } from '../persistence/state/persistence-config.ts';
import { guardPath } from '../persistence/state/persona-storage.ts';
import { backendReviewStorage, type LineCursor } from './backend-storage.ts';
import { readProposalLog } from './log-file.ts';
import { appendFileDurably } from '../../kernel/storage/durable-files.ts';
import { displayName, PROPOSAL_LOG_RELATIVE, type ReviewPaths } from './paths.ts';
import type { QueueState } from './state.ts';
import { cursorStatus, lineDigest, lineDigestAt, replayTail, type LogCursor } from './tail.ts';
import { READ_CAPS, readFileCapped } from '../../kernel/storage/safe-read.ts';

/** What the queue needs of a persistence backend (a PersistenceBackend has it). */
export interface ReviewBackend {
  readonly name: string;
  readonly proposals: ProposalStore;
  readonly memory: MemoryStore;
}

/** Where the last change in this thread left a log: by byte offset (file) or by line (backend). */
export interface ReplayCache {
  cursor?: LogCursor;
  lineCursor?: LineCursor;
}

/** The log, brought up to date under the queue's lock, ready for one change's appends. */
export interface OpenedLog {
  readonly state: QueueState;
  /** A torn last line (file storage only): never an acknowledged record. */
  readonly torn?: TornTail;
  /** Saves the torn tail aside and cuts it off; the caller records the repair. */
  cutTorn(nextSeq: number): Repair;
  /** Appends complete record lines (each ending in a newline) durably, in one write. */
  write(lines: readonly string[]): void;
  /** The state matches the store exactly: the next change in this thread may start from here. */
  keep(cache: ReplayCache): void;
}

export interface ReviewStorage {
  readonly kind: 'file' | 'backend';
  /** Absolute location of the records (a file, or `<db>#proposals`); the per-thread replay cache's key. */
  readonly location: string;
  /** The records' location relative to the state directory, for messages. */
  readonly displayName: string;
  /** Absolute location of long-term memory, for findings. */
  readonly longTermLocation: string;
  /** False when the queue never stored anything (a persona that never proposed costs one look). */
  hasRecords(): boolean;
  /** The whole log replayed (no lock, nothing written). */
  read(): QueueState;
  /** Under the lock: the log replayed up to now, from the cache when it is still good. */
  open(cache: ReplayCache): OpenedLog;
  /** long-term.md's bytes (empty when there is none). */
  readLongTerm(): Buffer;
  /** Appends to long-term.md durably. */
  appendLongTerm(bytes: Buffer): void;
}

/** The log replayed up to now: from the cache's cursor when it is still good, else whole. */
function catchUp(paths: ReviewPaths, cache: ReplayCache): { cursor: LogCursor; torn?: TornTail } {
  const cached = cache.cursor;
  // The cursor's state is about to change: until this change completes, nobody else may use it.
  delete cache.cursor;
  if (cached) {
    const status = cursorStatus(paths.log, cached);
    if (status === 'valid') return { cursor: cached, ...replayTail(paths.log, cached, displayName(paths)) };
    if (status === 'rewritten') {
      throw kernelError('RTC_ERR_REVIEW_LOG_CORRUPT', `${displayName(paths)}:${cached.lines} (seq ${cached.state.lastSeq}): the record this process read there has changed; the log was rewritten in place`, {
        details: { file: displayName(paths), line: cached.lines, seq: cached.state.lastSeq },
      });
    }
  }
  const read = readProposalLog(paths.log, paths.persona, displayName(paths));
  const lastLineDigest = read.lines === 0 ? '' : lineDigestAt(paths.log, read.lastLineStart, read.end);
  const cursor: LogCursor = { ino: 0, end: read.end, lastLineStart: read.lastLineStart, lines: read.lines, lastLineDigest, state: read.state };
  return { cursor, ...(read.torn ? { torn: read.torn } : {}) };
}

/** The jsonl-fs layout: the proposal log and long-term.md as files in the persona directory. */
export function fileReviewStorage(paths: ReviewPaths): ReviewStorage {
  return {
    kind: 'file',
    location: paths.log,
    displayName: displayName(paths),
    longTermLocation: paths.longTerm,
    hasRecords: () => existsSync(paths.log),
    read: () => readProposalLog(paths.log, paths.persona, displayName(paths)).state,
    open(cache) {
      const { cursor, torn } = catchUp(paths, cache);
      return {
        state: cursor.state,
        ...(torn ? { torn } : {}),
        cutTorn(nextSeq) {
          if (!torn) throw kernelError('RTC_ERR_REVIEW_LOG_CORRUPT', `${displayName(paths)}: no torn last line to cut off`, { internal: true });
          return cutTornTail(paths.log, torn, nextSeq);
        },
        write(lines) {
          if (lines.length === 0) return;
          const bytes = Buffer.from(lines.join(''), 'utf8');
          appendFileDurably(paths.log, bytes);
          cursor.end += bytes.length;
          cursor.lastLineStart = cursor.end - Buffer.byteLength(lines.at(-1)!, 'utf8');
          cursor.lastLineDigest = lineDigest(lines.at(-1)!);
          cursor.lines += lines.length;
        },
        keep(into) {
          if (cursor.lines === 0) return;
          cursor.ino = statSync(paths.log).ino;
          into.cursor = cursor;
        },
      };
    },
    // Capped, non-blocking, regular file only: a FIFO or a runaway file here is one line.
    readLongTerm: () => readFileCapped(paths.longTerm, { maxBytes: READ_CAPS.longTerm, shown: 'brain/memory/long-term.md' }) ?? Buffer.alloc(0),
    appendLongTerm: (bytes) => appendFileDurably(paths.longTerm, bytes),
  };
}

/**
 * The storage for a queue: the backend's, or (with no backend handed over) the files of the
 * jsonl-fs default. A persona whose persistence.yaml names another backend needs that backend
 * opened first (openPersonaReviewQueue does it); without it the queue refuses rather than
 * write files nobody reads.
 */
export function reviewStorage(paths: ReviewPaths, backend?: ReviewBackend): ReviewStorage {
  if (backend !== undefined) return keepsProposalFile(paths, backend) ? fileReviewStorage(paths) : backendReviewStorage(paths, backend);
  const configured = configuredBackend(paths.personaDir);
  if (configured !== DEFAULT_BACKEND_NAME) {
    throw kernelError(
      'RTC_ERR_REVIEW_BACKEND',
      `persona ${paths.persona} keeps its state in the ${configured} persistence backend (${PERSISTENCE_CONFIG_FILE}); open its review queue with openPersonaReviewQueue(), or pass the opened backend`,
      { details: { persona: paths.persona, backend: configured } },
    );
  }
  return fileReviewStorage(paths);
}

/** True when the backend's proposal store is the file review/proposals.jsonl itself (compared as real paths: the backend resolves through symbolic links). */
function keepsProposalFile(paths: ReviewPaths, backend: ReviewBackend): boolean {
  const location = path.resolve(backend.proposals.location);
  if (location === path.resolve(paths.log)) return true;
  try {
    return location === guardPath(paths.personaDir, PROPOSAL_LOG_RELATIVE);
  } catch {
    return false;
  }
}

/** The backend persistence.yaml names; jsonl-fs when there is none (or no persona folder yet). */
export function configuredBackend(personaDir: string): string {
  if (!existsSync(path.join(personaDir, PERSISTENCE_CONFIG_FILE))) return DEFAULT_BACKEND_NAME;
  return readPersistenceConfig(personaDir).backend;
}
