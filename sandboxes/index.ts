/**
 * sandboxes/ as the kernel sees it: `defaultSandboxKit` is the SandboxKit (kernel/sandbox.ts)
 * the composition root hands the kernel. One `create` for both tiers (an isolate in this
 * process, or one resident in its own sandbox host process), over one shim (bundled once per
 * kit) and one build cache. Compiled code is kept per kit by label and digest, so a sandbox
 * rebuilt after a limit, an eviction or a new epoch compiles from the code cache in memory
 * and locates its errors through the source map read once.
 */
import type { SourceMap } from 'node:module';
import type { BuiltCode, ModuleLoader, Sandbox, SandboxKit, SandboxSpec } from '../kernel/sandbox.ts';
import { IsolateRuntime, type CompiledSource } from './isolate/isolate-runtime.ts';
import { InProcessSandbox } from './isolate/in-process-sandbox.ts';
import { loadShim, withCodeCache } from './isolate/shim-source.ts';
import { defaultCacheDir, readSourceMap } from './loader/bundle.ts';
import { locateError, parseSourceMap } from './loader/error-location.ts';
import { moduleLoader } from './loader/module-loader.ts';
import { ProcessSandbox } from './pool/process-sandbox.ts';
import { RemoteRuntime } from './pool/remote-runtime.ts';
import { DENO_EXTENSIONS } from './deno/index.ts';
import type { Extension } from '../kernel/broker/extension.ts';

/** A process-tier host above this resident size is killed, unless the profile says otherwise. */
const DEFAULT_RSS_CAP_MB = 512;

/** Compiled modules a kit keeps (label and digest): the plugins of a start, with room for replayed versions. */
const MAX_COMPILED = 256;

interface Compiled {
  source: CompiledSource;
  map: SourceMap | undefined;
}

export interface SandboxKitOptions {
  /** the build cache (default: RUNTIMECTL_CACHE_DIR, else the checkout's .cache) */
  cacheDir?: string;
  /**
   * the extensions the composition serves this kit's plugins besides the sandbox's own Deno
   * ops (a gate run's bindings, the storage bindings of persistence backends); none: Deno's alone
   */
  extensions?: readonly Extension[];
}

/** The loader alone (what a substrate check digests plugins with), over the same default cache. */
export function defaultModuleLoader(options: SandboxKitOptions = {}): ModuleLoader {
  return moduleLoader(options.cacheDir ?? defaultCacheDir());
}

export function defaultSandboxKit(options: SandboxKitOptions = {}): SandboxKit {
  const loader = defaultModuleLoader(options);
  const cacheDir = loader.cacheDir;
  let shim: Promise<CompiledSource> | undefined;
  const compiled = new Map<string, Compiled>();

  const compile = (label: string, bundle: BuiltCode): Compiled => {
    const key = `${label}\0${bundle.digest}`;
    let entry = compiled.get(key);
    if (entry) {
      compiled.delete(key);
    } else {
      // The map kept (and sealed) beside the bundle; without one (a recorded bundle built elsewhere) errors keep their bundle positions.
      entry = { source: withCodeCache(bundle.code, bundle.digest, label, cacheDir), map: parseSourceMap(readSourceMap(bundle.digest, cacheDir)) };
      if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value!);
    }
    compiled.set(key, entry);
    return entry;
  };

  const create = async (spec: SandboxSpec): Promise<Sandbox> => {
    const bundle = 'bundle' in spec.code ? spec.code.bundle : await loader.bundle(spec.code.entry);
    const code: BuiltCode = { code: bundle.code, digest: bundle.digest };
    const { source, map } = compile(spec.label, code);
    const locate = (error: unknown) => (spec.sourceRoot === undefined ? error : locateError(error, spec.label, map, spec.sourceRoot));
    const onOutput = spec.onOutput ?? (() => undefined);
    // Built on first use, once per kit; a failed build is not kept, so the next sandbox tries again.
    shim ??= loadShim(cacheDir).catch((error: unknown) => {
      shim = undefined;
      throw error;
    });
    if (spec.tier === 'process') {
      const runtime = await RemoteRuntime.start({ cacheDir, shim: await shim, source, limits: spec.limits, webAssembly: spec.webAssembly, rssCapMb: spec.rssCapMb ?? DEFAULT_RSS_CAP_MB, ops: spec.ops, onOutput });
      return new ProcessSandbox(runtime, code, locate);
    }
    const runtime = IsolateRuntime.create(await shim, { limits: spec.limits, webAssembly: spec.webAssembly, args: [], syncMode: 'callback', ops: spec.ops, onOutput });
    try {
      return new InProcessSandbox(runtime, code, await runtime.load(source), locate);
    } catch (error) {
      runtime.dispose();
      throw error;
    }
  };

  return { create, loader, extensions: [...DENO_EXTENSIONS, ...(options.extensions ?? [])] };
}
