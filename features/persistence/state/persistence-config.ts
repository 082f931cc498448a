/**
 * `<state>/<persona>/persistence.yaml`: which persistence backend holds this persona's state.
 *
 *   schema_version: 1
 *   backend: sqlite          # a plugin id `persistence.<backend>`: jsonl-fs (default) or sqlite
 *
 * The choice lives beside the data it describes, so `verify`, `activity` and `export` know
 * where a persona's events are without its profile, and the state directory moves as one.
 * No file means the embedded default, jsonl-fs. Switching is editing this line, after
 * `runtimectl persistence export` has copied the state into the other backend.
 */
import { existsSync } from 'node:fs';
import { kernelError } from '../../../kernel/errors.ts';
import { shownPath } from '../../../kernel/shown-path.ts';
import { readManifestFile } from '../../../kernel/manifest/load.ts';
import { guardPath, replaceFileDurably } from './persona-storage.ts';
import {
  BACKEND_NAME_PATTERN,
  DEFAULT_BACKEND_NAME,
  KNOWN_BACKENDS,
  PERSISTENCE_CONFIG_FILE,
  PERSISTENCE_SCHEMA_VERSION,
  persistenceConfigSchema,
  type PersistenceConfig,
} from './persistence-config-schema.ts';

export {
  PERSISTENCE_CONFIG_FILE,
  PERSISTENCE_SCHEMA_VERSION,
  DEFAULT_BACKEND_NAME,
  KNOWN_BACKENDS,
  BACKEND_NAME_PATTERN,
  persistenceConfigSchema,
  type PersistenceConfig,
} from './persistence-config-schema.ts';

export function pluginIdOf(backend: string): string {
  return `persistence.${backend}`;
}

/** `sqlite` or `persistence.sqlite` → `sqlite`; anything else is a usage error naming the known ones. */
export function parseBackendName(value: string): string {
  const name = value.startsWith('persistence.') ? value.slice('persistence.'.length) : value;
  if (!BACKEND_NAME_PATTERN.test(name)) {
    throw kernelError('RTC_ERR_PERSISTENCE_CONFIG', `"${value}" is not a persistence backend name; backends are ${KNOWN_BACKENDS.join(', ')}`, { details: { backend: value } });
  }
  return name;
}

/** The persona's configured backend: persistence.yaml, or jsonl-fs when there is none. */
export function readPersistenceConfig(personaDir: string): PersistenceConfig & { source: 'file' | 'default' } {
  const file = guardPath(personaDir, PERSISTENCE_CONFIG_FILE);
  if (!existsSync(file)) return { schema_version: PERSISTENCE_SCHEMA_VERSION, backend: DEFAULT_BACKEND_NAME, source: 'default' };
  let raw: PersistenceConfig;
  try {
    // Named as the user finds it from where they stand (relative to the cwd, else absolute).
    raw = readManifestFile(persistenceConfigSchema, file);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw kernelError('RTC_ERR_PERSISTENCE_CONFIG', message, { details: { file: PERSISTENCE_CONFIG_FILE }, cause: error });
  }
  if (raw.schema_version > PERSISTENCE_SCHEMA_VERSION) {
    throw kernelError(
      'RTC_ERR_PERSISTENCE_SCHEMA_NEWER',
      `${shownPath(file)}: schema version ${raw.schema_version} is newer than the ${PERSISTENCE_SCHEMA_VERSION} this runtimectl supports; upgrade runtimectl (the file was left untouched)`,
      { details: { file: PERSISTENCE_CONFIG_FILE, found: raw.schema_version, supported: PERSISTENCE_SCHEMA_VERSION } },
    );
  }
  return { ...raw, source: 'file' };
}

/** Writes the persona's backend choice (the switch itself). */
export function writePersistenceConfig(personaDir: string, backend: string): void {
  const name = parseBackendName(backend);
  const text =
    `# Which persistence backend holds this persona's state (plugin persistence.<backend>).\n` +
    `# Switch only after "runtimectl persistence export" copied the state into the other one.\n` +
    `schema_version: ${PERSISTENCE_SCHEMA_VERSION}\nbackend: ${name}\n`;
  replaceFileDurably(guardPath(personaDir, PERSISTENCE_CONFIG_FILE), text);
}
