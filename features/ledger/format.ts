/**
 * Both backends keep the ledger at the same path (`orchestra/orchestra.db`), so the file's
 * first bytes say which backend wrote it. Opening a file with the wrong backend is refused
 * with a message that says which one to use, rather than failing deep inside a parser.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { kernelError } from '../../kernel/errors.ts';
import type { LedgerBackend } from '../../plugins/ledger/model/repo.ts';

const SQLITE_MAGIC = 'SQLite format 3\0';
import { JSONL_FORMAT } from '../../plugins/ledger/model/schema-error.ts';

export { JSONL_FORMAT } from '../../plugins/ledger/model/schema-error.ts';
export { newerSchemaError } from './ledger-errors.ts';

export type LedgerFileFormat = LedgerBackend | 'missing' | 'empty' | 'unknown';

export function detectLedgerFormat(file: string): LedgerFileFormat {
  let size: number;
  try {
    size = statSync(file).size;
  } catch {
    return 'missing';
  }
  if (size === 0) return 'empty';
  const head = Buffer.alloc(Math.min(size, 64));
  const fd = openSync(file, 'r');
  try {
    readSync(fd, head, 0, head.length, 0);
  } finally {
    closeSync(fd);
  }
  const text = head.toString('latin1');
  if (text.startsWith(SQLITE_MAGIC)) return 'sqlite';
  if (text.startsWith('{') && text.includes(JSONL_FORMAT)) return 'jsonl-fs';
  // A header torn at creation is still ours: a prefix of the header line.
  if (`{"format":"${JSONL_FORMAT}"`.startsWith(text)) return 'jsonl-fs';
  return 'unknown';
}

/** Refuses to open a file written by the other backend (or by nothing we know). */
export function assertFormat(file: string, displayName: string, wanted: LedgerBackend): LedgerFileFormat {
  const format = detectLedgerFormat(file);
  if (format === 'unknown') {
    throw kernelError('RTC_ERR_LEDGER_CORRUPT', `${displayName}: not a runtimectl ledger (neither a sqlite database nor a ${JSONL_FORMAT} record log); the file was left untouched`, {
      details: { file: displayName },
    });
  }
  if ((format === 'sqlite' || format === 'jsonl-fs') && format !== wanted) {
    throw kernelError(
      'RTC_ERR_LEDGER_BACKEND_MISMATCH',
      `${displayName} is a ${format} ledger but the ${wanted} backend was asked for; use --backend ${format}, or export and import to switch`,
      { details: { file: displayName, found: format, wanted } },
    );
  }
  return format;
}
