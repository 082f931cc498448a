/**
 * The shape of a persona's one-writer lock as a backend provides it (the state helper's
 * writer-lock interface: `acquireWriterLock(purpose) → { holder, release() }`); the Postgres
 * backend's is its lease. Kept structural so either side can land first.
 */
export interface WriterLockLike {
  readonly holder: Record<string, unknown>;
  release(): void;
}
