/**
 * The substrate record: `<state>/substrate.json`, the digests of every plugin the kernel
 * could load when a run started, so `runtimectl verify` can say which manifest or bundle
 * changed since, in which file, and how.
 *
 *   {format, recorded_at, kernel_version,
 *    plugins: {<folder>: {id, version, kind,
 *                         manifest: {file, sha256, text, declared},
 *                         bundle: {kind: isolate|host, entry, digest, inputs} | {error}}},
 *    refused: {<folder>: message}}
 *
 * `recordSubstrate(stateDir)` writes it (the loop calls it at start; the file is replaced
 * atomically). Isolate plugins are digested by the sandbox kit's loader (the same digest
 * the sandbox runs; persistence backends are isolate plugins too). Paths are kept
 * relative (to the plugins folder, then to each plugin's folder), with one exception: a
 * plugin found in an outside folder of the search path (RUNTIMECTL_PLUGIN_PATH, --plugins-dir)
 * records that folder (`source`, absolute), and the record lists the outside folders the run
 * searched (`search_path`), so a later `verify` that was not given the folder can say which
 * one to pass instead of calling the plugin gone. The built-in plugins/ is never written.
 * The manifest text is kept (manifests are small and hold no secrets) so a change can be
 * placed at a line, and its parsed form so it can be named by field.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { sha256 } from '../../kernel/events/envelope.ts';
import type { ModuleLoader } from '../../kernel/sandbox.ts';
import { isKernelError, kernelError } from '../../kernel/errors.ts';
import { canonicalJson } from '../../kernel/events/canonical.ts';
import { replaceFileDurably } from '../persistence/state/persona-storage.ts';
import type { LoadedPlugin, PluginRegistry } from '../../kernel/plugins/registry.ts';
import { PLUGINS_DIR, scanRegistry } from '../plugin-search/scan.ts';
import { KERNEL_VERSION } from '../../kernel/version.ts';

export const SUBSTRATE_FILE = 'substrate.json';
export const SUBSTRATE_FORMAT = 'runtimectl.substrate/1';

const digest = z.string().regex(/^[0-9a-f]{64}$/);

const bundleSchema = z.union([
  // `host` was the record of a host-module persistence backend (before backends ran in isolates):
  // still read, so an older substrate.json compares as a change rather than failing to load.
  z.strictObject({ kind: z.enum(['isolate', 'host', 'mcp']), entry: z.string(), digest, inputs: z.record(z.string(), digest) }),
  z.strictObject({ error: z.string() }),
]);

const pluginRecordSchema = z.strictObject({
  id: z.string(),
  /** the outside search-path folder the plugin was found in (absent: the built-in plugins/) */
  source: z.string().optional(),
  version: z.string(),
  kind: z.string(),
  manifest: z.strictObject({ file: z.string(), sha256: digest, text: z.string(), declared: z.record(z.string(), z.unknown()) }),
  bundle: bundleSchema,
});

export const substrateSchema = z.strictObject({
  format: z.literal(SUBSTRATE_FORMAT),
  recorded_at: z.string(),
  kernel_version: z.string(),
  /** the outside folders of the search path (after the built-in plugins/), absolute; absent in older records */
  search_path: z.array(z.string()).optional(),
  plugins: z.record(z.string(), pluginRecordSchema),
  refused: z.record(z.string(), z.string()),
});

export type Substrate = z.output<typeof substrateSchema>;
export type PluginRecord = z.output<typeof pluginRecordSchema>;
export type BundleRecord = z.output<typeof bundleSchema>;

export interface SubstrateOptions {
  /** Where the plugins are (tests); defaults to the repository's plugins/. */
  pluginsDir?: string;
  /** The plugins as this start resolved them (the whole search path); wins over pluginsDir. */
  registry?: PluginRegistry;
  /** how the plugins are bundled (the sandbox kit's loader): their digests, in its build cache */
  loader: ModuleLoader;
  now?: () => Date;
}

/** A plugin's bundle digest (every kind runs in an isolate, persistence backends included). */
export async function pluginBundleRecord(plugin: LoadedPlugin, loader: ModuleLoader): Promise<BundleRecord> {
  if (plugin.manifest.mcp) {
    // A mounted MCP server has no code of ours: what it is, is the server it declares.
    return { kind: 'mcp', entry: 'plugin.yaml', digest: sha256(canonicalJson(plugin.manifest.mcp)), inputs: {} };
  }
  const entry = plugin.manifest.entry!;
  try {
    const bundle = await loader.bundle(plugin.entry);
    return { kind: 'isolate', entry, digest: bundle.digest, inputs: bundle.inputs };
  } catch (error) {
    if (!isKernelError(error)) throw error;
    return { error: error.toLine() };
  }
}

