/**
 * Paths and durable writes inside a persona folder, for the files features keep there
 * (persistence.yaml, substrate.json, the review queue): `guardPath` resolves a relative path
 * inside the persona directory (lexically and through realpath, so a planted symbolic link
 * cannot aim it at another persona's or the host's files) and refuses anything else with
 * RTC_ERR_PERSISTENCE_PATH_ESCAPE. Persistence backends do not get these: they are isolated
 * plugins and reach storage only through the storage bindings (features/persistence/storage).
 */
import { resolveInside } from './path-guard.ts';

export { appendFileDurably, replaceFileDurably, replaceFileDurablyAsync, type ReplaceOptions } from '../../../kernel/storage/durable-files.ts';

const PERSISTENCE_VOICE = { code: 'RTC_ERR_PERSISTENCE_PATH_ESCAPE', what: 'persistence path' } as const;

/** The path guard with the persistence error code. */
export function guardPath(personaDir: string, relative: string): string {
  return resolveInside(PERSISTENCE_VOICE, personaDir, relative);
}
