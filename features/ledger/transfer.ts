/**
 * Copies a ledger from one backend to the other through a backend-neutral document, the way
 * an operator switches a persona's backend: export, create the new ledger, import, compare.
 */
import type { LedgerExport } from '../../plugins/ledger/model/records.ts';
import type { LedgerStore } from '../../plugins/ledger/model/store.ts';

export function exportLedger(store: LedgerStore): LedgerExport {
  return store.exportLedger();
}

/** Imports into an empty ledger; an inconsistent or newer export is refused whole. */
export function importLedger(store: LedgerStore, doc: unknown): void {
  store.importLedger(doc);
}
