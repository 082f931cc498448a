/**
 * The ledger part of a persistence backend: the persona's local task ledger (features/ledger)
 * in one format. The ledger keeps its own home (`orchestra/orchestra.db`, named by its
 * config.yaml, which executors are pointed at through ORCHESTRA_DB), so both backends
 * delegate to features/ledger and differ only in the format they open it with; a ledger file
 * in the other format is refused by features/ledger with the backend to use.
 */
import { kernelError } from '../../kernel/errors.ts';
import { checkLedgerConsistency } from '../ledger/consistency.ts';
import { detectLedgerFormat } from '../ledger/format.ts';
import { locateLedger } from '../ledger/layout.ts';
import { openLedger } from '../ledger/open.ts';
import type { LedgerExport } from '../ledger/records.ts';
import type { LedgerBackend } from '../ledger/repo.ts';
import type { LedgerAccess } from './backend.ts';

export function ledgerAccess(personaDir: string, personaId: string, format: LedgerBackend, readonly: boolean): LedgerAccess {
  const file = () => locateLedger(personaDir, personaId)?.dbFile;
  return {
    format,
    file,
    open(options = {}) {
      if (readonly && options.readonly !== true) {
        throw kernelError('RTC_ERR_PERSISTENCE_READONLY', 'the ledger cannot be opened for writing: the persistence backend was opened read-only');
      }
      return openLedger(personaDir, { backend: format, personaId, readonly: readonly || options.readonly === true });
    },
    exportDoc(): LedgerExport | undefined {
      const dbFile = file();
      if (dbFile === undefined) return undefined;
      const found = detectLedgerFormat(dbFile);
      if (found === 'missing' || found === 'empty') return undefined;
      const { store } = openLedger(personaDir, { backend: format, personaId, readonly: true });
      try {
        return store.exportLedger();
      } finally {
        store.close();
      }
    },
    importDoc(doc) {
      if (readonly) throw kernelError('RTC_ERR_PERSISTENCE_READONLY', 'cannot import a ledger: the persistence backend was opened read-only');
      const { store } = openLedger(personaDir, { backend: format, personaId });
      try {
        store.importLedger(doc);
      } finally {
        store.close();
      }
    },
    check: () => checkLedgerConsistency(personaDir, format, personaId),
  };
}
