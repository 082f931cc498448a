/**
 * The checkpoint's part of verify's events check: the document start-up reads instead of the
 * whole history must be the one the chain vouches for. Start-up refuses a checkpoint that does
 * not match (kept aside, state rebuilt by a full scan), so a bad one is never trusted; verify
 * says so before a start has to: the same rules (kernel/history/checkpoint.ts), read-only.
 *
 *   - with sealed segments, a checkpoint must be there (one is written at every seal): a
 *     missing one is an error (the next start rebuilds it by reading every sealed segment);
 *     with none sealed it is optional (a clean close writes one; the open segment is short);
 *   - it parses, names this persona, and matches the segment it seals (index entry, stored
 *     bytes) and the log's length;
 *   - the record at its seq carries the hash it records (read from the segment that holds it).
 */
import { isKernelError } from '../../kernel/errors.ts';
import { CheckpointMismatch, parseCheckpoint, verifyCheckpointAgainstSegments } from '../../kernel/history/checkpoint.ts';
import { readIndexEntries } from '../../kernel/history/reader.ts';
import type { IsolatedBackend } from '../persistence/isolated-backend.ts';
import type { VerifyFinding } from './cli.ts';

export function checkpointFindings(backend: IsolatedBackend, personaId: string, lastSeq: number): VerifyFinding[] {
  const history = backend.events.history;
  const where = history.documentLabel('checkpoint');
  const problem = (what: string): VerifyFinding[] => [{ severity: 'error', file: where, code: 'RTC_ERR_HISTORY_CHECKPOINT', what }];
  try {
    const entries = readIndexEntries(history);
    const cp = parseCheckpoint(history.readDocument('checkpoint'), where, personaId);
    if (cp === undefined) {
      return entries.length > 0 ? problem(`missing, though ${entries.length} segment(s) are sealed (one is written at every seal): the next start reads every sealed segment to rebuild it`) : [];
    }
    const open = backend.events.openSegment();
    verifyCheckpointAgainstSegments(cp, { storage: history, entries, openIndex: open.index, openFirstSeq: open.firstSeq || lastSeq + 1, lastSeq }, where);
    if (cp.chain.seq > 0) {
      let found: string | undefined;
      for (const event of backend.events.readAfter(cp.chain.seq - 1)) {
        if (event.seq === cp.chain.seq) found = event.hash;
        break;
      }
      if (found === undefined) throw new CheckpointMismatch(`${where}: the record at seq ${cp.chain.seq} is not in the log`);
      if (found !== cp.chain.hash) throw new CheckpointMismatch(`${where}: the record at seq ${cp.chain.seq} does not carry the hash it records`);
    }
    return [];
  } catch (error) {
    if (error instanceof CheckpointMismatch) return problem(`${error.message.replace(`${where}: `, '')}; the next start sets it aside and rebuilds the state by a full scan`);
    // the record it covers through is in an archived segment: nothing here to confirm it against
    if (isKernelError(error) && error.code === 'RTC_ERR_HISTORY_ARCHIVED') return [];
    throw error;
  }
}
