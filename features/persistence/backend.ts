/**
 * The persistence feature's side of the backend contract (kernel/contracts/persistence.ts has
 * the parts the kernel itself uses): a backend here also holds the persona's local task
 * ledger, and its factory is handed storage handles that carry the ledger in their format.
 */
import type { PersistenceBackend } from '../../kernel/contracts/persistence.ts';
import type { PersonaFiles, PersonaSqlite } from '../../kernel/storage/persona-storage.ts';
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

/** `storage.files` as a backend gets it: the kernel's handle and the jsonl-fs ledger. */
export type BackendFiles = PersonaFiles & { readonly ledger: LedgerAccess };
/** `storage.sqlite` as a backend gets it: the kernel's handle and the sqlite ledger. */
export type BackendSqlite = PersonaSqlite & { readonly ledger: LedgerAccess };

/** What the kernel hands a backend's factory: only the storage its manifest declares. */
export interface BackendContext {
  personaId: string;
  /** The persona directory (absolute). Paths must still go through a storage handle. */
  personaDir: string;
  readonly: boolean;
  /** Wall clock for event `at` (tests pin it). */
  now: () => Date;
  pluginId: string;
  storage: {
    /** Present only when the manifest declares `storage.files`. */
    files?: BackendFiles;
    /** Present only when the manifest declares `storage.sqlite`. */
    sqlite?: BackendSqlite;
  };
}

/** The export a persistence plugin's entry module provides (named in its manifest's `exports`). */
export type CreateBackend = (context: BackendContext) => PersonaBackend | Promise<PersonaBackend>;

export const BACKEND_FACTORY_EXPORT = 'createBackend';
