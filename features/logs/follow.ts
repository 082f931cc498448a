/**
 * Following a persona's events as they are appended, through the history's read path
 * (features/history/read-path.ts `eventsAfter`): what `runtimectl logs --follow` and the
 * console's live stream both use. A poll first compares the stored files' identities (inode,
 * size, mtime of the open segment, the segment index and a sqlite database); only when one
 * changed does it open the persona's history read-only and read the events after the last
 * one it gave. A seal (the open segment renamed away, a header opening the next) and a
 * rotation are therefore followed like any append: the events after seq N are wherever the
 * index says they are.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import type { EventEnvelope } from '../../kernel/events/envelope.ts';
import { EVENT_LOG_RELATIVE } from '../../kernel/events/paths.ts';
import { openHistoryReader } from '../history/read-path.ts';

/** The files whose change means there may be new events (jsonl-fs and sqlite layouts). */
const WATCHED = [EVENT_LOG_RELATIVE, path.join('logs', 'index.jsonl'), path.join('logs', 'events.db'), path.join('logs', 'events.db-wal'), 'persistence.db', 'persistence.db-wal', 'persistence.yaml'];

/** The identities of a persona's history files: a change means there may be new events. */
export function historySignature(personaDir: string): string {
  return WATCHED.map((rel) => {
    try {
      const s = statSync(path.join(personaDir, rel));
      return `${s.ino}:${s.size}:${s.mtimeMs}`;
    } catch {
      return '-';
    }
  }).join('|');
}

export class PersonaFollower {
  readonly persona: string;
  readonly #stateDir: string;
  #afterSeq: number;
  #seen = '';

  /** Follows from the event after `afterSeq` (0: from the first event). */
  constructor(stateDir: string, persona: string, afterSeq: number) {
    this.#stateDir = stateDir;
    this.persona = persona;
    this.#afterSeq = afterSeq;
  }

  get afterSeq(): number {
    return this.#afterSeq;
  }

  /** The events appended since the last poll (at most `limit`); [] when nothing changed. Throws when the history cannot be read. */
  async poll(limit = 10_000): Promise<EventEnvelope[]> {
    const now = historySignature(path.join(this.#stateDir, this.persona));
    if (now === this.#seen) return [];
    const reader = await openHistoryReader(this.#stateDir, this.persona);
    try {
      const events = reader.eventsAfter(this.#afterSeq, limit);
      // Only once everything up to the file's end was read is the signature taken as seen.
      if (events.length < limit) this.#seen = now;
      const last = events.at(-1);
      if (last) this.#afterSeq = last.seq;
      return events;
    } catch (error) {
      // A damaged history is reported at every change, not once and then forgotten.
      this.#seen = now;
      throw error;
    } finally {
      await reader.close();
    }
  }
}

/** The seq of a persona's last event (0 when it has none), read through the read path. */
export async function headSeq(stateDir: string, persona: string): Promise<number> {
  const reader = await openHistoryReader(stateDir, persona);
  try {
    return reader.openEvents().at(-1)?.seq ?? reader.entries().at(-1)?.last_seq ?? 0;
  } finally {
    await reader.close();
  }
}
