/**
 * What a persona profile's slots say, read by the features that act on them: which persistence
 * plugin a profile names and which database (the persona runtime and its start check,
 * features/persona), and the config each executor runs with (features/science-loop). The
 * profile's schema, which accepts these forms, is the kernel's (kernel/personas/profile-schema.ts);
 * these helpers were there until issue 25 moved them here.
 */
import { PLUGIN_ID_PATTERN } from '../../kernel/ids.ts';
import type { PersonaProfile } from '../../kernel/personas/profile-schema.ts';

/** The persistence plugin a profile names, whichever form it uses. */
export function persistencePluginOf(profile: { persistence?: string | { plugin: string } | undefined }): string | undefined {
  const slot = profile.persistence;
  return typeof slot === 'string' ? slot : slot?.plugin;
}

/**
 * The database a profile names for its Postgres backend: the value of its dsn_env variable in
 * `env`, or its dsn. `source` says which, for messages; undefined when the profile names none.
 */
export function profileDsnOf(profile: { persistence?: unknown }, env: Readonly<Record<string, string | undefined>>): { dsn: string; source: string } | { dsn: undefined; source: string } | undefined {
  const slot = profile.persistence;
  if (typeof slot !== 'object' || slot === null) return undefined;
  const { dsn_env: name, dsn } = slot as { dsn_env?: string; dsn?: string };
  if (name !== undefined) {
    const value = env[name];
    return value !== undefined && value.trim() !== '' ? { dsn: value, source: `$${name} (persistence.dsn_env)` } : { dsn: undefined, source: `$${name} (persistence.dsn_env) is not set` };
  }
  return dsn !== undefined ? { dsn, source: 'persistence.dsn' } : undefined;
}

/** Whether `config` is keyed by executor plugin id (every key a dotted id); {} counts as keyed. */
export function isKeyedExecutorConfig(config: Record<string, unknown>): boolean {
  return Object.keys(config).every((k) => PLUGIN_ID_PATTERN.test(k));
}

/**
 * The config executor `plugin` runs with: its own entry of a keyed config; with the flat form,
 * the whole mapping when `plugin` is the executor the profile names, else {} (its defaults).
 */
export function executorConfigFor(profile: PersonaProfile, plugin: string): Record<string, unknown> {
  const config = profile.executor.config;
  if (isKeyedExecutorConfig(config)) return (config[plugin] as Record<string, unknown> | undefined) ?? {};
  return profile.executor.plugin === plugin ? config : {};
}
