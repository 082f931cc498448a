/**
 * The review queue over a persistence backend that keeps records as whole lines (sqlite):
 * the proposal log's lines, byte for byte what the file would hold (without the newline), go
 * through the backend's ProposalStore, and long-term.md through its MemoryStore.
 *
 * Every line gets the checks the file's lines get (tail.ts replayLine: JSON, envelope,
 * version, seq, prev, hash, then the queue's own rules). A store commits an append whole, so
 * there is no torn tail to repair. A change re-reads the lines and replays only those after
 * the last one this thread saw, after checking that line is still there unchanged; a store
 * with fewer lines than seen is replayed whole.
 */
import path from 'node:path';
import { kernelError } from '../../kernel/errors.ts';
import { GENESIS_HASH } from '../../kernel/events/envelope.ts';
import type { ReviewPaths } from './paths.ts';
import { emptyQueueState, type QueueState } from './state.ts';
import type { ReviewBackend, ReviewStorage } from './storage.ts';
import { lineDigest, replayLine } from './tail.ts';

/** Where the last change in this thread stopped: lines replayed, the last one's digest, the state. */
export interface LineCursor {
  lines: number;
  lastLineDigest: string;
  state: QueueState;
}

export function backendReviewStorage(paths: ReviewPaths, backend: ReviewBackend): ReviewStorage {
  const { proposals, memory } = backend;
  const location = proposals.location;
  // `<persona>/persistence.db#proposals`: relative to the state directory, never a host path.
  const displayName = path.join(paths.persona, path.relative(paths.personaDir, location));
  const replay = (lines: readonly string[], from: number, state: QueueState) => {
    for (let i = from; i < lines.length; i++) replayLine(state, lines[i]!, { displayName, line: i + 1 });
  };
  const full = (lines: readonly string[]): LineCursor => {
    const state = emptyQueueState(paths.persona, GENESIS_HASH);
    replay(lines, 0, state);
    return { lines: lines.length, lastLineDigest: lines.length === 0 ? '' : lineDigest(lines.at(-1)!), state };
  };
  return {
    kind: 'backend',
    location,
    displayName,
    // The store's own file (`…/persistence.db`), naming the memory entry.
    longTermLocation: `${location.replace(/#[^#/]*$/, '')}#long-term.md`,
    hasRecords: () => !proposals.isEmpty(),
    read: () => full(proposals.lines()).state,
    open(cache) {
      const cached = cache.lineCursor;
      // The cursor's state is about to change: until this change completes, nobody else may use it.
      delete cache.lineCursor;
      const lines = proposals.lines();
      let cursor: LineCursor;
      if (cached !== undefined && lines.length >= cached.lines) {
        if (lineDigest(lines[cached.lines - 1]!) !== cached.lastLineDigest) {
          throw kernelError('RTC_ERR_REVIEW_LOG_CORRUPT', `${displayName}:${cached.lines} (seq ${cached.state.lastSeq}): the record this process read there has changed; the log was rewritten in place`, {
            details: { file: displayName, line: cached.lines, seq: cached.state.lastSeq },
          });
        }
        replay(lines, cached.lines, cached.state);
        cursor = { ...cached, lines: lines.length, lastLineDigest: lineDigest(lines.at(-1)!) };
      } else {
        cursor = full(lines);
      }
      return {
        state: cursor.state,
        cutTorn() {
          throw kernelError('RTC_ERR_REVIEW_LOG_CORRUPT', `${displayName}: a store of whole lines has no torn tail`, { internal: true });
        },
        write(written) {
          if (written.length === 0) return;
          const stored = written.map((line) => (line.endsWith('\n') ? line.slice(0, -1) : line));
          proposals.append(stored);
          cursor.lines += stored.length;
          cursor.lastLineDigest = lineDigest(stored.at(-1)!);
        },
        keep(into) {
          if (cursor.lines > 0) into.lineCursor = cursor;
        },
      };
    },
    readLongTerm: () => Buffer.from(memory.readLongTerm(), 'utf8'),
    appendLongTerm: (bytes) => memory.appendLongTerm(bytes.toString('utf8')),
  };
}
