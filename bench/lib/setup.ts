/**
 * What every case shares: a scratch folder with its own build cache (so a run never depends
 * on, or changes, the project's `.cache/`), the shim with and without its V8 code cache,
 * the plugins, a broker built the way the kernel builds one, and the real Deno.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleEntry, type BuiltBundle } from '../../sandboxes/loader/bundle.ts';
import { CapabilityBroker } from '../../kernel/broker/broker.ts';
import { DENO_OPS } from '../../sandboxes/deno/index.ts';
import { type SandboxProfile } from '../../kernel/manifest/sandbox-profile.ts';
import { loadSandboxProfile } from '../../features/plugin-search/sandbox-profiles.ts';
import { parsePermissionFlags } from '../../features/sandbox-run/permission-flags.ts';
import { brokerContext, profileLayer } from '../../kernel/broker/context.ts';
import { PROJECT_ROOT } from '../../kernel/version.ts';
import { IsolateRuntime, type CompiledSource, type RuntimeOptions } from '../../sandboxes/isolate/isolate-runtime.ts';
import { loadShim, withCodeCache } from '../../sandboxes/isolate/shim-source.ts';
import type { SoakOptions } from './soak/options.ts';

export interface Budget {
  warmup: number;
  rounds: number;
}

export interface BenchContext {
  quick: boolean;
  /** --history-events: the long persona's size for the history case (default 1,000,000; --quick 50,000) */
  historyEvents?: number;
  /** the soak's flags as given (--minutes, --personas, --kill-every, --fault-every, ...; bench/lib/soak/options.ts) */
  soak?: Partial<Record<keyof SoakOptions, string>>;
  /** scratch folder, removed at the end */
  tmp: string;
  cacheDir: string;
  deno: string;
  denoDir: string;
  /** the shim as the kernel holds it after its first start: code cache in memory */
  shim: CompiledSource;
  /** the shim as on a first start: no code cache (and V8 asked to produce one) */
  shimNoCache: CompiledSource;
  log(line: string): void;
}

/** A compiled source exactly as a fresh bundle has it: no cached data, nothing stored. */
export function withoutCache(source: CompiledSource): CompiledSource {
  return { code: source.code, digest: source.digest, filename: source.filename };
}

export async function createContext(quick: boolean): Promise<BenchContext> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'rtc-bench-'));
  const cacheDir = path.join(tmp, 'cache');
  const denoDir = path.join(tmp, 'deno-dir');
  mkdirSync(denoDir, { recursive: true });
  const first = await loadShim(cacheDir);
  // One start produces the shim's code cache (written through onCachedData); reading it back gives the warm shim.
  primeCodeCache(first);
  const shim = await loadShim(cacheDir);
  if (!shim.cachedData) throw new Error('bench: the shim code cache was not produced');
  return {
    quick,
    tmp,
    cacheDir,
    deno: path.join(PROJECT_ROOT, 'node_modules', '.bin', 'deno'),
    denoDir,
    shim,
    shimNoCache: withoutCache(shim),
    log: (line) => process.stderr.write(`${line}\n`),
  };
}

export function trustedProfile(): SandboxProfile {
  return loadSandboxProfile('trusted');
}

/** A broker for one plugin or script, granted `flags` under `profile`, as kernel/broker/context.ts does it. */
export function brokerFor(profile: SandboxProfile, flags: readonly string[], cwd: string, env: Record<string, string>): CapabilityBroker {
  const layers = [{ label: 'flags', set: parsePermissionFlags(flags, cwd) }, profileLayer(profile, cwd)];
  return new CapabilityBroker(brokerContext({ subject: 'bench', layers, cwd, env, profile, limits: profile.limits }), DENO_OPS);
}

export function runtimeOptions(profile: SandboxProfile, broker: CapabilityBroker): RuntimeOptions {
  return { limits: profile.limits, webAssembly: profile.webAssembly, args: [], syncMode: 'callback', ops: broker, onOutput: () => undefined };
}

/** Compiles a source once in a throwaway isolate so its code cache lands on disk. */
function primeCodeCache(shim: CompiledSource, bundle?: CompiledSource): Promise<unknown> | undefined {
  const profile = trustedProfile();
  const runtime = IsolateRuntime.create(shim, runtimeOptions(profile, brokerFor(profile, [], os.tmpdir(), {})));
  if (!bundle) {
    runtime.dispose();
    return undefined;
  }
  return runtime.load(bundle).finally(() => runtime.dispose());
}

export interface BuiltPlugin {
  bundle: BuiltBundle;
  /** as a warm kernel holds it: code cache in memory */
  warm: CompiledSource;
  /** as on a first start */
  cold: CompiledSource;
}

/** Bundles a plugin into the bench cache and produces its code cache. */
export async function buildPlugin(ctx: BenchContext, entry: string): Promise<BuiltPlugin> {
  const bundle = await bundleEntry(entry, ctx.cacheDir);
  const filename = `file://${entry}`;
  await primeCodeCache(ctx.shim, withCodeCache(bundle.code, bundle.digest, filename, ctx.cacheDir));
  const warm = withCodeCache(bundle.code, bundle.digest, filename, ctx.cacheDir);
  if (!warm.cachedData) throw new Error(`bench: no code cache was produced for ${entry}`);
  return { bundle, warm, cold: withoutCache(warm) };
}

/** Runs the real Deno once, synchronously; throws with its stderr when it fails. */
export function denoRun(ctx: BenchContext, args: readonly string[], cwd: string): string {
  const result = spawnSync(ctx.deno, ['run', '--quiet', '--no-config', '--no-lock', ...args], {
    cwd,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', HOME: ctx.tmp, DENO_DIR: ctx.denoDir, DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1', BENCH_X: '1' },
  });
  if (result.status !== 0) throw new Error(`bench: deno ${args.join(' ')} failed (${result.status ?? result.signal}): ${result.stderr || result.error}`);
  return result.stdout;
}

export function denoVersion(ctx: BenchContext): string {
  const result = spawnSync(ctx.deno, ['--version'], { encoding: 'utf8' });
  return (result.stdout.split('\n')[0] ?? '').trim();
}

export function packageVersion(name: string): string {
  try {
    return (JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}