/** The substrate as it is now (nothing written). */
export async function currentSubstrate(options: SubstrateOptions): Promise<Substrate> {
  const registry = options.registry ?? scanRegistry(options.pluginsDir ?? PLUGINS_DIR);
  const builtIn = registry.roots[0];
  const scan = { plugins: registry.list(), refused: registry.refused };
  // A plugin of the first search-path folder is keyed by its folder name, one from a later
  // folder by that folder's name too (plugins from two places never share a key).
  const keyOf = (dir: string) => (path.dirname(dir) === builtIn ? path.basename(dir) : `${path.basename(path.dirname(dir))}/${path.basename(dir)}`);
  const plugins: Substrate['plugins'] = {};
  for (const plugin of scan.plugins) {
    const folder = keyOf(plugin.dir);
    const file = path.join(plugin.dir, 'plugin.yaml');
    const text = readFileSync(file, 'utf8');
    const { $schema: _schema, ...declared } = plugin.manifest;
    plugins[folder] = {
      id: plugin.manifest.id,
      ...(plugin.source === builtIn ? {} : { source: plugin.source }),
      version: plugin.manifest.version,
      kind: plugin.manifest.kind,
      manifest: { file: `${folder}/plugin.yaml`, sha256: sha256(text), text, declared: JSON.parse(JSON.stringify(declared)) as Record<string, unknown> },
      bundle: await pluginBundleRecord(plugin, options.loader),
    };
  }
  const refused: Substrate['refused'] = {};
  for (const r of scan.refused) refused[keyOf(r.dir)] = r.error.toLine();
  const outside = registry.roots.slice(1);
  return { format: SUBSTRATE_FORMAT, recorded_at: (options.now ?? (() => new Date()))().toISOString(), kernel_version: KERNEL_VERSION, ...(outside.length > 0 ? { search_path: [...outside] } : {}), plugins, refused };
}

/** Records the substrate in `<state>/substrate.json` (atomically) and returns it. */
export async function recordSubstrate(stateDir: string, options: SubstrateOptions): Promise<Substrate> {
  const substrate = await currentSubstrate(options);
  writeSubstrate(stateDir, substrate);
  return substrate;
}

/** Replaces `<state>/substrate.json` atomically with `substrate`. */
export function writeSubstrate(stateDir: string, substrate: Substrate): void {
  try {
    replaceFileDurably(path.join(stateDir, SUBSTRATE_FILE), `${JSON.stringify(substrate, null, 2)}\n`);
  } catch (error) {
    throw kernelError('RTC_ERR_SUBSTRATE_RECORD', `cannot write ${SUBSTRATE_FILE} in the state directory (${(error as Error).message.split('\n')[0]})`, { cause: error });
  }
}

/** The recorded substrate, or undefined when none was recorded. Throws for a file that is not one. */
export function readSubstrate(stateDir: string): Substrate | undefined {
  const file = path.join(stateDir, SUBSTRATE_FILE);
  if (!existsSync(file)) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw kernelError('RTC_ERR_SUBSTRATE_RECORD', `${file}: not valid JSON (${(error as Error).message.split('\n')[0]})`, { details: { file } });
  }
  const parsed = substrateSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw kernelError('RTC_ERR_SUBSTRATE_RECORD', `${file}: ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`, { details: { file } });
  }
  return parsed.data;
}

/** One difference between the record and now, placed at a file (relative to the plugins folder). */
export interface SubstrateChange {
  severity: 'error' | 'warning';
  /** Relative to the plugins folder: `executor-none/plugin.yaml`, `budget-voi-tiers/tiers.ts`. */
  file: string;
  line?: number;
  what: string;
  /**
   * `off-path`: the plugin was recorded from an outside folder that is not on the search path
   * now, so it could not be checked (not damage: pass that folder); `source` names it. The
   * start's event carries only `file` and `what`, never a host path.
   */
  kind?: 'off-path';
  /** the outside folder the plugin was recorded from (for `off-path`, and for messages) */
  source?: string;
}

function short(hex: string): string {
  return `${hex.slice(0, 12)}…`;
}

function firstDifferentLine(before: string, after: string): number {
  const a = before.split('\n');
  const b = after.split('\n');
  for (let i = 0; i < Math.max(a.length, b.length); i++) if (a[i] !== b[i]) return i + 1;
  return 1;
}

function changedFields(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  return keys
    .filter((key) => canonicalJson(before[key] ?? null) !== canonicalJson(after[key] ?? null))
    .map((key) => {
      const was = before[key];
      const now = after[key];
      const scalar = (v: unknown) => v === undefined || v === null || typeof v !== 'object';
      return scalar(was) && scalar(now) ? `${key} ${JSON.stringify(was ?? null)} → ${JSON.stringify(now ?? null)}` : key;
    });
}

