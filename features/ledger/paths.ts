/**
 * The ledger's path guard: kernel/storage/persona-path.ts with the ledger's error code
 * (RTC_ERR_LEDGER_PATH_ESCAPE). Nothing is opened outside the persona's own directory.
 */
export { resolveInsidePersona } from '../../kernel/storage/persona-path.ts';
