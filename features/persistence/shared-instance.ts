/**
 * One isolate per storage plugin (a persistence backend, the ledger) per process, serving
 * every persona of this process that uses it; each persona is a StorageSession on the
 * instance's StorageHost. Built once (bundled, the isolate loaded) by `sharedStoragePlugin`;
 * after that `readySharedPlugin` hands it over synchronously, so synchronous storage calls
 * (brain.json, proposals, the ledger) need no await.
 */
import { kernelError } from '../../kernel/errors.ts';
import { emptyPermissionSet } from '../../kernel/permissions/descriptors.ts';
import { PluginInstance } from '../plugin-host/plugin-instance.ts';
import type { LoadedPlugin } from '../../kernel/plugins/registry.ts';
import { STORAGE_BINDING_NAMES } from './storage/binding-kit.ts';
import { StorageHost } from './storage/storage-session.ts';
import type { SandboxKit } from '../../kernel/sandbox.ts';
import { defaultSandboxKit } from '../../sandboxes/index.ts';
import { PERSISTENCE_BINDING_OPS } from './storage/binding-ops.ts';

export interface SharedStoragePlugin {
  readonly plugin: LoadedPlugin;
  readonly instance: PluginInstance;
  readonly host: StorageHost;
}

interface Entry {
  shared?: SharedStoragePlugin;
  ready: Promise<SharedStoragePlugin>;
}

const entries = new Map<string, Entry>();

/** The process's one kit for its storage plugins (over the default build cache, as these instances always were): the only kit serving the storage bindings. */
let storageKit: SandboxKit | undefined;

function keyOf(plugin: LoadedPlugin): string {
  return `${plugin.dir}\u0000${plugin.manifest.id}`;
}

/** The plugin's shared instance, built on first use. */
export function sharedStoragePlugin(plugin: LoadedPlugin): Promise<SharedStoragePlugin> {
  const key = keyOf(plugin);
  let entry = entries.get(key);
  if (entry === undefined) {
    const created: Entry = { ready: Promise.resolve(undefined as unknown as SharedStoragePlugin) };
    created.ready = (async () => {
        storageKit ??= defaultSandboxKit({ extensions: [PERSISTENCE_BINDING_OPS] });
        const host = new StorageHost();
        const instance = new PluginInstance(plugin, { kit: storageKit, allow: emptyPermissionSet(), cwd: plugin.dir });
        instance.broker.context.storage = { host, declared: plugin.manifest.bindings.filter((b) => (STORAGE_BINDING_NAMES as readonly string[]).includes(b)) };
        await instance.ready();
        created.shared = { plugin, instance, host };
        return created.shared;
      })();
    entry = created;
    entries.set(key, entry);
    created.ready.catch(() => entries.delete(key));
  }
  return entry.ready;
}

/** The shared instance when it is built (sharedStoragePlugin awaited before), else undefined. */
export function readySharedPlugin(plugin: LoadedPlugin): SharedStoragePlugin | undefined {
  return entries.get(keyOf(plugin))?.shared;
}

/** readySharedPlugin, or the refusal for code that forgot to prepare it. */
export function requireSharedPlugin(plugin: LoadedPlugin, what: string): SharedStoragePlugin {
  const shared = readySharedPlugin(plugin);
  if (shared === undefined) throw kernelError('RTC_ERR_PERSISTENCE_PLUGIN', `plugin ${plugin.manifest.id} is not loaded yet: ${what} needs it prepared first (await it once per process)`, { internal: true });
  return shared;
}
