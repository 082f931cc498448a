/**
 * The ledger's rows held in memory, and the two shapes a persistence backend hands them over
 * in (features/persistence/storage/ledger-bindings.ts): a change log (the jsonl-fs format: a header line,
 * then one committed change a line, replayed in order) or a snapshot of every row (a database
 * that keeps tables: sqlite, postgres). Pure: it runs in the ledger plugin's isolate.
 */
import type { JsonlOp } from './jsonl-records.ts';
import type { Checkpoint, CounterName, HistoryEntry, Lease, LeaseEvent, Surprise, TaskRow } from './records.ts';

export interface RowState {
  counters: Map<CounterName, number>;
  tasks: Map<string, TaskRow>;
  history: Map<string, HistoryEntry[]>;
  leases: Map<string, Lease>;
  leaseEvents: LeaseEvent[];
  checkpoints: Checkpoint[];
  surprises: Map<string, Surprise>;
}

export function emptyRowState(): RowState {
  return { counters: new Map(), tasks: new Map(), history: new Map(), leases: new Map(), leaseEvents: [], checkpoints: [], surprises: new Map() };
}

export function applyOp(state: RowState, op: JsonlOp): void {
  switch (op.op) {
    case 'counter':
      state.counters.set(op.name, op.value);
      return;
    case 'task':
      state.tasks.set(op.row.id, op.row);
      return;
    case 'history': {
      const list = state.history.get(op.taskId) ?? [];
      list.push(op.entry);
      state.history.set(op.taskId, list);
      return;
    }
    case 'lease':
      state.leases.set(op.lease.resource, op.lease);
      return;
    case 'lease-delete':
      state.leases.delete(op.resource);
      return;
    case 'lease-event':
      state.leaseEvents.push(op.event);
      return;
    case 'checkpoint':
      state.checkpoints.push(op.checkpoint);
      return;
    case 'surprise':
      state.surprises.set(op.surprise.id, op.surprise);
      return;
  }
}

/** Every row of a ledger, as a table-keeping backend reads them back. */
export interface RowSnapshot {
  counters: Partial<Record<CounterName, number>>;
  tasks: TaskRow[];
  /** each task's history in order */
  history: Record<string, HistoryEntry[]>;
  leases: Lease[];
  leaseEvents: LeaseEvent[];
  checkpoints: Checkpoint[];
  surprises: Surprise[];
}

/** What a backend's `ledgerLoad` answers (`created`: this writer's load made the ledger now). */
export type RowLoad =
  /** no ledger database (a reader sees an empty ledger; a writer's load creates it) */
  | { missing: true }
  /** a change log: complete lines read from `since` (or from the start), the version after them */
  | { log: true; version: number; from_start: boolean; lines: string[]; torn: number; cut?: number; created?: boolean }
  /** every row, at `version` (or only the version when nothing changed since) */
  | { version: number; schema_version: number; snapshot?: RowSnapshot; unchanged?: boolean; created?: boolean };

export function stateFromSnapshot(snapshot: RowSnapshot): RowState {
  const state = emptyRowState();
  for (const [name, value] of Object.entries(snapshot.counters)) state.counters.set(name as CounterName, value as number);
  for (const task of snapshot.tasks) state.tasks.set(task.id, task);
  for (const [taskId, entries] of Object.entries(snapshot.history)) state.history.set(taskId, [...entries]);
  for (const lease of snapshot.leases) state.leases.set(lease.resource, lease);
  state.leaseEvents.push(...snapshot.leaseEvents);
  state.checkpoints.push(...snapshot.checkpoints);
  for (const surprise of snapshot.surprises) state.surprises.set(surprise.id, surprise);
  return state;
}
