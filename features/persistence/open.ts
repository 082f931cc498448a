/**
 * openBackend: from a persona directory and a backend name to a PersistenceBackend.
 *
 * The backend is a plugin (`plugins/persistence-<name>/plugin.yaml`, id `persistence.<name>`,
 * kind `persistence`). Its manifest is validated like any other; its `bindings` may name only
 * storage (`storage.files`, `storage.sqlite`), and the factory receives a handle for exactly
 * those, each scoped to this persona's directory. The manifest's `entry` is a host module
 * (see backend.ts for why) whose `exports` must include `createBackend`.
 */
import { importHostModule } from '../../kernel/plugins/host-modules.ts';
import path from 'node:path';
import { isKernelError, kernelError } from '../../kernel/errors.ts';
import { PLUGINS_DIR, PluginRegistry, type LoadedPlugin } from '../../kernel/plugins/registry.ts';
import { BACKEND_FACTORY_EXPORT, type BackendContext, type CreateBackend, type PersonaBackend } from './backend.ts';
import { parseBackendName, pluginIdOf, readPersistenceConfig } from '../../kernel/storage/persistence-config.ts';
import { ledgerAccess } from './ledger-access.ts';
import { personaFiles, personaSqlite } from '../../kernel/storage/persona-storage.ts';

/** The bindings a persistence plugin may declare, and nothing else. */
export const STORAGE_BINDINGS = ['storage.files', 'storage.sqlite'] as const;

export interface OpenBackendOptions {
  /** Never write: no file or database is created, repaired or appended to. */
  readonly?: boolean;
  /** Clock for event `at` (tests pin it). */
  now?: () => Date;
  /** Defaults to the persona directory's name. */
  personaId?: string;
  /** Where to look for persistence plugins (tests); defaults to the repository's plugins/. */
  pluginsDir?: string;
  /** The plugins of this start (wins over pluginsDir): a backend from an outside plugin folder is found there. */
  registry?: PluginRegistry;
}

const PERSONA_ID = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/** The persistence plugin `persistence.<name>` under `pluginsDir`, checked for kind and bindings. */
export function findPersistencePlugin(name: string, pluginsDir: string | PluginRegistry = PLUGINS_DIR): LoadedPlugin {
  const id = pluginIdOf(parseBackendName(name));
  const registry = typeof pluginsDir === 'string' ? PluginRegistry.scan(pluginsDir) : pluginsDir;
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
  if (!plugin.manifest.exports.includes(BACKEND_FACTORY_EXPORT)) {
    throw kernelError('RTC_ERR_PERSISTENCE_PLUGIN', `${where}: exports: a persistence backend must export ${BACKEND_FACTORY_EXPORT}`, { details: { plugin: id } });
  }
  return plugin;
}

/**
 * Opens persona `personaDir`'s state in backend `name` (default: what its persistence.yaml
 * says, else jsonl-fs). A store written by a newer schema version is refused and left as it is.
 */
export async function openBackend(personaDir: string, name?: string, options: OpenBackendOptions = {}): Promise<PersonaBackend> {
  const dir = path.resolve(personaDir);
  const personaId = options.personaId ?? path.basename(dir);
  if (!PERSONA_ID.test(personaId)) {
    throw kernelError('RTC_ERR_PERSISTENCE_CONFIG', `persona id "${personaId}" must be lowercase letters, digits, "-" and "_" (it names the state directory)`, { details: { personaId } });
  }
  const backendName = name === undefined ? readPersistenceConfig(dir).backend : parseBackendName(name);
  const plugin = findPersistencePlugin(backendName, options.registry ?? options.pluginsDir ?? PLUGINS_DIR);
  const readonly = options.readonly ?? false;
  const declared = new Set(plugin.manifest.bindings);
  const context: BackendContext = {
    personaId,
    personaDir: dir,
    readonly,
    now: options.now ?? (() => new Date()),
    pluginId: plugin.manifest.id,
    storage: {
      ...(declared.has('storage.files') ? { files: { ...personaFiles(dir, readonly), ledger: ledgerAccess(dir, personaId, 'jsonl-fs', readonly) } } : {}),
      ...(declared.has('storage.sqlite') ? { sqlite: { ...personaSqlite(dir, readonly), ledger: ledgerAccess(dir, personaId, 'sqlite', readonly) } } : {}),
    },
  };
  const factory = await loadFactory(plugin);
  return await factory(context);
}

async function loadFactory(plugin: LoadedPlugin): Promise<CreateBackend> {
  let mod: Record<string, unknown>;
  try {
    mod = await importHostModule(plugin.entry);
  } catch (error) {
    if (isKernelError(error)) throw error;
    throw kernelError('RTC_ERR_PERSISTENCE_PLUGIN', `plugin ${plugin.manifest.id}: entry ${plugin.manifest.entry} could not be loaded (${(error as Error).message.split('\n')[0]})`, {
      details: { plugin: plugin.manifest.id },
      cause: error,
    });
  }
  const factory = mod[BACKEND_FACTORY_EXPORT];
  if (typeof factory !== 'function') {
    throw kernelError('RTC_ERR_PERSISTENCE_PLUGIN', `plugin ${plugin.manifest.id}: entry ${plugin.manifest.entry} does not export a function ${BACKEND_FACTORY_EXPORT}`, {
      details: { plugin: plugin.manifest.id },
    });
  }
  return factory as CreateBackend;
}

/** A factory's guard for a storage binding it needs but was not handed. */
export function requireStorage<K extends keyof BackendContext['storage']>(context: BackendContext, kind: K): NonNullable<BackendContext['storage'][K]> {
  const handle = context.storage[kind];
  if (handle === undefined) {
    const binding = kind === 'files' ? 'storage.files' : 'storage.sqlite';
    throw kernelError('RTC_ERR_PERSISTENCE_BINDING', `plugin ${context.pluginId} needs ${binding}, which its manifest does not declare; the kernel hands a backend only the storage it declares`, {
      details: { plugin: context.pluginId, binding },
    });
  }
  return handle as NonNullable<BackendContext['storage'][K]>;
}
