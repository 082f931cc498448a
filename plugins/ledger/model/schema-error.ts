/**
 * The ledger's format name and its newer-schema refusal: pure, shared by the host (format
 * detection) and the ledger plugin's isolate (records replayed from a backend).
 */
import { ledgerError } from './ledger-error.ts';

export const JSONL_FORMAT = 'runtimectl-ledger-jsonl';

export function newerSchemaError(displayName: string, found: number, supported: number) {
  return ledgerError(
    'RTC_ERR_LEDGER_SCHEMA_NEWER',
    `${displayName}: ledger schema version ${found} is newer than the ${supported} this runtimectl supports; upgrade runtimectl (the file was left untouched)`,
    { file: displayName, found, supported },
  );
}