function bundleChanges(folder: string, id: string, was: BundleRecord, now: BundleRecord): SubstrateChange[] {
  if ('error' in now) return [{ severity: 'error', file: `${folder}/plugin.yaml`, what: `${id}: its bundle no longer builds: ${now.error}` }];
  if ('error' in was) return [{ severity: 'error', file: `${folder}/${now.entry}`, what: `${id}: its bundle did not build when recorded and builds now (digest ${short(now.digest)})` }];
  if (was.digest === now.digest) return [];
  const parts: string[] = [];
  let first: string | undefined;
  for (const input of [...new Set([...Object.keys(was.inputs), ...Object.keys(now.inputs)])].sort()) {
    const a = was.inputs[input];
    const b = now.inputs[input];
    if (a === b) continue;
    first ??= input;
    parts.push(a === undefined ? `input ${input} added` : b === undefined ? `input ${input} removed` : `input ${input} changed (sha256 ${short(a)} → ${short(b)})`);
  }
  const why = parts.length > 0 ? parts.join('; ') : 'the same inputs bundle differently (the bundler or the kernel changed)';
  const file = first === undefined ? `${folder}/${now.entry}` : path.posix.normalize(`${folder}/${first.split(path.sep).join('/')}`);
  return [{ severity: 'error', file, what: `${id}: ${was.kind} bundle digest changed since recorded (${short(was.digest)} → ${short(now.digest)}): ${why}` }];
}

/** The folder key a plugin of `id` has now, when it moved to another folder of the search path. */
function movedTo(current: Substrate, id: string, recordedKeys: Record<string, unknown>): string | undefined {
  return Object.entries(current.plugins).find(([key, p]) => p.id === id && recordedKeys[key] === undefined)?.[0];
}

/**
 * Every difference between a recorded substrate and the current one. A recorded plugin is
 * matched by its folder, else by its id (it moved to another folder of the search path: a
 * warning, and its manifest and bundle are compared all the same). One that is nowhere is
 * gone (an error), unless it came from an outside folder the current search path does not
 * hold: that is `off-path`, an error naming the folder to pass.
 */
export function compareSubstrate(recorded: Substrate, current: Substrate): SubstrateChange[] {
  const changes: SubstrateChange[] = [];
  const searched = current.search_path ?? [];
  const matched = new Set<string>();
  for (const [folder, was] of Object.entries(recorded.plugins)) {
    let key = folder;
    let now = current.plugins[folder];
    if (now !== undefined && now.id !== was.id) now = undefined;
    if (now === undefined) {
      const moved = movedTo(current, was.id, recorded.plugins);
      if (moved !== undefined) {
        key = moved;
        now = current.plugins[moved]!;
        changes.push({ severity: 'warning', file: `${moved}/plugin.yaml`, what: `${was.id}: moved to another folder of the search path since it was recorded (from ${folder})`, ...(now.source ? { source: now.source } : {}) });
      }
    }
    if (now === undefined) {
      const refused = current.refused[folder];
      if (refused !== undefined) changes.push({ severity: 'error', file: `${folder}/plugin.yaml`, what: `${was.id}: the manifest no longer loads: ${refused}` });
      else if (was.source !== undefined && !searched.includes(was.source)) {
        changes.push({ severity: 'error', file: `${folder}/plugin.yaml`, kind: 'off-path', source: was.source, what: `${was.id}: recorded from an outside plugin folder that is not on this search path, so it was not checked` });
      } else if (was.source === undefined && folder.includes('/') && !searched.some((dir) => path.basename(dir) === folder.split('/')[0])) {
        // A record written before outside folders were recorded keeps only the folder's name.
        changes.push({ severity: 'error', file: `${folder}/plugin.yaml`, kind: 'off-path', what: `${was.id}: recorded from an outside plugin folder named "${folder.split('/')[0]}" that is not on this search path, so it was not checked` });
      } else changes.push({ severity: 'error', file: `${folder}/plugin.yaml`, what: `${was.id}: recorded plugin is gone`, ...(was.source ? { source: was.source } : {}) });
      continue;
    }
    matched.add(key);
    const source = now.source ? { source: now.source } : {};
    if (was.manifest.sha256 !== now.manifest.sha256) {
      const fields = changedFields(was.manifest.declared, now.manifest.declared);
      const detail = fields.length > 0 ? `fields changed: ${fields.join(', ')}` : 'no declared field changed (comments or formatting)';
      changes.push({
        severity: 'error',
        file: `${key}/plugin.yaml`,
        line: firstDifferentLine(was.manifest.text, now.manifest.text),
        what: `${was.id}: manifest changed since recorded (sha256 ${short(was.manifest.sha256)} → ${short(now.manifest.sha256)}); ${detail}`,
        ...source,
      });
    }
    changes.push(...bundleChanges(key, was.id, was.bundle, now.bundle).map((c) => ({ ...c, ...source })));
  }
  for (const [folder, now] of Object.entries(current.plugins)) {
    if (!matched.has(folder) && recorded.plugins[folder]?.id !== now.id) changes.push({ severity: 'warning', file: `${folder}/plugin.yaml`, what: `${now.id}: plugin added since the substrate was recorded`, ...(now.source ? { source: now.source } : {}) });
  }
  for (const [folder, message] of Object.entries(current.refused)) {
    if (recorded.plugins[folder] === undefined) changes.push({ severity: 'error', file: `${folder}/plugin.yaml`, what: `manifest does not load: ${message}` });
  }
  return changes;
}
