/**
 * Opens a persona's ledger: bootstraps the layout when writing, reads config.yaml, checks
 * that the database path stays inside the persona directory, and picks the backend from the
 * file itself (or the one asked for, which must match an existing file).
 */
import { existsSync } from 'node:fs';
import { kernelError } from '../../kernel/errors.ts';
import { DEFAULT_BACKEND, openRepo } from './backends.ts';
import { CONFIG_PATH } from './config.ts';
import { detectLedgerFormat } from './format.ts';
import { bootstrapLedger, locateLedger, type BootstrapResult } from './layout.ts';
import type { LedgerBackend } from './repo.ts';
import { ledgerStoreOver, type LedgerStore } from './store.ts';

export interface OpenLedgerOptions {
  /** Required to match an existing ledger; used to create a new one (default jsonl-fs). */
  backend?: LedgerBackend;
  /** Read without writing anything: no bootstrap, no repair. */
  readonly?: boolean;
  /** Defaults to the persona directory's name. */
  personaId?: string;
}

export interface OpenedLedger {
  store: LedgerStore;
  /** Present when the ledger was opened for writing (and so bootstrapped). */
  bootstrap?: BootstrapResult;
  /** The database path relative to the persona directory. */
  dbPath: string;
}

export function openLedger(personaDir: string, options: OpenLedgerOptions = {}): OpenedLedger {
  if (!existsSync(personaDir)) {
    throw kernelError('RTC_ERR_LEDGER_NOT_FOUND', `persona directory ${personaDir} does not exist`, { details: { personaDir } });
  }
  const bootstrap = options.readonly ? undefined : bootstrapLedger(personaDir, options);
  const location = locateLedger(personaDir, options.personaId);
  if (location === undefined) {
    throw kernelError('RTC_ERR_LEDGER_NOT_FOUND', `${personaDir} has no ledger (${CONFIG_PATH} is missing); run "runtimectl ledger init"`, {
      details: { personaDir },
    });
  }
  const found = detectLedgerFormat(location.dbFile);
  const backend = options.backend ?? (found === 'sqlite' || found === 'jsonl-fs' ? found : DEFAULT_BACKEND);
  const repo = openRepo(backend, location.dbFile, { displayName: location.config.db_path, readonly: options.readonly ?? false });
  return { store: ledgerStoreOver(repo), dbPath: location.config.db_path, ...(bootstrap === undefined ? {} : { bootstrap }) };
}
