/**
 * The ledger formats by name. Each persistence backend keeps its ledger in one of them, at the
 * same path (`orchestra/orchestra.db`); the file's first bytes say which one wrote it (format.ts).
 */
import { kernelError } from '../../kernel/errors.ts';
import { LEDGER_BACKENDS, type LedgerBackend } from '../../plugins/ledger/model/repo.ts';

export const DEFAULT_BACKEND: LedgerBackend = 'jsonl-fs';

export function parseBackend(value: string): (typeof LEDGER_BACKENDS)[number] {
  if ((LEDGER_BACKENDS as readonly string[]).includes(value)) return value as (typeof LEDGER_BACKENDS)[number];
  throw kernelError('RTC_ERR_LEDGER_INPUT', `unknown ledger backend "${value}"; backends are ${LEDGER_BACKENDS.join(', ')}`, {
    details: { backend: value },
  });
}
