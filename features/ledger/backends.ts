/**
 * The ledger backends by name. Both keep the ledger at the same path; the file's first
 * bytes say which one wrote it (format.ts).
 */
import { kernelError } from '../../kernel/errors.ts';
import { openJsonlRepo } from './jsonl-repo.ts';
import { LEDGER_BACKENDS, type LedgerBackend, type LedgerRepo, type RepoOpenOptions } from './repo.ts';
import { openSqliteRepo } from './sqlite-repo.ts';

export const DEFAULT_BACKEND: LedgerBackend = 'jsonl-fs';

export function openRepo(backend: LedgerBackend, file: string, options: RepoOpenOptions): LedgerRepo {
  return backend === 'sqlite' ? openSqliteRepo(file, options) : openJsonlRepo(file, options);
}

export function parseBackend(value: string): LedgerBackend {
  if ((LEDGER_BACKENDS as readonly string[]).includes(value)) return value as LedgerBackend;
  throw kernelError('RTC_ERR_LEDGER_INPUT', `unknown ledger backend "${value}"; backends are ${LEDGER_BACKENDS.join(', ')}`, {
    details: { backend: value },
  });
}
