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
 * atomically). Isolate plugins are digested by kernel/build's bundleEntry (the same digest
 * the sandbox runs; persistence backends are isolate plugins too). Paths are kept
 * relative (to the plugins folder, then to each plugin's folder): no host path is recorded.
 * The manifest text is kept (manifests are small and hold no secrets) so a change can be
 * placed at a line, and its parsed form so it can be named by field.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { bundleEntry, defaultCacheDir, sha256 } from '../build/bundle.ts';
import { isKernelError, kernelError } from '../errors.ts';
import { canonicalJson } from '../events/canonical.ts';
import { replaceFileDurably } from '../storage/persona-storage.ts';
import { PLUGINS_DIR, PluginRegistry, type LoadedPlugin } from '../plugins/registry.ts';
import { KERNEL_VERSION } from '../version.ts';

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
  version: z.string(),
  kind: z.string(),
  manifest: z.strictObject({ file: z.string(), sha256: digest, text: z.string(), declared: z.record(z.string(), z.unknown()) }),
  bundle: bundleSchema,
});

export const substrateSchema = z.strictObject({
  format: z.literal(SUBSTRATE_FORMAT),
  recorded_at: z.string(),
  kernel_version: z.string(),
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
  /** Bundle cache (tests); defaults to the kernel's. */
  cacheDir?: string;
  now?: () => Date;
}

/** A plugin's bundle digest (every kind runs in an isolate, persistence backends included). */
export async function pluginBundleRecord(plugin: LoadedPlugin, cacheDir: string = defaultCacheDir()): Promise<BundleRecord> {
  if (plugin.manifest.mcp) {
    // A mounted MCP server has no code of ours: what it is, is the server it declares.
    return { kind: 'mcp', entry: 'plugin.yaml', digest: sha256(canonicalJson(plugin.manifest.mcp)), inputs: {} };
  }
  const entry = plugin.manifest.entry!;
  try {
    const bundle = await bundleEntry(plugin.entry, cacheDir);
    return { kind: 'isolate', entry, digest: bundle.digest, inputs: bundle.inputs };
  } catch (error) {
    if (!isKernelError(error)) throw error;
    return { error: error.toLine() };
  }
}

/** The substrate as it is now (nothing written). */
export async function currentSubstrate(options: SubstrateOptions = {}): Promise<Substrate> {
  const registry = options.registry ?? PluginRegistry.scan(options.pluginsDir ?? PLUGINS_DIR);
  const builtIn = registry.roots[0];
  const cacheDir = options.cacheDir ?? defaultCacheDir();
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
      version: plugin.manifest.version,
      kind: plugin.manifest.kind,
      manifest: { file: `${folder}/plugin.yaml`, sha256: sha256(text), text, declared: JSON.parse(JSON.stringify(declared)) as Record<string, unknown> },
      bundle: await pluginBundleRecord(plugin, cacheDir),
    };
  }
  const refused: Substrate['refused'] = {};
  for (const r of scan.refused) refused[keyOf(r.dir)] = r.error.toLine();
  return { format: SUBSTRATE_FORMAT, recorded_at: (options.now ?? (() => new Date()))().toISOString(), kernel_version: KERNEL_VERSION, plugins, refused };
}

/** Records the substrate in `<state>/substrate.json` (atomically) and returns it. */
export async function recordSubstrate(stateDir: string, options: SubstrateOptions = {}): Promise<Substrate> {
  const substrate = await currentSubstrate(options);
  try {
    replaceFileDurably(path.join(stateDir, SUBSTRATE_FILE), `${JSON.stringify(substrate, null, 2)}\n`);
  } catch (error) {
    throw kernelError('RTC_ERR_SUBSTRATE_RECORD', `cannot write ${SUBSTRATE_FILE} in the state directory (${(error as Error).message.split('\n')[0]})`, { cause: error });
  }
  return substrate;
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

/** Every difference between a recorded substrate and the current one. */
export function compareSubstrate(recorded: Substrate, current: Substrate): SubstrateChange[] {
  const changes: SubstrateChange[] = [];
  for (const [folder, was] of Object.entries(recorded.plugins)) {
    const now = current.plugins[folder];
    if (now === undefined) {
      const refused = current.refused[folder];
      changes.push(
        refused !== undefined
          ? { severity: 'error', file: `${folder}/plugin.yaml`, what: `${was.id}: the manifest no longer loads: ${refused}` }
          : { severity: 'error', file: `${folder}/plugin.yaml`, what: `${was.id}: recorded plugin is gone` },
      );
      continue;
    }
    if (was.manifest.sha256 !== now.manifest.sha256) {
      const fields = changedFields(was.manifest.declared, now.manifest.declared);
      const detail = fields.length > 0 ? `fields changed: ${fields.join(', ')}` : 'no declared field changed (comments or formatting)';
      changes.push({
        severity: 'error',
        file: `${folder}/plugin.yaml`,
        line: firstDifferentLine(was.manifest.text, now.manifest.text),
        what: `${was.id}: manifest changed since recorded (sha256 ${short(was.manifest.sha256)} → ${short(now.manifest.sha256)}); ${detail}`,
      });
    }
    changes.push(...bundleChanges(folder, was.id, was.bundle, now.bundle));
  }
  for (const [folder, now] of Object.entries(current.plugins)) {
    if (recorded.plugins[folder] === undefined) changes.push({ severity: 'warning', file: `${folder}/plugin.yaml`, what: `${now.id}: plugin added since the substrate was recorded` });
  }
  for (const [folder, message] of Object.entries(current.refused)) {
    if (recorded.plugins[folder] === undefined) changes.push({ severity: 'error', file: `${folder}/plugin.yaml`, what: `manifest does not load: ${message}` });
  }
  return changes;
}
