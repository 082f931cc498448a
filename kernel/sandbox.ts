/**
 * The sandbox as the kernel needs it, owned here and implemented elsewhere (sandboxes/index.ts
 * `defaultSandboxKit`): the kernel creates a sandbox for a plugin's code, calls its exports,
 * reads what it used and disposes it; how the isolate is built (in this process, or resident
 * in a sandbox host process), where the shim comes from, how code is bundled and cached is
 * the implementation's. The composition root hands a kit in (LoopComposition.sandbox, the
 * `kit` of a PluginInstance), as Deno's runtime is handed the extensions it composes; the
 * kernel imports nothing of sandboxes/.
 */
import type { Extension } from './broker/extension.ts';
import type { KernelFiles } from './broker/op.ts';
import type { Limits } from './manifest/sandbox-profile.ts';

/** What answers the ops an isolate asks for: the broker (or a pipe to it). */
export interface OpHandler {
  sync(op: string, argsJson: string): string;
  async(op: string, argsJson: string): Promise<string>;
  /**
   * either kind, by the op's own mode (used where every op arrives as a message); with
   * `deliver`, the handler hands the answer on through it (and holds the op's place in its
   * run until the answer is delivered: the pipe's backlog is bounded by the run's caps)
   */
  any(op: string, argsJson: string, deliver?: (answer: string) => Promise<void>): Promise<string>;
}

/** Code as a sandbox runs it: one bundle, named by the sha256 of its code. */
export interface BuiltCode {
  code: string;
  digest: string;
}

export interface SandboxSpec {
  /** what errors and the code cache call it: `plugin:<id>` */
  label: string;
  /** the module to bundle, or a bundle already built (a replay runs the recorded one) */
  code: { entry: string } | { bundle: BuiltCode };
  /** the profile's tier: an isolate in this process, or one resident in its own sandbox host process */
  tier: 'in-process' | 'process';
  limits: Limits;
  webAssembly: boolean;
  /** process tier: a host process above this resident size is killed */
  rssCapMb?: number;
  ops: OpHandler;
  onOutput?(fd: 1 | 2, text: string): void;
  /** errors thrown by the code name their place relative to this folder (a plugin's), through the bundle's source map */
  sourceRoot?: string;
}

/**
 * One loaded module in its isolate. A call that breaks a limit throws the named kernel error
 * (`isLimit`); the sandbox is then of no further use and its owner disposes it and creates a
 * fresh one. Errors thrown by the code are located in its sources when a source map is known.
 */
export interface Sandbox {
  /** the functions the module really exports (found by loading it) */
  readonly exportNames: readonly string[];
  /** the code the sandbox runs */
  readonly bundle: BuiltCode;
  readonly disposed: boolean;
  call(name: string, args: readonly unknown[]): Promise<unknown>;
  /** in-process tier only: the call end to end on this thread (the export must not return a promise) */
  callSync?(name: string, args: readonly unknown[]): unknown;
  /** CPU time the isolate has spent so far (0 once disposed) */
  usage(): { cpuMs: number };
  dispose(): void;
}

export type CreateSandbox = (spec: SandboxSpec) => Promise<Sandbox>;

/** How code becomes a bundle: what the substrate check and replay digest, and the cache every sandbox of the kit shares. */
export interface ModuleLoader {
  /** the build cache (bundles, code caches, source maps): hidden from every sandboxed op and subprocess */
  readonly cacheDir: string;
  /** the entry's bundle (from the cache when its inputs are unchanged), with the sha256 of each input file by its path relative to the entry's folder */
  bundle(entry: string): Promise<BuiltCode & { inputs: Record<string, string> }>;
  /** the loader's own files no sandboxed op reaches, whatever its grant: its cache and the cache's integrity key */
  protectedFiles(): KernelFiles;
}

/** What the composition root hands the kernel: one per process and cache folder. */
export interface SandboxKit {
  create: CreateSandbox;
  loader: ModuleLoader;
  /**
   * every op extension this kit's plugins are served: the sandbox's own (sandboxes/deno: Deno's
   * surface and its subprocess ops) and what the composition adds (a gate run's bindings, the
   * storage bindings); each plugin's broker answers these and the persona's bindings
   * (features/plugin-host/binding-ops.ts)
   */
  extensions: readonly Extension[];
}

/**
 * The kernel's registry of running children as a sandbox's subprocess runner reports to it
 * (sandboxes/subprocess ChildTracker is one): it may refuse a start (the kernel is stopping)
 * and hears of each child's start and end. The child and the record are the runner's own.
 */
export interface ChildTrackerLike {
  admit(command: string): void;
  started(child: unknown): void;
  ended(child: unknown, record?: unknown): void;
}

/**
 * What the OS sandbox around a subprocess shows beyond what its grant says (the kernel's
 * trees it masks, the persona's own folder under them, the extra programs an executor's
 * harness starts): sandboxes/subprocess/os-sandbox plans the view from the grant and this.
 */
export interface OsSandboxView {
  /** kernel-owned trees masked even under a broad grant: the state root, the kernel's cache */
  hide: readonly string[];
  /** the one tree beneath `hide` a grant may still reach: the persona's own folder */
  own?: string;
  /** HOME inside the sandbox (a provider home); the grant must let the child write it */
  home?: string;
  /** more programs whose install is visible read-only (an MCP server the harness starts) */
  programs?: readonly string[];
  /** more trees visible read-only that such a program needs (the MCP server's own code) */
  readOnly?: readonly string[];
  /**
   * kernel trees bound read-write for a child that is the kernel itself (`Deno.execPath()`'s
   * `runtimectl deno`: its build cache), which keeps them from the code it runs as this
   * kernel does; never under `hide`
   */
  kernelWrite?: readonly string[];
}
