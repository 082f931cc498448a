/**
 * The ledger part of a persistence backend: the persona's local task ledger in the backend's
 * format, kept by the backend (its ledgerLoad / ledgerCommit exports) and run by the ledger
 * plugin (features/ledger/plugin-host.ts). The ledger keeps its own home (`orchestra/orchestra.db`,
 * named by its config.yaml, which executors are pointed at through ORCHESTRA_DB); a ledger file
 * in another format is refused with the backend to use.
 */
import { isKernelError, kernelError } from '../../kernel/errors.ts';
import { detectLedgerFormat } from '../ledger/format.ts';
import { locateLedger } from '../ledger/layout.ts';
import { openLedgerOver, type LedgerRowsBackend } from '../ledger/open.ts';
import type { LedgerExport } from '../ledger/records.ts';
import type { LedgerBackend } from '../ledger/repo.ts';
import { checkOpenedLedger, type LedgerConsistencyProblem } from '../ledger/consistency.ts';
import type { LedgerAccess } from './backend.ts';

export function ledgerAccess(backend: LedgerRowsBackend, personaDir: string, personaId: string, format: LedgerBackend, readonly: boolean): LedgerAccess {
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
