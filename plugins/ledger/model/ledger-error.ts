/**
 * The ledger's refusals, raised the plugin way: an Error whose kernel code and details are data
 * on it (as plugins/persistence-shared's `coded()`), with no kernel code imported by value, so
 * this model runs in the ledger plugin's isolate and on the host alike. The plugin's answer
 * (plugins/ledger/mod.ts) carries code, message and details across; the host turns them back
 * into the kernel's error (features/ledger/plugin-host.ts, features/ledger/ledger-errors.ts).
 */
import type { ErrorCode } from '../../../kernel/errors.ts';

export interface LedgerError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown>;
}

export function ledgerError(code: ErrorCode, message: string, details: Record<string, unknown> = {}): LedgerError {
  return Object.assign(new Error(message), { code, details });
}

export function isLedgerError(error: unknown): error is LedgerError {
  const code = error instanceof Error ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' && code.startsWith('RTC_ERR_');
}
