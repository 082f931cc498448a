/**
 * A JSONL event log kept as files, read whole: its sealed segments (`<logs>/segments/`) and
 * its open segment (`<logs>/events.jsonl`), in order, each checked. What a tool that is
 * handed only the log file's path (tests, fork repair's evidence) reads instead of the file.
 */
import path from 'node:path';
import type { EventEnvelope } from '../../kernel/events/envelope.ts';
import { readEvents } from '../../kernel/events/verify.ts';
import { fileHistoryStorage } from './file-storage.ts';
import { eventsAfter } from './reader.ts';

export function readLogFiles(file: string, afterSeq = 0): Iterable<EventEnvelope> {
  const dir = path.dirname(file);
  const history = fileHistoryStorage({ dir, label: path.basename(dir), readonly: true });
  return eventsAfter({ history, readOpen: () => readEvents(file) }, afterSeq);
}
