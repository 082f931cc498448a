/**
 * The ledger model's refusals on the host. The model (plugins/ledger/model) runs in the ledger
 * plugin's isolate, so it raises them the plugin way (an Error with its code and details as data,
 * plugins/ledger/model/ledger-error.ts); the host's callers of the model's pure parts (the
 * `runtimectl ledger` verbs, the loop's bindings, the config check) get the kernel's error, with
 * the same code, message and details.
 */
import { kernelError, type KernelError } from '../../kernel/errors.ts';
import { isLedgerError, type LedgerError } from '../../plugins/ledger/model/ledger-error.ts';
import { parseTaskState as parseState, type TaskState } from '../../plugins/ledger/model/lifecycle.ts';
import { newerSchemaError as newerSchema } from '../../plugins/ledger/model/schema-error.ts';

export function asKernelError(error: LedgerError): KernelError {
  return kernelError(error.code, error.message, { details: error.details });
}

/** A state named on a command line or in an API call (lifecycle.ts's parseTaskState), refused with the kernel's error. */
export function parseTaskState(value: string): TaskState {
  try {
    return parseState(value);
  } catch (error) {
    throw isLedgerError(error) ? asKernelError(error) : error;
  }
}

/** The newer-schema refusal (schema-error.ts) as the kernel's error. */
export function newerSchemaError(displayName: string, found: number, supported: number): KernelError {
  return asKernelError(newerSchema(displayName, found, supported));
}
