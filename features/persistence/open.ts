/**
 * openBackend: from a persona directory and a backend name to a PersistenceBackend.
 *
 * The backend is a plugin (`plugins/persistence-<name>/plugin.yaml`, id `persistence.<name>`,
 * kind `persistence`), run in an isolate (isolated-backend.ts). Its manifest is validated like
 * any other; its `bindings` may name only storage (`storage.files`, `storage.sqlite`,
 * `storage.postgres`), each served for this persona's own folder (or rows) only, and its
 * `exports` must include every function of the backend contract.
 */
import path from 'node:path';
import { isKernelError, kernelError } from '../../kernel/errors.ts';
import { bridgeFor, type PgBridge } from './storage/postgres/pg-bridge.ts';
import { personaLogin, prepareKernelSchema } from './storage/postgres/pg-schema.ts';
import type { StorageSession } from './storage/storage-session.ts';
import type { LoadedPlugin, PluginRegistry } from '../../kernel/plugins/registry.ts';
import { PLUGINS_DIR, scanRegistry } from '../plugin-search/scan.ts';
import { parseBackendName, pluginIdOf, readPersistenceConfig } from './state/persistence-config.ts';
import { BACKEND_EXPORTS, openIsolatedBackendSync, prepareBackendPlugin } from './isolated-backend.ts';
import type { PersonaBackend } from './backend.ts';
import { contextDsn, DSN_ENV, missingDsnError, nonEmpty } from './dsn.ts';
import { PERSONA_ID_PATTERN } from '../../kernel/ids.ts';

/** The bindings a persistence plugin may declare, and nothing else. */
export const STORAGE_BINDINGS = ['storage.files', 'storage.sqlite', 'storage.postgres'] as const;

export interface OpenBackendOptions {
  /** Never write: no file or database is created, repaired or appended to. */
  readonly?: boolean;
  /** Clock for event `at` (tests pin it). */
  now?: () => Date;
  /** Defaults to the persona directory's name. */
  personaId?: string;
  /** Where to look for persistence plugins (tests); defaults to the repository's plugins/. */
  pluginsDir?: string;
  /** A shared database's DSN (the postgres backend); default: the running command's --dsn (dsn.ts), else RUNTIMECTL_POSTGRES_DSN. */
  dsn?: string;
  /** The postgres lease's time to live (default 15 s, or RUNTIMECTL_POSTGRES_LEASE_SECONDS). */
  leaseSeconds?: number;
  /** The plugins of this start (wins over pluginsDir): a backend from an outside plugin folder is found there. */
  registry?: PluginRegistry;
}


/** The persistence plugin `persistence.<name>` under `pluginsDir`, checked for kind and bindings. */
export function findPersistencePlugin(name: string, pluginsDir: string | PluginRegistry = PLUGINS_DIR): LoadedPlugin {
  const id = pluginIdOf(parseBackendName(name));
  const registry = typeof pluginsDir === 'string' ? scanRegistry(pluginsDir) : pluginsDir;
  const scan = { plugins: registry.list(), refused: registry.refused };
  const plugin = scan.plugins.find((p) => p.manifest.id === id);
  if (plugin === undefined) {
    const refused = scan.refused.find((r) => path.basename(r.dir) === `persistence-${name}`);
    if (refused) throw kernelError('RTC_ERR_PERSISTENCE_PLUGIN', `persistence plugin ${id} was refused: ${refused.error.message}`, { details: { plugin: id } });
    const have = scan.plugins.filter((p) => p.manifest.kind === 'persistence').map((p) => p.manifest.id.replace(/^persistence\./, ''));
    throw kernelError('RTC_ERR_PERSISTENCE_PLUGIN', `no persistence backend "${name}" is installed (plugin ${id}); backends are ${have.sort().join(', ') || 'none'}`, {
      details: { plugin: id },
    });
  }
  const where = `${path.relative(path.dirname(plugin.source), plugin.dir)}/plugin.yaml`;
  if (plugin.manifest.kind !== 'persistence') {
    throw kernelError('RTC_ERR_PERSISTENCE_PLUGIN', `${where}: kind: plugin ${id} is a ${plugin.manifest.kind} plugin, not a persistence backend`, { details: { plugin: id } });
  }
  const other = plugin.manifest.bindings.filter((b) => !(STORAGE_BINDINGS as readonly string[]).includes(b));
  if (other.length > 0) {
    throw kernelError('RTC_ERR_PERSISTENCE_BINDING', `${where}: bindings: a persistence backend may declare only ${STORAGE_BINDINGS.join(', ')}, not ${other.join(', ')}`, {
      details: { plugin: id, bindings: other },
    });
  }
  const missing = BACKEND_EXPORTS.filter((e) => !plugin.manifest.exports.includes(e));
  if (missing.length > 0) {
    throw kernelError('RTC_ERR_PERSISTENCE_PLUGIN', `${where}: exports: a persistence backend must export ${missing.join(', ')}`, { details: { plugin: id, missing } });
  }
  if (plugin.profile.tier !== 'in-process' && plugin.requested) {
    // An outside backend asks for an in-process profile it has only by the operator's grant.
    throw kernelError('RTC_ERR_PERSISTENCE_PLUGIN', `${where}: sandbox: persistence backend ${id} comes from ${plugin.source}, outside the checkout's plugins/; it runs in-process (as "${plugin.requested.name}" asks) only when the persona profile grants it: trust: [${id}]`, { details: { plugin: id } });
  }
  if (plugin.profile.tier !== 'in-process') {
    throw kernelError('RTC_ERR_PERSISTENCE_PLUGIN', `${where}: sandbox: a persistence backend runs in-process (its calls are synchronous); profile ${plugin.profile.name} is ${plugin.profile.tier}`, { details: { plugin: id } });
  }
  return plugin;
}

