/**
 * The one rule the ledger's files live by: nothing is opened outside the persona's own
 * directory (features/persistence/state/path-guard.ts), with the ledger's own error code.
 */
import { resolveInside } from '../persistence/state/path-guard.ts';

const LEDGER_VOICE = { code: 'RTC_ERR_LEDGER_PATH_ESCAPE', what: 'ledger path' } as const;

/**
 * Resolves `relative` against the persona directory and returns its real absolute path,
 * or throws RTC_ERR_LEDGER_PATH_ESCAPE when it would leave the persona directory.
 */
export function resolveInsidePersona(personaDir: string, relative: string): string {
  return resolveInside(LEDGER_VOICE, personaDir, relative);
}
