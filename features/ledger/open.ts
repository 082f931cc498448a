/**
 * Opens a persona's ledger: bootstraps the layout when writing, reads config.yaml, checks
 * that the database path stays inside the persona directory, picks the format from the file
 * itself (or the one asked for, which must match an existing file; for a new ledger, the
 * persona's persistence backend's), and opens it in the ledger plugin over that backend's rows.
 *
 * Synchronous once prepareLedger() has run in this process (it builds the ledger plugin's and
 * the backends' isolates).
 */
import { existsSync } from 'node:fs';
import { kernelError } from '../../kernel/errors.ts';
import { openBackendSync, prepareBackends } from '../persistence/open.ts';
import { readPersistenceConfig } from '../persistence/state/persistence-config.ts';
import { CONFIG_PATH } from './config.ts';
import { assertFormat, detectLedgerFormat } from './format.ts';
import { ensureLedgerLayout, locateLedger, personaIdOf, type BootstrapResult } from './layout.ts';
import { openPluginLedger, prepareLedgerPlugin, type LedgerRowsTarget } from './plugin-host.ts';
import { LEDGER_BACKENDS, type LedgerBackend } from '../../plugins/ledger/model/repo.ts';
import type { LedgerStore } from '../../plugins/ledger/model/store.ts';

export interface OpenLedgerOptions {
  /** Required to match an existing ledger; used to create a new one (default: the persona's backend's format). */
  backend?: LedgerBackend;
  /** Read without writing anything: no bootstrap, no repair. */
  readonly?: boolean;
  /** Defaults to the persona directory's name. */
  personaId?: string;
  /** Project name written into a new config.yaml. */
  project?: string;
}

export interface OpenedLedger {
  store: LedgerStore;
  /** Present when the ledger was opened for writing (and so bootstrapped). */
  bootstrap?: BootstrapResult;
  /** The database path relative to the persona directory. */
  dbPath: string;
}

/** What the ledger needs of an opened persistence backend: its ledger rows, synchronously. */
export interface LedgerRowsBackend {
  readonly name: string;
  callPluginSync(name: string, ...args: unknown[]): unknown;
  /** closes the backend's connections to the ledger file (so its writes are whole on disk when the store closes) */
  releaseFile?(relative: string): void;
}

/** Opens (bootstrapping when writing) the persona's ledger over an opened backend's rows. */
export function openLedgerOver(backend: LedgerRowsBackend, o: { personaDir: string; personaId: string; readonly: boolean; format: LedgerBackend; project?: string; onClose?: () => void }): OpenedLedger {
  const location = o.readonly ? locateLedger(o.personaDir, o.personaId) : ensureLedgerLayout(o.personaDir, { personaId: o.personaId, ...(o.project === undefined ? {} : { project: o.project }) });
  if (location === undefined) {
    o.onClose?.();
    throw kernelError('RTC_ERR_LEDGER_NOT_FOUND', `${o.personaDir} has no ledger (${CONFIG_PATH} is missing); run "runtimectl ledger init"`, { details: { personaDir: o.personaDir } });
  }
  const dbPath = location.config.db_path;
  try {
    assertFormat(location.dbFile, dbPath, o.format);
  } catch (error) {
    o.onClose?.();
    throw error;
  }
  const rows: LedgerRowsTarget = {
    db: dbPath,
    load: (args) => backend.callPluginSync('ledgerLoad', args),
    commit: (args) => backend.callPluginSync('ledgerCommit', args),
  };
  const onClose = () => {
    backend.releaseFile?.(dbPath);
    o.onClose?.();
  };
  const store = openPluginLedger({ personaId: o.personaId, personaDir: o.personaDir, readonly: o.readonly, backend: o.format, file: location.dbFile, rows, onClose });
  return { store, dbPath, ...(o.readonly ? {} : { bootstrap: { status: store.created ? 'created' : 'existing', dbPath, backend: o.format, personaId: o.personaId } }) };
}

/** Builds the ledger plugin's and the backends' isolates, once per process: openLedger is synchronous after it. */
export async function prepareLedger(): Promise<void> {
  await prepareLedgerPlugin();
  await prepareBackends(LEDGER_BACKENDS);
}

/** The ledger format a new ledger of this persona gets: its persistence backend's. */
function defaultFormat(personaDir: string): LedgerBackend {
  const configured = readPersistenceConfig(personaDir).backend;
  return (LEDGER_BACKENDS as readonly string[]).includes(configured) ? (configured as LedgerBackend) : 'jsonl-fs';
}

export function openLedger(personaDir: string, options: OpenLedgerOptions = {}): OpenedLedger {
  if (!existsSync(personaDir)) {
    throw kernelError('RTC_ERR_LEDGER_NOT_FOUND', `persona directory ${personaDir} does not exist`, { details: { personaDir } });
  }
  const personaId = personaIdOf(personaDir, options.personaId);
  // A writer lays out the folders and config.yaml first (idempotent), so the format is read from the file config.yaml names.
  const location = options.readonly ? locateLedger(personaDir, personaId) : ensureLedgerLayout(personaDir, { personaId, ...(options.project === undefined ? {} : { project: options.project }) });
  const found = location === undefined ? 'missing' : detectLedgerFormat(location.dbFile);
  const format = options.backend ?? (found === 'sqlite' || found === 'jsonl-fs' ? found : defaultFormat(personaDir));
  const readonly = options.readonly ?? false;
  const backend = openBackendSync(personaDir, format, { readonly, personaId });
  return openLedgerOver(backend, { personaDir, personaId, readonly, format, ...(options.project === undefined ? {} : { project: options.project }), onClose: () => void backend.close() });
}
