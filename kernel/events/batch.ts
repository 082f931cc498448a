/**
 * A group-commit batch: the lines of the appends that go out in one write, run together in
 * seq order, and those appends' acknowledgements (resolved only after the write is synced).
 */
import type { AppendResult } from './event-log.ts';

export interface Ack {
  result: AppendResult;
  resolve: (result: AppendResult) => void;
  reject: (error: unknown) => void;
}

/**
 * One event's stored fields, for sinks that keep rows rather than lines (EventLogOptions.keepRows):
 * the shape the SQL backends' row codec encodes an append into (features/persistence/storage/rows.ts).
 */
export interface EncodedEvent {
  seq: number;
  type: string;
  /** Canonical JSON of the redacted payload. */
  payloadJson: string;
  prev: string;
  hash: string;
  at: string;
}
export type BatchRow = EncodedEvent;

export class Batch {
  readonly acks: Ack[] = [];
  /** Filled only when the log keeps rows. */
  readonly rows: BatchRow[] = [];
  /** Concatenation only links the strings; they are copied out once, by bytes(). */
  #text = '';

  get size(): number {
    return this.acks.length;
  }

  addLine(line: string): void {
    this.#text += line;
  }

  /** The lines as one text (each with its newline). */
  text(): string {
    return this.#text;
  }

  /** The lines' length in UTF-8 bytes (the open segment's size grows by it). */
  get byteLength(): number {
    return Buffer.byteLength(this.#text, 'utf8');
  }

  /** The lines as UTF-8, for the one write. */
  bytes(): Buffer {
    return Buffer.from(this.#text, 'utf8');
  }
}
