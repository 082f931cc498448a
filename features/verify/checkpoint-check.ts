/**
 * The checkpoint's part of verify's events check: the document start-up reads instead of the
 * whole history must be the one the chain vouches for. Start-up refuses a checkpoint that does
 * not match (kept aside, state rebuilt by a full scan), so a bad one is never trusted; verify
 * says so before a start has to: the same rules (features/history-segments/checkpoint.ts), read-only.
 *
 *   - with sealed segments, a checkpoint must be there (one is written at every seal): a
 *     missing one is an error (the next start rebuilds it by reading every sealed segment);
 *     with none sealed it is optional (a clean close writes one; the open segment is short);
 *   - it parses, names this persona, and matches the segment it seals (index entry, stored
 *     bytes) and the log's length;
 *   - the record at its seq carries the hash it records (read from the segment that holds it).
 */
import { errorLine, isKernelError } from '../../kernel/errors.ts';
import { CheckpointMismatch, confirmCheckpoint } from '../history-segments/checkpoint.ts';
import { IndexLineError, parseIndexLines } from '../history-segments/index-entry.ts';
import type { PersonaBackend } from '../persistence/backend.ts';
import type { VerifyFinding } from './cli.ts';

export function checkpointFindings(backend: PersonaBackend, personaId: string, lastSeq: number): VerifyFinding[] {
  const history = backend.events.history;
  const where = history.documentLabel('checkpoint');
  const problem = (what: string): VerifyFinding[] => [{ severity: 'error', file: where, code: 'RTC_ERR_HISTORY_CHECKPOINT', what }];
  try {
    const text = history.readDocument('checkpoint');
    if (text === undefined) {
      const sealed = parseIndexLines(history.readIndex(), history.indexLabel).length;
      return sealed > 0 ? problem(`missing, though ${sealed} segment(s) are sealed (one is written at every seal): the next start reads every sealed segment to rebuild it`) : [];
    }
    confirmCheckpoint(backend.events, text, personaId, lastSeq);
    return [];
  } catch (error) {
    if (error instanceof CheckpointMismatch) return problem(`${error.message.replace(`${where}: `, '')}; the next start sets it aside and rebuilds the state by a full scan`);
    // an index the events check already named as unreadable; a checkpoint covering an archived segment cannot be confirmed here
    if (error instanceof IndexLineError || (isKernelError(error) && error.code === 'RTC_ERR_HISTORY_ARCHIVED')) return [];
    return problem(errorLine(error));
  }
}
