/**
 * The persona's local task ledger (the spec's container-local Orchestra) as a plugin: the
 * lifecycle, leases, checkpoints and surprises (model/store.ts) run in
 * this isolate over rows kept by the persona's persistence backend (rows-repo.ts, through
 * `storage.ledger`). The kernel and the `runtimectl ledger` verbs reach it through a host
 * proxy (features/ledger/plugin-store.ts) that calls `call(token, method, args)`.
 *
 * Every answer is `{ok: value}` or `{error: {code, message, details}}`, so a refusal reaches
 * the caller with its kernel code and details intact.
 */
import { LEDGER_STORE_METHODS, ledgerStoreOver, type LedgerStore } from './model/store.ts';
import type { LedgerBackend } from './model/repo.ts';
import { RowsRepo } from './rows-repo.ts';

const stores = new Map<string, LedgerStore>();

type Answer = { ok: unknown } | { error: { code: string; message: string; details: Record<string, unknown> } };

function answer(fn: () => unknown): Answer {
  try {
    const value = fn();
    return { ok: value === undefined ? null : value };
  } catch (error) {
    const e = error as { code?: unknown; message?: unknown; details?: unknown };
    const code = typeof e.code === 'string' && e.code.startsWith('RTC_ERR_') ? e.code : 'RTC_ERR_LEDGER_CORRUPT';
    const details = e.details !== null && typeof e.details === 'object' ? (e.details as Record<string, unknown>) : {};
    return { error: { code, message: String(e.message ?? error), details } };
  }
}

/** Opens the persona's ledger for this session: a writer's first load creates it or repairs its tail. */
export function open(s: string, o: { backend: LedgerBackend; file: string; display: string; readonly: boolean }): Answer {
  return answer(() => {
    const repo = new RowsRepo({ token: s, backend: o.backend, file: o.file, display: o.display, readonly: o.readonly });
    const created = repo.load(!o.readonly);
    stores.set(s, ledgerStoreOver(repo));
    return { backend: o.backend, created };
  });
}

const METHODS = new Set<string>(LEDGER_STORE_METHODS);

/** One LedgerStore method for the session's ledger. */
export function call(s: string, method: string, args: unknown[]): Answer {
  return answer(() => {
    const store = stores.get(s);
    if (store === undefined) throw Object.assign(new Error('the ledger was not opened for this session'), { code: 'RTC_ERR_LEDGER_INPUT' });
    if (!METHODS.has(method)) throw Object.assign(new Error(`the ledger has no method "${method}"`), { code: 'RTC_ERR_LEDGER_INPUT' });
    return (store as unknown as Record<string, (...a: unknown[]) => unknown>)[method]!(...args);
  });
}

export function close(s: string): void {
  stores.get(s)?.close();
  stores.delete(s);
}
