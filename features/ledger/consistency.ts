/**
 * `checkLedgerConsistency`: what `runtimectl verify` asks of a persona's ledger. It opens the
 * ledger read-only (nothing is repaired or rewritten: a damaged ledger is evidence) and
 * returns every problem with the file and the position, or an empty list when the ledger is
 * sound. A persona that never bootstrapped a ledger has nothing to check.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { isKernelError } from '../../kernel/errors.ts';
import { CONFIG_PATH, LEDGER_DIR } from './config.ts';
import { findLedgerProblems } from '../../plugins/ledger/model/consistency-rules.ts';
import { openLedger, type OpenedLedger } from './open.ts';
import type { LedgerBackend } from '../../plugins/ledger/model/repo.ts';

export interface LedgerConsistencyProblem {
  /** The file, relative to the persona directory. */
  file: string;
  position: string;
  problem: string;
}

export function checkLedgerConsistency(personaDir: string, backend?: LedgerBackend, personaId?: string): LedgerConsistencyProblem[] {
  return checkOpenedLedger(personaDir, () => openLedger(personaDir, { readonly: true, ...(backend === undefined ? {} : { backend }), ...(personaId === undefined ? {} : { personaId }) }));
}

/** The invariants of the ledger `open` opens read-only; an open that fails is one problem. */
export function checkOpenedLedger(personaDir: string, open: () => OpenedLedger): LedgerConsistencyProblem[] {
  if (!existsSync(path.join(personaDir, LEDGER_DIR))) return [];
  let dbPath = CONFIG_PATH;
  try {
    const opened = open();
    dbPath = opened.dbPath;
    try {
      return findLedgerProblems(opened.store.exportLedger()).map((p) => ({ file: dbPath, ...p }));
    } finally {
      opened.store.close();
    }
  } catch (error) {
    if (!isKernelError(error)) throw error;
    const file = typeof error.details['file'] === 'string' ? error.details['file'] : dbPath;
    const line = error.details['line'];
    return [{ file, position: typeof line === 'number' ? `line ${line}` : '(open)', problem: error.toLine() }];
  }
}