/**
 * Opens persona `personaDir`'s state in backend `name` (default: what its persistence.yaml
 * says, else jsonl-fs). A store written by a newer schema version is refused and left as it is.
 */
export async function openBackend(personaDir: string, name?: string, options: OpenBackendOptions = {}): Promise<PersonaBackend> {
  const { plugin } = resolveBackend(personaDir, name, options);
  await prepareBackendPlugin(plugin);
  // A shared database's connection worker is started (and online) before any synchronous call.
  const dsn = databaseOf(options);
  if (plugin.manifest.bindings.includes('storage.postgres') && dsn) await bridgeFor(dsn).ready();
  return openBackendSync(personaDir, name, options);
}

/** Builds the isolates of these backends (once per process), so that openBackendSync can run. */
export async function prepareBackends(names: readonly string[], options: Pick<OpenBackendOptions, 'pluginsDir' | 'registry'> = {}): Promise<void> {
  await Promise.all(names.map((n) => prepareBackendPlugin(findPersistencePlugin(n, options.registry ?? options.pluginsDir))));
}

/** openBackend without an await, for a backend whose plugin is prepared (openBackend or prepareBackends ran). */
export function openBackendSync(personaDir: string, name?: string, options: OpenBackendOptions = {}): PersonaBackend {
  const { plugin, dir, personaId } = resolveBackend(personaDir, name, options);
  const readonly = options.readonly ?? false;
  const shared = plugin.manifest.bindings.includes('storage.postgres') ? sharedDatabase(personaId, readonly, options) : undefined;
  try {
    return openIsolatedBackendSync(plugin, {
      personaId,
      personaDir: dir,
      readonly,
      now: options.now ?? (() => new Date()),
      ...(shared ? { prepareSession: shared.prepare, locations: shared.locations } : {}),
    });
  } catch (error) {
    throw shared ? namePersona(error, personaId) : error;
  }
}

/** The database a backend opens: the caller's, else the running command's (--dsn, dsn.ts), else RUNTIMECTL_POSTGRES_DSN. */
function databaseOf(options: OpenBackendOptions): string | undefined {
  return nonEmpty(options.dsn) ?? contextDsn() ?? nonEmpty(process.env[DSN_ENV]);
}

/** A database failure says which persona it stopped. */
function namePersona(error: unknown, personaId: string): unknown {
  if (!isKernelError(error) || error.message.startsWith(`persona ${personaId}`)) return error;
  return kernelError(error.code, `persona ${personaId}: ${error.message}`, { details: { ...error.details, persona: personaId }, cause: error });
}

/** Kernels check (and migrate) the kernel's tables once per database per process. */
const preparedDatabases = new Map<PgBridge, boolean>();

/** The shared database a postgres persona's session reaches: the kernel's connection and its tables. */
function sharedDatabase(personaId: string, readonly: boolean, options: OpenBackendOptions) {
  const dsn = databaseOf(options);
  if (dsn === undefined) throw missingDsnError(personaId);
  const bridge = bridgeFor(dsn);
  const envLease = Number(process.env.RUNTIMECTL_POSTGRES_LEASE_SECONDS);
  const leaseSeconds = options.leaseSeconds ?? (Number.isFinite(envLease) && envLease > 0 ? envLease : undefined);
  try {
    // A writer migrates the kernel's tables once; a reader only checks they are not newer.
    if (preparedDatabases.get(bridge) !== true && !(readonly && preparedDatabases.has(bridge))) {
      prepareKernelSchema(bridge, readonly);
      preparedDatabases.set(bridge, !readonly);
    }
  } catch (error) {
    throw namePersona(error, personaId);
  }
  let login: string;
  try {
    // The persona's own login role (made at its first writable open): every statement its plugin sends runs as it.
    login = personaLogin(bridge, personaId, readonly).role;
  } catch (error) {
    throw namePersona(error, personaId);
  }
  return {
    prepare: (session: StorageSession) => {
      session.postgres = { bridge, login, ...(leaseSeconds === undefined ? {} : { leaseSeconds }) };
    },
    locations: { events: `${bridge.where}#events(${personaId})`, proposals: `${bridge.where}#proposals(${personaId})` },
  };
}

function resolveBackend(personaDir: string, name: string | undefined, options: OpenBackendOptions) {
  const dir = path.resolve(personaDir);
  const personaId = options.personaId ?? path.basename(dir);
  if (!PERSONA_ID_PATTERN.test(personaId)) {
    throw kernelError('RTC_ERR_PERSISTENCE_CONFIG', `persona id "${personaId}" must be lowercase letters, digits, "-" and "_" (it names the state directory)`, { details: { personaId } });
  }
  const backendName = name === undefined ? readPersistenceConfig(dir).backend : parseBackendName(name);
  return { plugin: findPersistencePlugin(backendName, options.registry ?? options.pluginsDir), dir, personaId };
}
