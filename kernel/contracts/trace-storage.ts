/**
 * Where a persona's trace and blobs are kept, as types: the persistence contract
 * (kernel/contracts/persistence.ts) names them; the store that implements them over files is
 * features/trace-store (trace-store.ts, content-store.ts).
 */

/** A content-addressed folder (features/trace-store/content-store.ts). */
export interface ContentStore {
  /** the folder (absolute) */
  readonly dir: string;
  /** stores the bytes durably; returns their digest and path relative to the folder's base */
  put(bytes: Buffer | string): { digest: string; relative: string };
  /** the bytes of a digest, checked; a missing or altered blob is an error naming it */
  get(digest: string): Buffer;
  has(digest: string): boolean;
}

/**
 * Where a trace is kept when not in the persona folder: a persistence backend that holds its
 * persona's state elsewhere (the postgres backend: rows) supplies its lines and blobs.
 */
export interface TraceStorage {
  /** where the lines are, for messages */
  readonly location: string;
  /** appends one record line (no newline) durably */
  appendLine(line: string): void;
  /** every stored line, in order, without newlines */
  lines(): string[];
  readonly blobs: ContentStore;
}
