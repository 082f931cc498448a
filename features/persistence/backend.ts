/**
 * The persistence feature's side of the backend contract (kernel/contracts/persistence.ts has
 * the parts the kernel itself uses): a backend here also holds the persona's local task
 * ledger, kept by the backend plugin (its ledgerLoad / ledgerCommit exports) and run by the
 * ledger plugin (plugins/ledger). What a backend plugin exports is BACKEND_EXPORTS in
 * isolated-backend.ts.
 */
import type { PersistenceBackend } from '../../kernel/contracts/persistence.ts';
import type { LedgerBackend } from '../ledger/repo.ts';
import type { OpenedLedger } from '../ledger/open.ts';
import type { LedgerExport } from '../ledger/records.ts';
import type { LedgerConsistencyProblem } from '../ledger/consistency.ts';

/** The persona's local task ledger, through the features/ledger backend of this format. */
export interface LedgerAccess {
  readonly format: LedgerBackend;
  /** Absolute path of the ledger file (from the ledger's config.yaml), or undefined with no ledger. */
  file(): string | undefined;
  /** Opens (bootstrapping when writing) the ledger in this backend's format. */
  open(options?: { readonly?: boolean }): OpenedLedger;
  /** The whole ledger as a backend-neutral document; undefined when the persona has none. */
  exportDoc(): LedgerExport | undefined;
  /** Imports into an empty ledger of this format (created if need be). */
  importDoc(doc: LedgerExport): void;
  check(): LedgerConsistencyProblem[];
}

/** A persona's backend as the features see it: the kernel's parts and the ledger. */
export interface PersonaBackend extends PersistenceBackend {
  readonly ledger: LedgerAccess;
}
