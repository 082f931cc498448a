/**
 * The ledger part of a persistence backend: the persona's local task ledger in the backend's
 * format, kept by the backend (its ledgerLoad / ledgerCommit exports) and run by the ledger
 * plugin (plugin-host.ts). The ledger keeps its own home (`orchestra/orchestra.db`, named by
 * its config.yaml, which executors are pointed at through ORCHESTRA_DB); a ledger file in
 * another format is refused with the backend to use.
 *
 *   await prepareLedgerPlugin();            // once per process (the loop's provider does it: backend-part.ts)
 *   const { store } = ledgerOf(backend).open();
 *
 * The persistence feature knows no ledger: a backend only says which format it keeps it in
 * (`ledgerFormat`, from its plugin's describe()), and this file makes the ledger of it.
 */
import { isKernelError, kernelError } from '../../kernel/errors.ts';
import { detectLedgerFormat } from './format.ts';
import { locateLedger } from './layout.ts';
import { openLedgerOver, type LedgerRowsBackend } from './open.ts';
import type { LedgerExport } from '../../plugins/ledger/model/records.ts';
import type { LedgerBackend } from '../../plugins/ledger/model/repo.ts';
import { checkOpenedLedger, type LedgerConsistencyProblem } from './consistency.ts';
import type { OpenedLedger } from './open.ts';
import type { PersonaBackend } from '../persistence/backend.ts';

/** The persona's local task ledger, through the backend that keeps it. */
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

/** The formats a backend may keep the ledger in (a file format, or rows: postgres). */
const LEDGER_FORMATS: readonly LedgerBackend[] = ['jsonl-fs', 'sqlite', 'postgres'];

/**
 * The ledger of an opened backend, in the format the backend keeps it. Synchronous; its
 * opens need the ledger plugin prepared in this process (prepareLedgerPlugin).
 */
export function ledgerOf(backend: PersonaBackend): LedgerAccess {
  const format = backend.ledgerFormat;
  if (!(LEDGER_FORMATS as readonly string[]).includes(format)) {
    throw kernelError('RTC_ERR_PERSISTENCE_BACKEND', `plugin ${backend.pluginId}: describe() names the ledger format ${JSON.stringify(format)}; formats are ${LEDGER_FORMATS.join(', ')}`, {
      details: { plugin: backend.pluginId, ledger: format },
    });
  }
  return ledgerAccess(backend, backend.personaDir, backend.personaId, format as LedgerBackend, backend.readonly);
}

function ledgerAccess(backend: LedgerRowsBackend, personaDir: string, personaId: string, format: LedgerBackend, readonly: boolean): LedgerAccess {
  const file = () => locateLedger(personaDir, personaId)?.dbFile;
  const open = (ro: boolean) => openLedgerOver(backend, { personaDir, personaId, readonly: ro, format });
  /** A ledger kept as rows: none yet is no export (not an error). */
  const exportRows = (): LedgerExport | undefined => {
    if (locateLedger(personaDir, personaId) === undefined) return undefined;
    try {
      const { store } = open(true);
      try {
        return store.exportLedger();
      } finally {
        store.close();
      }
    } catch (error) {
      if (isKernelError(error) && error.code === 'RTC_ERR_LEDGER_NOT_FOUND') return undefined;
      throw error;
    }
  };
  return {
    format,
    file,
    open(options = {}) {
      if (readonly && options.readonly !== true) {
        throw kernelError('RTC_ERR_PERSISTENCE_READONLY', 'the ledger cannot be opened for writing: the persistence backend was opened read-only');
      }
      return open(readonly || options.readonly === true);
    },
    exportDoc(): LedgerExport | undefined {
      if (format === 'postgres') return exportRows();
      const dbFile = file();
      if (dbFile === undefined) return undefined;
      const found = detectLedgerFormat(dbFile);
      if (found === 'missing' || found === 'empty') return undefined;
      const { store } = open(true);
      try {
        return store.exportLedger();
      } finally {
        store.close();
      }
    },
    importDoc(doc) {
      if (readonly) throw kernelError('RTC_ERR_PERSISTENCE_READONLY', 'cannot import a ledger: the persistence backend was opened read-only');
      const { store } = open(false);
      try {
        store.importLedger(doc);
      } finally {
        store.close();
      }
    },
    check: (): LedgerConsistencyProblem[] => checkOpenedLedger(personaDir, () => open(true)),
  };
}
