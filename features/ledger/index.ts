/**
 * The persona's local task ledger (the spec's container-local Orchestra): layout, the
 * store with its lifecycle, leases, checkpoints and surprises, two backends, consistency
 * checking and export/import. README.md in this folder describes the decisions.
 */
export { bootstrapLedger, ledgerEnv, locateLedger, type BootstrapOptions, type BootstrapResult } from './layout.ts';
export { openLedger, prepareLedger, type OpenLedgerOptions, type OpenedLedger } from './open.ts';
export { checkLedgerConsistency, type LedgerConsistencyProblem } from './consistency.ts';
export { findLedgerProblems, type LedgerProblem } from '../../plugins/ledger/model/consistency-rules.ts';
export { exportLedger, importLedger } from './transfer.ts';
export { resolveInsidePersona } from './paths.ts';
export { LEDGER_BACKENDS, type LedgerBackend } from '../../plugins/ledger/model/repo.ts';
export { DEFAULT_BACKEND, parseBackend } from './backends.ts';
export { TASK_STATES, TRANSITIONS, BLOCKABLE_STATES, legalTargets, isLegalTransition, type TaskState } from '../../plugins/ledger/model/lifecycle.ts';
export { parseTaskState } from './ledger-errors.ts';
export { LEDGER_SCHEMA_VERSION } from '../../plugins/ledger/model/records.ts';
export type { Checkpoint, CheckpointInput, Lease, LeaseEvent, LedgerExport, Surprise, Task, HistoryEntry } from '../../plugins/ledger/model/records.ts';
export type { Actor, LedgerStore, NewSurprise, NewTask } from '../../plugins/ledger/model/store.ts';
