/**
 * What a ledger backend provides: plain storage of the ledger's rows with all-or-nothing
 * transactions. The rules (lifecycle, leases, surprises) live once, in store.ts, above this
 * interface, which is why both backends pass the same test suite by construction and why a
 * new backend is only this much work.
 *
 * Writes are allowed only inside `transaction`; a transaction that throws leaves nothing
 * behind, and one that returns is durable (fsynced) before `transaction` returns.
 */
import type { Checkpoint, CounterName, HistoryEntry, Lease, LeaseEvent, Surprise, TaskRow } from './records.ts';

/** The ledger formats kept as a file at the ledger's path (what `--backend` and the file's first bytes name). */
export const LEDGER_BACKENDS = ['jsonl-fs', 'sqlite'] as const;
/** A ledger format: one of the file formats, or `postgres` (rows in the persona's database, no file). */
export type LedgerBackend = (typeof LEDGER_BACKENDS)[number] | 'postgres';

export interface LedgerRepo {
  readonly backend: LedgerBackend;
  /** Absolute path of the ledger file. */
  readonly file: string;
  readonly readonly: boolean;

  /** Brings this handle up to date with changes other processes committed (reads only). */
  refresh(): void;
  /** Runs `fn` as one committed change named `change`; all of its writes or none. */
  transaction<T>(change: string, fn: () => T): T;

  counter(name: CounterName): number;
  task(id: string): TaskRow | undefined;
  tasks(): TaskRow[];
  history(taskId: string): HistoryEntry[];
  lease(resource: string): Lease | undefined;
  leases(): Lease[];
  leaseEvents(): LeaseEvent[];
  /** A task's checkpoints in order, or every checkpoint when no task is named. */
  checkpoints(taskId?: string): Checkpoint[];
  surprise(id: string): Surprise | undefined;
  surprises(): Surprise[];

  setCounter(name: CounterName, value: number): void;
  putTask(row: TaskRow): void;
  addHistory(taskId: string, entry: HistoryEntry): void;
  putLease(lease: Lease): void;
  deleteLease(resource: string): void;
  addLeaseEvent(event: LeaseEvent): void;
  addCheckpoint(checkpoint: Checkpoint): void;
  putSurprise(surprise: Surprise): void;

  close(): void;
}

export interface RepoOpenOptions {
  /** Open without writing anything: no repair, no lock, writes refused. */
  readonly?: boolean;
  /** How the file is named in messages (the path relative to the persona directory). */
  displayName: string;
}
