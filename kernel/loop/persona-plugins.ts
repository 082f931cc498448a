/**
 * The plugins one persona runs (its executor and its budget policy), each a PluginInstance
 * in the sandbox whose grant is manifest ∩ the persona's `allow` ∩ the profile ceiling,
 * whose bindings are the manifest's ∩ the persona's, and whose limits are tightened to the
 * persona's budget (CPU seconds per call; an executor's subprocess wall limit is the
 * persona's wall seconds per cycle, with the isolate's own wall limit a little above it so
 * the subprocess is killed first and the plugin can still write its session files).
 *
 * A plugin that is not installed, or of the wrong kind, is an error for the cycle that asked
 * for it; the next cycle looks again (it may have been installed since).
 */
import { statSync } from 'node:fs';
import type { AuditEvent } from '../broker/op.ts';
import type { BindingImplementations } from '../broker/ops/bindings.ts';
import { kernelError } from '../errors.ts';
import type { PathVariables } from '../manifest/permissions-schema.ts';
import type { PermissionSet } from '../permissions/descriptors.ts';
import { PluginInstance } from '../plugins/plugin-instance.ts';
import { PLUGINS_DIR, scanPlugins, type LoadedPlugin } from '../plugins/registry.ts';
import type { CompiledSource } from '../../sandboxes/isolate/isolate-runtime.ts';

/** Grace between the subprocess wall limit and the isolate's, for writing the session files. */
const EXECUTOR_WALL_GRACE_MS = 5000;

/**
 * The installed plugins, scanned once per process. A missing id triggers a rescan only when
 * the plugins folder changed since (a plugin installed meanwhile): a scan validates every
 * manifest, which is too slow to repeat on every cycle of a persona with a typo in its profile.
 */
export class PluginDirectory {
  readonly root: string;
  #plugins = new Map<string, LoadedPlugin>();
  #refused: string[] = [];
  #scannedAt = -1;

  constructor(root = PLUGINS_DIR) {
    this.root = root;
    this.#scan();
  }

  #mtime(): number {
    try {
      return statSync(this.root).mtimeMs;
    } catch {
      return -1;
    }
  }

  #scan(): void {
    this.#scannedAt = this.#mtime();
    const scan = scanPlugins(this.root);
    this.#plugins = new Map(scan.plugins.map((p) => [p.manifest.id, p]));
    this.#refused = scan.refused.map((r) => r.error.message);
  }

  find(id: string, kind: LoadedPlugin['manifest']['kind']): LoadedPlugin {
    if (!this.#plugins.has(id) && this.#mtime() !== this.#scannedAt) this.#scan();
    const plugin = this.#plugins.get(id);
    if (!plugin) {
      const refusedNote = this.#refused.length > 0 ? `; refused manifests: ${this.#refused.join(' | ')}` : '';
      throw kernelError('RTC_ERR_PLUGIN_UNKNOWN', `plugin ${id} is not installed (have: ${[...this.#plugins.keys()].sort().join(', ')})${refusedNote}`, { details: { plugin: id } });
    }
    if (plugin.manifest.kind !== kind) {
      throw kernelError('RTC_ERR_PLUGIN_UNKNOWN', `plugin ${id} is a ${plugin.manifest.kind} plugin, not ${kind === 'executor' ? 'an executor' : `a ${kind}`}`, { details: { plugin: id } });
    }
    return plugin;
  }
}

export interface PersonaPluginOptions {
  personaId: string;
  shim: CompiledSource;
  directory: PluginDirectory;
  allow: PermissionSet;
  vars: PathVariables;
  /** the environment the plugins see (and their subprocesses inherit) */
  env: Record<string, string>;
  /** cwd of executors (the workspace) and of other plugins (the persona folder) */
  executorCwd: string;
  otherCwd: string;
  cpuSeconds: number;
  wallSeconds: number;
  grantedBindings: readonly string[];
  bindings: BindingImplementations;
  audit: (event: AuditEvent) => void;
  cacheDir?: string;
}

export class PersonaPlugins {
  readonly #options: PersonaPluginOptions;
  readonly #instances = new Map<string, PluginInstance>();

  constructor(options: PersonaPluginOptions) {
    this.#options = options;
  }

  /** The running instance of plugin `id`, built on first use. */
  get(id: string, kind: 'executor' | 'budget-policy'): PluginInstance {
    const existing = this.#instances.get(id);
    if (existing) return existing;
    const o = this.#options;
    const plugin = o.directory.find(id, kind);
    const base = { ...plugin.profile.limits, ...plugin.manifest.limits };
    const cpuMs = Math.max(1, Math.min(base.cpuMs, Math.ceil(o.cpuSeconds * 1000)));
    const subprocessWallMs = Math.max(1, Math.ceil(o.wallSeconds * 1000));
    const wallMs = kind === 'executor' ? subprocessWallMs + EXECUTOR_WALL_GRACE_MS : base.wallMs;
    const tuned: LoadedPlugin = { ...plugin, manifest: { ...plugin.manifest, limits: { ...plugin.manifest.limits, cpuMs, wallMs } } };
    const instance = new PluginInstance(tuned, {
      shim: o.shim,
      allow: o.allow,
      vars: o.vars,
      cwd: kind === 'executor' ? o.executorCwd : o.otherCwd,
      env: o.env,
      audit: o.audit,
      ...(o.cacheDir ? { cacheDir: o.cacheDir } : {}),
    });
    // The broker's context is built by PluginInstance; the loop adds what only it knows: the
    // subprocess wall limit (below the isolate's) and this persona's bindings.
    const context = instance.broker.context;
    context.subprocess.wallMs = subprocessWallMs;
    context.bindings = { grantor: o.personaId, declared: plugin.manifest.bindings, granted: o.grantedBindings, impl: o.bindings };
    this.#instances.set(id, instance);
    return instance;
  }

  dispose(): void {
    for (const instance of this.#instances.values()) instance.dispose();
    this.#instances.clear();
  }
}
