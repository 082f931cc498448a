/**
 * The host's side of the ledger plugin (plugins/ledger): one isolate per process serving every
 * persona's ledger, each a StorageSession whose `storage.ledger` calls the kernel forwards to
 * that persona's persistence backend (its `ledgerLoad` / `ledgerCommit` exports). What the
 * kernel and the CLI hold is a LedgerStore proxy (plugin-store.ts): every method is one
 * synchronous call into the plugin, whose rules decide and whose rows the backend keeps.
 *
 * `prepareLedger()` builds the plugin's isolate (and the backends', for openLedger) once per
 * process; every open after it is synchronous.
 */
import path from 'node:path';
import { kernelError } from '../../kernel/errors.ts';
import type { LoadedPlugin } from '../../kernel/plugins/registry.ts';
import { PLUGINS_DIR, scanPlugins } from '../plugin-search/scan.ts';
import { requireSharedPlugin, sharedStoragePlugin } from '../persistence/shared-instance.ts';
import { pluginLedgerStore, type LedgerAnswer } from './plugin-store.ts';
import type { LedgerStore } from '../../plugins/ledger/model/store.ts';

export const LEDGER_PLUGIN_ID = 'ledger.orchestra';

let found: LoadedPlugin | undefined;

/** plugins/ledger, checked for kind and exports. */
export function ledgerPlugin(): LoadedPlugin {
  if (found) return found;
  const scan = scanPlugins(PLUGINS_DIR);
  const plugin = scan.plugins.find((p) => p.manifest.id === LEDGER_PLUGIN_ID);
  if (plugin === undefined) {
    const refused = scan.refused.find((r) => path.basename(r.dir) === 'ledger');
    throw kernelError('RTC_ERR_PLUGIN_UNKNOWN', refused ? `the ledger plugin was refused: ${refused.error.message}` : `the ledger plugin ${LEDGER_PLUGIN_ID} is not installed (plugins/ledger)`, { details: { plugin: LEDGER_PLUGIN_ID } });
  }
  if (plugin.manifest.kind !== 'ledger' || !['open', 'call', 'close'].every((e) => plugin.manifest.exports.includes(e))) {
    throw kernelError('RTC_ERR_PLUGIN_UNKNOWN', `plugins/ledger/plugin.yaml: plugin ${LEDGER_PLUGIN_ID} must be kind ledger exporting open, call and close`, { details: { plugin: LEDGER_PLUGIN_ID } });
  }
  found = plugin;
  return plugin;
}

/** Builds the ledger plugin's isolate (once per process). */
export async function prepareLedgerPlugin(): Promise<void> {
  await sharedStoragePlugin(ledgerPlugin());
}

/** Where a ledger session's rows are kept: the persona's backend, one file. */
export interface LedgerRowsTarget {
  /** the ledger's database path relative to the persona folder */
  db: string;
  load(args: Record<string, unknown>): unknown;
  commit(args: Record<string, unknown>): unknown;
}

export interface OpenPluginLedger {
  personaId: string;
  personaDir: string;
  readonly: boolean;
  /** the ledger format (the backend's): jsonl-fs, sqlite */
  backend: string;
  /** absolute path of the ledger file */
  file: string;
  rows: LedgerRowsTarget;
  /** run when the store is closed (the backend opened for it, if any) */
  onClose?: () => void;
}

function unwrap(answer: unknown): unknown {
  const a = answer as LedgerAnswer;
  if (a !== null && typeof a === 'object' && 'error' in a) {
    throw kernelError(a.error.code as 'RTC_ERR_LEDGER_INPUT', a.error.message, { details: a.error.details });
  }
  return (a as { ok: unknown }).ok;
}

/** Opens one persona's ledger in the plugin: a writer's open creates it or repairs its tail (`created` says which). */
export function openPluginLedger(o: OpenPluginLedger): LedgerStore & { readonly created: boolean } {
  const shared = requireSharedPlugin(ledgerPlugin(), 'opening a ledger');
  const session = shared.host.open(o.personaId, o.personaDir, o.readonly);
  session.ledgerRows = { db: o.rows.db, load: (args) => o.rows.load(args), commit: (args) => o.rows.commit(args) };
  const call = (name: string, ...args: unknown[]): unknown => shared.instance.callSync(name, session.token, ...args);
  let created: boolean;
  try {
    created = (unwrap(call('open', { backend: o.backend, file: o.file, display: o.rows.db, readonly: o.readonly })) as { created?: boolean }).created === true;
  } catch (error) {
    shared.host.closeSync(session);
    o.onClose?.();
    throw error;
  }
  const store = pluginLedgerStore({
    backend: o.backend,
    file: o.file,
    call: (method, args) => unwrap(call('call', method, args)),
    close() {
      try {
        call('close');
      } finally {
        shared.host.closeSync(session);
        o.onClose?.();
      }
    },
  });
  return Object.assign(store, { created });
}
