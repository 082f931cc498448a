/**
 * A LedgerStore on the host whose every method is one call into the ledger plugin (its rules
 * run in the plugin's isolate, over rows the persona's backend keeps). Arguments and answers
 * cross as JSON; a refusal comes back as the kernel error the plugin raised.
 */
import type { LedgerBackend } from '../../plugins/ledger/model/repo.ts';
import { LEDGER_STORE_METHODS as METHODS, type LedgerStore } from '../../plugins/ledger/model/store.ts';

/** What the plugin's `call` answers. */
export type LedgerAnswer = { ok: unknown } | { error: { code: string; message: string; details: Record<string, unknown> } };


export interface PluginStoreParts {
  backend: string;
  file: string;
  call(method: string, args: unknown[]): unknown;
  close(): void;
}

export function pluginLedgerStore(parts: PluginStoreParts): LedgerStore {
  let closed = false;
  const store: Record<string, unknown> = {
    backend: parts.backend as LedgerBackend,
    file: parts.file,
    close() {
      if (closed) return;
      closed = true;
      parts.close();
    },
  };
  for (const method of METHODS) {
    // undefined does not survive JSON (it would arrive as null): trailing ones are left out, so
    // the plugin's defaults apply as they would to a direct call.
    store[method] = (...args: unknown[]) => {
      while (args.length > 0 && args[args.length - 1] === undefined) args.pop();
      const answer = parts.call(method, args);
      return answer === null && (method === 'getLease' || method === 'latestCheckpoint') ? undefined : answer;
    };
  }
  return store as unknown as LedgerStore;
}
