/**
 * The loop driver: one persona in the kernel and its cycle, the same function for every
 * persona and every harness. The driver knows no step: it runs the steps the persona's
 * harness names (policies/harnesses/<id>.yaml), in order, each implemented by a feature and
 * registered by name (steps.ts), then its own last step, `record`:
 *
 *   boundary   the harness's boundary steps, before the cycle's trace opens: `review`
 *              (steps/review-step.ts), by default: proposals an operator accepted since the last
 *              cycle take effect (the review queue's applyAccepted), their records join the log
 *   <steps>    the harness's steps, in order (the science loop's: brain, usage, budget,
 *              skills, ledger, phase, decide; a step plugin by its id), handing each other
 *              typed values (kernel/loop/step-values.ts; the cycle's store is cycle-values.ts)
 *   record     the cycle's trace line (durable), one cycle event carrying the trace's hash
 *              and what the steps added, then the work steps left for after it (brain.json)
 *
 * Every plugin call of a cycle is recorded with the effects it made (features/cycle-recording), so
 * `runtimectl replay` can re-run the cycle against its record. Plugins get fresh isolates
 * every REPLAY_EPOCH_CYCLES cycles, which bounds how far back a replay of one cycle starts.
 *
 * A persona starts only when everything it names resolves (start-check.ts): the harness and
 * its steps, each plugin slot, each export a step will call, the programs and skills it needs.
 * A cycle never throws for bad input: steps record the reason and the next cycle starts
 * fresh. It throws only when the persona's own state cannot be written.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { HOST_SOURCES, type AuditEvent, type WorldSources } from '../../kernel/broker/op.ts';
import type { BindingImplementations } from '../../kernel/broker/bindings.ts';
import type { McpServerSpec } from '../../kernel/contracts/executor.ts';
import type { PersistenceBackend, PersistenceProvider } from '../../kernel/contracts/persistence.ts';
import { errorLine, isKernelError, kernelError } from '../../kernel/errors.ts';
import type { AppendResult } from '../../kernel/events/event-log.ts';
import type { LoadedPersona, PersonaProfile } from '../../kernel/personas/profile-schema.ts';
import { profileDsnOf } from '../profiles/profile-slots.ts';
import type { PluginRegistry } from '../../kernel/plugins/registry.ts';
import { pluginSearchPath, scanRegistry } from '../plugin-search/scan.ts';
import { ReviewQueue, reviewEventsOf, type ReviewQueueOptions } from '../review-queue/queue.ts';
import { evidenceDigest } from '../review-queue/evidence.ts';
import { readMirrorCursor, writeMirrorCursor } from '../review-queue/mirror.ts';
import { reviewPaths } from '../review-queue/paths.ts';
import { operatorHome, refuseInsideState, type OperatorTrust } from '../review-queue/operators.ts';
import type { RatifyContext } from '../review-queue/ratify.ts';
import { OperatorTrustSource, trustChangePayload } from '../review-queue/trust-source.ts';
import { PersonaProposals, type RunningSession } from './persona-proposals.ts';
import { scrubber, type Scrubber, type SecretValues } from '../secret-values/secret-values.ts';
import { ensurePersonaDir, ensureStateDir } from '../persistence/state/state-dir.ts';
import { lockPersonaWriter, selfHolder, type WriterLock } from '../persistence/state/writer-lock.ts';
import { CycleRecorder } from '../cycle-recording/cycle-recorder.ts';
import { pathCodec, type PathCodec } from '../cycle-recording/path-codec.ts';
import { TraceStore } from '../trace-store/trace-store.ts';
import { checkSubstrateAtStart, type SubstrateAtStart } from '../substrate/substrate-at-start.ts';
import { listToolsReport, callTool, toolCallLimits, toolPluginOf, type ToolHost, type ToolInfo, type ToolProblem } from './tools/call-tool.ts';
import { withCallMeter, type CallUsage } from '../plugin-host/call-usage.ts';
import { removeRelayPointer, TOOLS_SOCKET_ENV, ToolRelay, writeRelayPointer } from './tools/tool-relay.ts';
import { TOOL_TRACE_FILE } from '../trace-store/trace-store.ts';
import { KERNEL_VERSION } from '../../kernel/version.ts';
import type { ChildTrackerLike, SandboxKit } from '../../kernel/sandbox.ts';
import { resolveCommand } from '../../kernel/permissions/run-grants.ts';
import { systemClock, type Clock } from './clock.ts';
import { CYCLE_EVENT } from '../../kernel/loop/cycle-event.ts';
import { RECORD_STEP, REVIEW_STEP, type LoadedHarness } from '../../kernel/loop/harness.ts';
import { HarnessCatalog } from '../profiles/harness-catalog.ts';
import { REVIEW_VALUE, reviewStep, type ReviewAtBoundary } from './steps/review-step.ts';
import type { StepValueAccess } from '../../kernel/loop/step-values.ts';
import { CycleValues } from './cycle-values.ts';
import { hostPathScrubber, type PathScrubber } from '../persona-layout/host-paths.ts';
import { personaPaths, type PersonaPaths } from '../persona-layout/layout.ts';
import { PersonaPlugins } from './persona-plugins.ts';
import { personaPluginOptions, personaSecrets, type PluginLimits } from './plugin-options.ts';
import { DEFAULT_MAX_RESIDENT_ISOLATES, ResidentIsolates } from './resident-isolates.ts';
import { backendStartRefusal, checkPersonaStart, probePlugin } from './start-check.ts';
import type { CycleContext, LoopStep, PersonaContext, StepRegistry, ToolCallNote } from '../../kernel/loop/steps.ts';
import { fullScanHistory, type HistoryPart, type PersonaHistory } from './persona-history.ts';
import type { ScriptToolSpec } from './tools/script-spec.ts';
import type { ToolRunners } from './tools/runners.ts';

/** What the persona's plugins are given besides the kernel's own (the composition's part). */
export interface PersonaWiring {
  paths: PersonaPaths;
  profile: PersonaProfile;
  backend: PersistenceBackend;
  clock: Clock;
  /** the persona's event log, for bindings that append */
  log: { append(type: string, payload: Record<string, unknown>): Promise<AppendResult> };
  /** scrubs the persona's secret values (and host paths) out of what a binding writes */
  scrub: <T>(value: T) => T;
}

/**
 * What a composition hands the driver: the steps features registered, the persistence feature,
 * the harness manifests, and the few facts of a persona only features know (its plugins' CPU
 * and wall limits, extra environment, what its bindings do). The kernel imports none of them.
 */
export interface LoopComposition {
  /** the sandbox every plugin runs in (sandboxes/index.ts defaultSandboxKit), over the build cache `cacheDir` (default: the kit's own) */
  sandbox(options: { cacheDir?: string }): SandboxKit;
  /** how a persona's mounted MCP servers and skill scripts run (one set per persona's plugins, made over the kit) */
  tools(kit: SandboxKit): ToolRunners;
  steps: StepRegistry;
  persistence: PersistenceProvider;
  harnesses?: HarnessCatalog;
  /** CPU seconds per plugin call and an executor session's wall seconds, for this persona */
  limits(profile: PersonaProfile, env: Readonly<Record<string, string | undefined>>): PluginLimits;
  /** variables every plugin of the persona sees besides PATH, HOME and the profile's `env` */
  pluginEnv?(paths: PersonaPaths, profile: PersonaProfile): Record<string, string>;
  /** what the persona's bindings do (ledger, events, memory); the kernel adds `tools` */
  bindings?(wiring: PersonaWiring): BindingImplementations;
  /** the registry of the persona's running subprocesses (stops, crash markers), when the composition keeps one */
  tracker?(personaId: string): ChildTrackerLike;
  /** the persona's history: start from a checkpoint, seal segments, checkpoint at close (persona-history.ts) */
  history?: HistoryPart;
  /** the scripts of the persona's selected skills, offered as tools (their specs: features/persona/tools/script-spec.ts); none without it */
  scriptTools?(profile: PersonaProfile): Promise<ScriptToolSpec[]>;
}

export interface LoopOptions {
  stateDir: string;
  /** how messages name the state directory (default: as given in stateDir) */
  stateDirShown?: string;
  /** the process environment: budget and executor overrides, and what plugins may inherit */
  env: Readonly<Record<string, string | undefined>>;
  composition: LoopComposition;
  clock?: Clock;
  /** the plugins of this start; default: a scan of the built-in folder, RUNTIMECTL_PLUGIN_PATH and pluginPath */
  registry?: PluginRegistry;
  /** the built-in plugin folder (tests); default: the repository's plugins/ */
  pluginsDir?: string;
  /** more plugin folders (`--plugins-dir`), after RUNTIMECTL_PLUGIN_PATH */
  pluginPath?: readonly string[];
  cacheDir?: string;
  /** false: token-spending executors are never launched; everything else runs (default true) */
  spendTokens?: boolean;
  /**
   * where plugins' random bytes come from (default: the host's CSPRNG); with `clock`, it pins
   * the world plugins see, so the same inputs give the same bytes (tests, a re-run)
   */
  entropy?: (length: number) => Buffer;
  /** most plugin isolates kept alive across all personas (default 384); the rest are rebuilt on use */
  maxResidentIsolates?: number;
  /**
   * The MCP server an executor hands its harness for this persona (issue 19: `runtimectl mcp
   * serve --persona ID`); none by default. Its install is visible read-only in the OS sandbox.
   */
  mcpServer?: (personaId: string) => McpServerSpec | null;
  /**
   * The database of personas kept in Postgres, as `run --dsn` gives it: over each profile's
   * own (persistence.dsn_env, .dsn), which is over RUNTIMECTL_POSTGRES_DSN in `env`.
   */
  dsn?: string;
  /**
   * The start's substrate check when it was already done for this start (a worker thread of
   * `run --workers`: the main thread checks once, so every worker's persona_start reports it)
   */
  substrate?: SubstrateAtStart;
}

/** Plugins get fresh isolates every this many cycles: a replay of one cycle starts at most this far back. */
export const REPLAY_EPOCH_CYCLES = 32;

/** What every persona in one process shares: the checked env, the sandbox kit, the plugin registry. */
export interface LoopKernel {
  stateDir: string;
  env: Readonly<Record<string, string | undefined>>;
  clock: Clock;
  /** the composition's sandbox kit: every plugin of every persona of this kernel is created by it */
  sandbox: SandboxKit;
  registry: PluginRegistry;
  composition: LoopComposition;
  harnesses: HarnessCatalog;
  /** the kit's build cache (hidden from every sandboxed op and subprocess) */
  cacheDir: string;
  spendTokens: boolean;
  /** LoopOptions.dsn: the run's --dsn */
  dsn?: string;
  /** the clock and randomness plugins see: the loop's clock, so a pinned loop pins its plugins too */
  sources: WorldSources;
  /** the bound on live plugin isolates, shared by every persona of this kernel */
  resident: ResidentIsolates;
  /** what the start found of the substrate (manifest and bundle digests) against `<state>/substrate.json` */
  substrate: SubstrateAtStart;
  /** the operators whose signatures ratify review decisions, re-read at each cycle boundary when operators.json changed (features/review-queue/trust-source.ts) */
  trust: OperatorTrustSource;
  /** bundle exports found by loading each plugin once (start checks), by plugin folder */
  exportsSeen: Map<string, Promise<readonly string[]>>;
  mcpServer: (personaId: string) => McpServerSpec | null;
}

/** Checks the environment first (a bad override stops the start), then loads what is shared. */
export async function openLoopKernel(options: LoopOptions): Promise<LoopKernel> {
  for (const step of options.composition.steps.all()) step.checkEnvironment?.(options.env);
  // The driver's own step values, for step plugins that read them.
  options.composition.steps.values(REVIEW_VALUE);
  const stateDir = path.resolve(options.stateDir);
  // One line for a state directory that is a file, unreadable, or under /proc (where Node's own recursive mkdir spins forever).
  ensureStateDir(options.stateDirShown ?? options.stateDir, stateDir);
  const sandbox = options.composition.sandbox(options.cacheDir !== undefined ? { cacheDir: options.cacheDir } : {});
  const cacheDir = sandbox.loader.cacheDir;
  const clock = options.clock ?? systemClock;
  // A pinned clock is also the plugins' monotonic clock (its origin would otherwise be this
  // process's start, which a reboot moves).
  const sources: WorldSources = {
    now: clock,
    monotonic: options.clock ? clock : HOST_SOURCES.monotonic,
    randomBytes: options.entropy ?? HOST_SOURCES.randomBytes,
  };
  // The operators whose signed decisions take effect; their folder must be out of every persona's reach.
  if (existsSync(operatorHome(options.env))) refuseInsideState(operatorHome(options.env), stateDir);
  const trust = new OperatorTrustSource(options.env, stateDir);
  // One scan per start: every persona, the substrate check and the bindings use this registry.
  const registry =
    options.registry ?? scanRegistry(pluginSearchPath({ env: options.env, ...(options.pluginsDir ? { builtIn: options.pluginsDir } : {}), ...(options.pluginPath ? { dirs: options.pluginPath } : {}) }));
  const substrate = options.substrate ?? await checkSubstrateAtStart(stateDir, { loader: sandbox.loader, registry, now: () => new Date(clock()) });
  return {
    stateDir,
    env: options.env,
    clock,
    sources,
    substrate,
    trust,
    registry,
    composition: options.composition,
    harnesses: options.composition.harnesses ?? new HarnessCatalog(),
    resident: new ResidentIsolates(options.maxResidentIsolates ?? DEFAULT_MAX_RESIDENT_ISOLATES),
    sandbox,
    cacheDir,
    spendTokens: options.spendTokens ?? true,
    ...(options.dsn !== undefined && options.dsn.trim() !== '' ? { dsn: options.dsn } : {}),
    exportsSeen: new Map(),
    mcpServer: options.mcpServer ?? (() => null),
  };
}

/** A Postgres persona's database: the run's --dsn, else its profile's, else RUNTIMECTL_POSTGRES_DSN (undefined: the backend says none is named). */
export function personaDsn(kernel: Pick<LoopKernel, 'dsn' | 'env'>, profile: PersonaProfile): string | undefined {
  const fromEnv = kernel.env.RUNTIMECTL_POSTGRES_DSN;
  return kernel.dsn ?? profileDsnOf(profile, kernel.env)?.dsn ?? (fromEnv !== undefined && fromEnv.trim() !== '' ? fromEnv : undefined);
}

export type { ReviewAtBoundary } from './steps/review-step.ts';

/** A cycle's report: the loop's own fields, the event as written, and what the steps reported. */
export type CycleReport<R extends object = {}> = {
  persona_id: string;
  cycle: number;
  /** seq of the cycle event in the persona's log */
  seq: number;
  steps: string[];
  /** the event payload as written (after scrubbing) */
  payload: Record<string, unknown>;
} & R;

/** Cycles running now in each kernel: a step may do durable work off the main thread only when others can use it. */
const cyclesInFlight = new WeakMap<LoopKernel, number>();

/** Cycles of this kernel in flight right now (1 when only the asking one runs). */
export function cyclesRunning(kernel: LoopKernel): number {
  return cyclesInFlight.get(kernel) ?? 0;
}

/** How a persona is opened: to run its loop, for a tools session (calls, under the lock), or to list its tools (read-only, no lock). */
type OpenMode = 'run' | 'tools' | 'list';

export class PersonaRuntime {
  readonly profile: PersonaProfile;
  readonly persona: LoadedPersona;
  readonly paths: PersonaPaths;
  readonly harness: LoadedHarness;
  readonly limits: PluginLimits;
  readonly #kernel: LoopKernel;
  /** The persona's persistence backend (events, brain memory, ledger, proposals), open from open() to close(). */
  readonly #backend: PersistenceBackend;
  /** The persona's one-writer lock, held from open() to close() (writer-lock.ts). */
  readonly #lock: WriterLock;
  readonly #plugins: PersonaPlugins;
  readonly #scrub: PathScrubber;
  /** the persona's secret values and the pattern rules (features/secret-values/secret-values.ts) */
  readonly #secrets: Scrubber;
  readonly #trace: TraceStore;
  readonly #codec: PathCodec;
  readonly #steps: readonly LoopStep[];
  /** the harness's boundary steps (review), run before the cycle's trace opens */
  readonly #boundary: readonly LoopStep[];
  readonly #context: PersonaContext;
  /** sha256 of the profile text the persona opened with (kept in the trace's blobs) */
  readonly #profileDigest: string;
  /** the queue the cycle boundary applies through: its policy and storage are fixed at open, so it is built once */
  #boundaryQueue: ReviewQueue | undefined;
  /** set in open(), once the writer lock is held */
  #history!: PersonaHistory;
  #cycles = 0;
  #audit = { granted: 0, denied: [] as string[] };
  /** the kernel's end of the tool relay, while the persona has tools and an MCP server is handed to its harness */
  readonly #relay: ToolRelay | undefined;
  /**
   * The operator's relay while `run` runs a persona with tools: an operator's `tools call` (and
   * `mcp serve` run by hand) reaches this kernel through it (tools-relay.json names it), so the
   * call is made here, under this kernel's writer lock and in its log. Never visible in a sandbox.
   */
  readonly #operatorRelay: ToolRelay | undefined;
  /** the MCP server handed to the harness (with the relay's socket), or null */
  readonly #mcp: McpServerSpec | null;
  /** the cycle's recorder while one runs (tool calls made mid-cycle go in its trace) */
  #recorder: CycleRecorder | undefined;
  /** tool calls of this cycle (or of this tools-only session): usage against the cycle's budget, and what was called */
  #toolUse = { cpuMs: 0, wallMs: 0, called: [] as ToolCallNote[] };
  /** What the tool calls in flight hold of the budget (their limits), until each is charged what it used. */
  #toolHeld = { cpuMs: 0, wallMs: 0, calls: 0 };
  /** opened for tool calls only (`mcp serve`, `tools call`): each call is recorded on its own line of trace/tools.jsonl */
  #toolsOnly = false;
  /** opened to list tools only (read-only, no lock): a call is refused */
  #listing = false;
  #toolTrace: TraceStore | undefined;
  /** what the persona's agents propose, and what its event log hears of the queue (persona-proposals.ts) */
  readonly #proposals: PersonaProposals;
  /** the proposal log's last record this runtime's event log has (queue.ts `mirror`); set when the queue is first built */
  #mirror: { seq: number } | undefined;
  /** the mirror's seq as last written to review/event-mirror.json */
  #mirrorWritten = 0;
  /** the trust list version this persona's log last told of (0: the one the kernel started with) */
  #trustVersion = 0;
  /** the trust list as the last boundary found it */
  #trustNow: OperatorTrust;
  /** the executor session running now (its agent's MCP calls come from it) */
  #session: RunningSession | null = null;

  /** the scripts of the persona's selected skills, offered as tools */
  readonly #scripts: readonly ScriptToolSpec[];
  /** the kernel's plugins as this persona sees them: its profile's `trust:` granted (start-check.ts) */
  readonly #registry: PluginRegistry;

  private constructor(kernel: LoopKernel, persona: LoadedPersona, harness: LoadedHarness, steps: readonly LoopStep[], backend: PersistenceBackend, lock: WriterLock, scripts: readonly ScriptToolSpec[], registry: PluginRegistry, mode: OpenMode) {
    this.#kernel = kernel;
    this.#registry = registry;
    this.#scripts = scripts;
    this.persona = persona;
    this.profile = persona.profile;
    this.harness = harness;
    this.paths = personaPaths(kernel.stateDir, this.profile.id);
    this.limits = kernel.composition.limits(this.profile, kernel.env);
    this.#backend = backend;
    this.#lock = lock;
    const extraEnv = kernel.composition.pluginEnv?.(this.paths, this.profile) ?? {};
    // Secrets by value (the profile's env values) and by pattern, out of everything written or printed for this persona.
    this.#secrets = scrubber(personaSecrets(kernel.env, this.profile, extraEnv));
    this.#codec = pathCodec(kernel.stateDir, undefined, this.#secrets.json);
    const hostPaths = hostPathScrubber(kernel.stateDir);
    // Events: the values here; the event log itself redacts by pattern and key.
    this.#scrub = <T>(value: T) => this.#secrets.values(hostPaths(value));
    // A backend that keeps the trace itself (postgres: rows) hands its storage; otherwise the persona folder's files.
    this.#trace = new TraceStore(this.paths.dir, backend.trace ? { storage: backend.trace } : {});
    // The trace keeps the profile text each cycle ran under, so a replay needs no repository copy (a listing writes nothing).
    this.#profileDigest = mode === 'list' ? persona.digest : this.#trace.keep(persona.text);
    this.#steps = steps;
    this.#boundary = harness.manifest.boundary.filter((name) => name === REVIEW_STEP).map(() => reviewStep((now, problems) => this.#applyAccepted(now, problems)));
    const wiring: PersonaWiring = { paths: this.paths, profile: this.profile, backend, clock: kernel.clock, log: backend.events, scrub: this.#secrets.deep };
    this.#trustNow = kernel.trust.current().trust;
    this.#proposals = new PersonaProposals({
      profile: this.profile,
      personaDir: this.paths.dir,
      queue: () => this.#queue(),
      eventsAfter: (seq) => backend.events.readAfter(seq),
      clock: kernel.clock,
      append: (type, payload) => backend.events.append(type, this.#scrub(payload)),
      mirrored: () => this.#noteMirrored(),
      cycle: () => (this.#recorder ? this.#cycles + 1 : null),
      session: () => this.#session,
    });
    const handed = kernel.mcpServer(this.profile.id);
    // The server the harness starts reaches this kernel through the relay's socket (its folder visible read-only in the sandbox).
    const hasTools = this.profile.tools.length > 0 || scripts.length > 0 || this.#proposals.allowed;
    const relayed = { list: () => this.toolsReport(), call: (name: string, args: unknown, via: 'mcp' | 'cli') => this.callTool(name, args, via) };
    this.#relay = handed && hasTools ? new ToolRelay(relayed, { vias: ['mcp'] }) : undefined;
    this.#operatorRelay = mode === 'run' && hasTools ? new ToolRelay(relayed, { vias: ['mcp', 'cli'] }) : undefined;
    // A server that names the relay's variable (the bridge) is handed only with the relay: without
    // it, it would open the persona on its own, against this kernel's writer lock. Any other server is handed as given.
    const wantsRelay = handed?.env !== undefined && TOOLS_SOCKET_ENV in handed.env;
    const mcp: McpServerSpec | null = handed && this.#relay
      ? { ...handed, env: { ...(handed.env ?? {}), [TOOLS_SOCKET_ENV]: this.#relay.socketPath }, reads: [...(handed.reads ?? []), this.#relay.dir] }
      : wantsRelay ? null : handed;
    this.#mcp = mcp;
    const mcpProgram = mcp ? resolveCommand(mcp.command, { searchPath: kernel.env.PATH ?? '', cwd: this.paths.dir, base: process.cwd() }) : undefined;
    const tracker = kernel.composition.tracker?.(this.profile.id);
    const bindings: BindingImplementations = {
      ...(kernel.composition.bindings?.(wiring) ?? {}),
      tools: {
        list: async () => (await this.tools()).filter((t) => t.source !== 'kernel'),
        call: (name, args) => this.callTool(name, args, 'binding'),
      },
      proposals: this.#proposals.binding(),
    };
    this.#plugins = new PersonaPlugins(
      personaPluginOptions({
        stateDir: kernel.stateDir,
        scrub: this.#secrets,
        ...(tracker ? { tracker } : {}),
        ...(mcpProgram ? { programs: [mcpProgram] } : {}),
        ...(mcp?.reads ? { programReads: mcp.reads } : {}),
        profile: this.profile,
        hostEnv: kernel.env,
        limits: this.limits,
        extraEnv,
        kit: kernel.sandbox,
        tools: kernel.composition.tools,
        bindings,
        audit: (event) => this.#onAudit(event),
        sources: kernel.sources,
      }),
      registry,
      kernel.resident,
    );
    this.#context = {
      persona,
      profile: this.profile,
      harness,
      registry,
      env: kernel.env,
      stateDir: kernel.stateDir,
      paths: this.paths,
      backend,
      plugins: this.#plugins,
      state: new Map(),
      scrub: this.#scrub,
      secrets: this.#secrets,
      clock: kernel.clock,
      spendTokens: kernel.spendTokens,
      concurrentCycles: () => cyclesRunning(kernel),
      mcp: this.#mcp,
      tools: {
        offered: async () => {
          try {
            return (await this.tools()).map((t) => t.name);
          } catch {
            return null;
          }
        },
        calls: () => this.#toolUse.called.slice(),
        session: (running) => {
          this.#session = running;
        },
      },
      probe: (pluginId, kind, method, ...args) => probePlugin(kernel, this.profile, pluginId, kind, method, args),
    };
  }

  /**
   * Checks that everything the persona names can work (RTC_ERR_PERSONA_START with one line per
   * problem otherwise), opens its persistence backend (the profile's, or the one its state
   * directory records), reads its history from the events there, opens the events for appends
   * (writing `reboot` when there were events), lets each step set up, and writes `persona_start`.
   */
  static async open(kernel: LoopKernel, persona: LoadedPersona): Promise<PersonaRuntime> {
    const start: Record<string, unknown> = {};
    const runtime = await PersonaRuntime.#openPersona(kernel, persona, 'run', start);
    const backend = runtime.#backend;
    const substrate = kernel.substrate;
    await backend.events.append('persona_start', runtime.#scrub({
      persona_id: persona.profile.id,
      runtime: persona.profile.runtime,
      harness: runtime.harness.manifest.id,
      runtime_kind: runtime.harness.manifest.runtime_kind,
      kernel_version: KERNEL_VERSION,
      profile: { file: path.basename(persona.file), digest: persona.digest },
      persistence: backend.pluginId,
      tools: persona.profile.tools,
      ...start,
      substrate: { status: substrate.status, changes: substrate.changes.map((c) => `${c.file}${c.line ? `:${c.line}` : ''}: ${c.what}`) },
      history: runtime.#history.startup,
    }));
    return runtime;
  }

  /** The composition's history part, or one full read of the log when it has none (persona-history.ts). */
  #openHistory(): Promise<PersonaHistory> {
    const host = {
      persona: this.#context,
      trace: this.#trace,
      reviewQueue: () => this.#queue(),
      substrate: this.#kernel.substrate,
      append: (type: string, payload: Record<string, unknown>) => this.#backend.events.append(type, this.#scrub(payload)),
      // a tools session is no restart of the loop: no reboot event
      restart: !this.#toolsOnly,
    };
    const part = this.#kernel.composition.history;
    if (part) return part(host);
    return fullScanHistory(host, (event) => {
      for (const step of this.#steps) step.history?.(this.#context, event);
    });
  }

  /** What start-up found of the persona's history (checkpoint used, refused or absent; what it read). */
  get historyStartup(): Record<string, unknown> {
    return this.#history.startup;
  }

  get cycles(): number {
    return this.#cycles;
  }

  #onAudit(event: AuditEvent): void {
    if (event.decision === 'granted') this.#audit.granted += 1;
    else if (this.#audit.denied.length < 20) this.#audit.denied.push(`${event.subject} ${event.op} ${event.permission}:${event.value ?? '*'}`);
  }

  /** One cycle of the persona's harness. */
  async cycle(): Promise<CycleReport> {
    const k = this.#kernel;
    const p = this.profile;
    const now = k.clock();
    const cycle = this.#cycles + 1;
    const problems: string[] = [];
    this.#audit = { granted: 0, denied: [] };
    this.#proposals.beginCycle();
    const values = new CycleValues();
    const after: ((seq: number) => void | Promise<void>)[] = [];
    const ctx: Omit<CycleContext, keyof StepValueAccess> = {
      persona: this.#context,
      cycle,
      now,
      problems,
      payload: {},
      report: {},
      afterRecord: (work) => void after.push(work),
    };

    // the cycle boundary (review: accepted proposals take effect; their records join the log)
    for (const step of this.#boundary) await step.run({ ...ctx, ...values.for(step) });
    const review = values.for({ name: RECORD_STEP, uses: [REVIEW_VALUE] }).get(REVIEW_VALUE);
    // bounded replay: fresh isolates every REPLAY_EPOCH_CYCLES cycles
    if (cycle > 1 && (cycle - 1) % REPLAY_EPOCH_CYCLES === 0) this.#plugins.dispose();
    const recorder = new CycleRecorder(this.#trace, this.#codec, {
      persona: p.id,
      cycle,
      now,
      profile: this.#profileDigest,
      limits: { cpu_seconds: this.limits.cpu_seconds_per_cycle, wall_seconds: this.limits.wall_seconds_per_cycle },
    }, this.#secrets);
    this.#plugins.recorder = recorder;
    this.#recorder = recorder;
    this.#toolUse = { cpuMs: 0, wallMs: 0, called: [] };
    cyclesInFlight.set(k, (cyclesInFlight.get(k) ?? 0) + 1);
    try {
      return await this.#run({ ctx, values, after, review, recorder });
    } finally {
      cyclesInFlight.set(k, (cyclesInFlight.get(k) ?? 1) - 1);
      this.#plugins.recorder = undefined;
      this.#recorder = undefined;
    }
  }

  async #run(c: { ctx: Omit<CycleContext, keyof StepValueAccess>; values: CycleValues; after: ((seq: number) => void | Promise<void>)[]; review: ReviewAtBoundary | undefined; recorder: CycleRecorder }): Promise<CycleReport> {
    const p = this.profile;
    const { ctx, after } = c;
    const steps: string[] = [];
    // Each step sees only the values it declared (cycle-values.ts); payload, report and problems are the cycle's.
    for (const step of this.#steps) {
      await step.run({ ...ctx, ...c.values.for(step) });
      steps.push(step.name);
    }

    // record: the trace line (durable), the event that carries its hash, then what steps left for after it
    steps.push(RECORD_STEP);
    const trace = c.recorder.finish();
    const payload = this.#scrub({
      loop: this.harness.manifest.loop,
      cycle: ctx.cycle,
      steps,
      harness: this.harness.manifest.id,
      runtime_kind: this.harness.manifest.runtime_kind,
      runtime: p.runtime,
      persona_id: p.id,
      kernel_version: KERNEL_VERSION,
      profile_digest: this.persona.digest,
      ...ctx.payload,
      audit: this.#audit,
      ...(this.profile.tools.length > 0 ? { tools: this.#toolSummary() } : {}),
      // without a review boundary (boundary: []) proposals are queued, none applied
      review: { ...(c.review ?? { applied: [], expired: [] }), ...this.#proposals.cycleReport() },
      trace,
      problems: ctx.problems,
    });
    const { seq } = await this.#backend.events.append(CYCLE_EVENT, payload);
    this.#cycles = ctx.cycle;
    // Awaited before the cycle returns: an acknowledged cycle's brain.json survives kill -9.
    for (const work of after) await work(seq);
    // At the boundary, with the cycle's state durable: the history seals its open segment when due.
    await this.#history.afterCycle(ctx.now);
    return { ...ctx.report, persona_id: p.id, cycle: ctx.cycle, seq, steps, payload };
  }

  /**
   * Applies proposals accepted since the last cycle; a queue that cannot be read is a problem of
   * this cycle, never a stop. First the operator trust list is looked at again: a change made
   * while the kernel runs (`operator init`, `operator trust`, a hand edit) takes effect here,
   * and is told in the event log; a list that cannot be read holds every accepted proposal.
   */
  async #applyAccepted(now: number, problems: string[]): Promise<ReviewAtBoundary> {
    const trust = this.#kernel.trust.current();
    this.#trustNow = trust.trust;
    if (trust.version !== this.#trustVersion) {
      this.#trustVersion = trust.version;
      await this.#backend.events.append('operator_trust_changed', this.#scrub(trustChangePayload(trust)));
    }
    if (trust.trust.error !== undefined) problems.push(`operator trust list: cannot be read (${trust.trust.error}); no accepted proposal is applied until it is fixed`);
    try {
      // Accepted proposals take effect only when ratified by a trusted operator, their evidence unchanged (features/review-queue/ratify.ts).
      const outcome = this.#queue().applyAccepted({ now });
      await this.#proposals.record(outcome.events);
      for (const held of outcome.held) problems.push(`review queue: ${held.id} is accepted but not applied: ${held.reason}`);
      return { applied: outcome.applied.map((p) => p.id), expired: outcome.expired.map((p) => p.id), ...(outcome.held.length > 0 ? { held: outcome.held } : {}) };
    } catch (error) {
      problems.push(`review queue: ${errorLine(error)}`);
      await this.#proposals.record(reviewEventsOf(error));
      return { applied: [], expired: [] };
    }
  }

  /**
   * The queue every change of this runtime goes through (built once: its policy and storage
   * are fixed at open). It mirrors: each change also hands back what other processes appended
   * since the last one, starting from the log as it was when the persona opened.
   */
  #queue(): ReviewQueue {
    if (this.#boundaryQueue) return this.#boundaryQueue;
    const probe = this.reviewQueue();
    // Where the event log stands (mirror.ts): the cursor file, else (state from before it) the log's end, or its start for a persona that never ran.
    const kept = readMirrorCursor(probe.paths);
    const start = kept ?? (!probe.hasRecords() || this.#backend.events.isEmpty() ? 0 : probe.read().lastSeq);
    this.#mirror = { seq: start };
    this.#mirrorWritten = kept ?? -1;
    // Written now, so what another process appends before this persona's next start is copied then.
    this.#noteMirrored();
    return (this.#boundaryQueue = this.reviewQueue({ policy: this.profile.review, ratify: this.#ratifyContext(), mirror: this.#mirror }));
  }

  /** After a change's events are in the event log: where it stands, for the next start (mirror.ts). */
  #noteMirrored(): void {
    const mirror = this.#mirror;
    if (!mirror || mirror.seq === this.#mirrorWritten) return;
    try {
      writeMirrorCursor(reviewPaths(this.paths.dir), mirror.seq);
      this.#mirrorWritten = mirror.seq;
    } catch {
      // The next change tries again; at worst a restart copies a few records twice.
    }
  }

  /** What the ratification check needs: the trusted operators (as the last boundary found them), and the persona's evidence (its files and events). */
  #ratifyContext(): RatifyContext {
    const personaDir = this.paths.dir;
    const runtime = this;
    return {
      get trust() {
        return runtime.#trustNow;
      },
      evidenceDigest: (ref) => evidenceDigest(ref, { personaDir, eventsAfter: (seq) => this.#backend.events.readAfter(seq) }),
    };
  }

  /** Text with this persona's secrets (by value and pattern) replaced: for what the CLI prints about it. */
  scrubText(text: string): string {
    return this.#secrets.text(text);
  }

  /** The persona's secret values (names only are ever shown), for a CLI printing several personas. */
  get secrets(): SecretValues {
    return this.#secrets.secrets;
  }

  #toolHost(recorder?: CycleRecorder): ToolHost {
    return { profile: this.profile, registry: this.#registry, plugins: this.#plugins, scripts: this.#scripts, ...(recorder ? { recorder } : {}) };
  }

  /**
   * The tools the persona's profile selects, with their input schemas (a mounted server is
   * started to list its own), then the kernel's review tools when the persona may propose.
   */
  async tools(): Promise<ToolInfo[]> {
    return (await this.toolsReport()).tools;
  }

  /** The tools, and the selected tool plugins that could not list theirs. */
  async toolsReport(): Promise<{ tools: ToolInfo[]; problems: ToolProblem[] }> {
    const report = await listToolsReport(this.#toolHost());
    return { tools: [...report.tools, ...this.#proposals.tools()], problems: report.problems };
  }

  /** What the cycle event says of the tools: how many were offered, which were called, what they used. */
  #toolSummary(): Record<string, unknown> {
    const u = this.#toolUse;
    return { selected: this.profile.tools, calls: u.called.length, failed: u.called.filter((c) => !c.ok).length, called: [...new Set(u.called.map((c) => c.tool))], cpu_ms: Math.round(u.cpuMs), wall_ms: Math.round(u.wallMs) };
  }

  /**
   * Calls one of the persona's tools in its own isolate under its own grant (or through the
   * MCP server its plugin mounts), audited: each call is a `tool_call` event in the persona's
   * log, and is recorded in the cycle's trace while a cycle runs (a tool an executor's agent
   * calls mid-cycle), else on its own line of trace/tools.jsonl. CPU and wall time of the
   * cycle's tool calls count against its budget: once spent, a call is RTC_ERR_TOOL_BUDGET.
   * A call holds its own CPU and wall limits of the budget from its admission until it is
   * charged what it used (at least the limit that ended it), so calls made at once are
   * admitted only as far as the budget covers them all (issue 27, item 9b).
   * `via`: who asked (`binding`: a plugin through the tools binding; `mcp`: an MCP client through
   * the kernel's relay, an agent's session or `mcp serve`; `cli`: `tools call`).
   */
  async callTool(name: string, args: unknown, via: 'binding' | 'mcp' | 'cli' = 'binding'): Promise<unknown> {
    if (this.#listing) throw kernelError('RTC_ERR_TOOL_RELAY', `persona ${this.profile.id} was opened to list its tools only (read-only): a call needs the persona opened for tools`, { internal: true });
    if (this.#proposals.isTool(name)) return this.#callReviewTool(name, args, via);
    const started = performance.now();
    const plugin = toolPluginOf(this.#toolHost(), name);
    // Outside a cycle (a tools session, or an operator's call relayed to a running kernel between
    // cycles) the call is recorded on its own line of trace/tools.jsonl.
    const own = !this.#recorder ? this.#ownRecorder() : undefined;
    let outcome: { ok: true } | { ok: false; error: unknown } = { ok: true };
    let ran = false;
    let held: { cpuMs: number; wallMs: number } | undefined;
    // What the call used, reported by whatever ran it (call-usage.ts), whatever else runs at once.
    const meter: CallUsage = { cpuMs: 0, wallMs: 0 };
    try {
      held = this.#holdToolBudget(name);
      ran = true;
      return await withCallMeter(meter, () => callTool(this.#toolHost(own ?? this.#recorder), name, args));
    } catch (error) {
      // refused before the tool ran: nothing was used
      if (isKernelError(error) && ['RTC_ERR_TOOL_UNKNOWN', 'RTC_ERR_TOOL_ARGS', 'RTC_ERR_TOOL_BUDGET'].includes(error.code)) ran = false;
      outcome = { ok: false, error };
      throw error;
    } finally {
      if (held) this.#releaseToolBudget(held);
      const wallMs = Math.max(performance.now() - started, meter.wallMs);
      const cpuMs = ran ? meter.cpuMs : 0;
      const use = this.#toolUse;
      use.cpuMs += cpuMs;
      use.wallMs += ran ? wallMs : 0;
      const note: ToolCallNote = { tool: name, via, ok: outcome.ok, code: outcome.ok ? null : isKernelError(outcome.error) ? outcome.error.code : null, seq: null };
      use.called.push(note);
      const trace = own ? own.finish() : undefined;
      const appended = await this.#backend.events.append('tool_call', this.#scrub({
        persona_id: this.profile.id,
        tool: name,
        ...(plugin ? { plugin } : {}),
        via,
        cycle: this.#recorder ? this.#cycles + 1 : null,
        ok: outcome.ok,
        ...(outcome.ok ? {} : { error: errorLine(outcome.error), code: isKernelError(outcome.error) ? outcome.error.code : null }),
        usage: { cpu_ms: Math.round(cpuMs * 1000) / 1000, wall_ms: Math.round(wallMs * 1000) / 1000 },
        // a mounted server says how it was contained (bubblewrap, or why not): visible in every call it answers
        ...(plugin && this.#plugins.mountSandbox(plugin) ? { os_sandbox: this.#plugins.mountSandbox(plugin) } : {}),
        ...(trace && trace.calls > 0 ? { trace: { file: TOOL_TRACE_FILE, ...trace } } : {}),
      }));
      note.seq = appended.seq;
    }
  }

  /**
   * review.propose and review.proposals: the kernel's own tools, for an agent's session (a
   * plugin proposes through the proposals binding, which its manifest must declare). A refused
   * proposal is the tool's answer, and its tool_call event says it failed, with the code.
   */
  async #callReviewTool(name: string, args: unknown, via: 'binding' | 'mcp' | 'cli'): Promise<unknown> {
    const started = performance.now();
    let outcome: { ok: true } | { ok: false; code: string | null; error: string } = { ok: true };
    let held: { cpuMs: number; wallMs: number } | undefined;
    try {
      if (via === 'binding') {
        throw kernelError('RTC_ERR_TOOL_UNKNOWN', `tool ${name} is offered to agents' sessions; a plugin proposes through Runtimectl.bindings.proposals (declared in its plugin.yaml)`, { details: { tool: name } });
      }
      held = this.#holdToolBudget(name);
      const result = await this.#proposals.callTool(name, args, via);
      const answer = result as { status?: string; code?: string; message?: string };
      if (answer.status === 'refused') outcome = { ok: false, code: answer.code ?? null, error: `${answer.code}: ${answer.message}` };
      return result;
    } catch (error) {
      outcome = { ok: false, code: isKernelError(error) ? error.code : null, error: errorLine(error) };
      throw error;
    } finally {
      if (held) this.#releaseToolBudget(held);
      const wallMs = performance.now() - started;
      this.#toolUse.wallMs += wallMs;
      const note: ToolCallNote = { tool: name, via, ok: outcome.ok, code: outcome.ok ? null : outcome.code, seq: null };
      this.#toolUse.called.push(note);
      const appended = await this.#backend.events.append('tool_call', this.#scrub({
        persona_id: this.profile.id,
        tool: name,
        plugin: 'kernel',
        via,
        cycle: this.#recorder ? this.#cycles + 1 : null,
        ok: outcome.ok,
        ...(outcome.ok ? {} : { error: outcome.error, code: outcome.code }),
        usage: { cpu_ms: 0, wall_ms: Math.round(wallMs * 1000) / 1000 },
      }));
      note.seq = appended.seq;
    }
  }

  /**
   * Admits a call while the cycle's (or the session's) tool calls have neither spent nor hold
   * in flight its CPU and wall seconds, and holds the call's own limits of them until it ends;
   * RTC_ERR_TOOL_BUDGET once they are. Returns what the call holds.
   */
  #holdToolBudget(name: string): { cpuMs: number; wallMs: number } {
    const u = this.#toolUse;
    const h = this.#toolHeld;
    const cpu = this.limits.cpu_seconds_per_cycle * 1000;
    const wall = this.limits.wall_seconds_per_cycle * 1000;
    if (u.cpuMs + h.cpuMs >= cpu || u.wallMs + h.wallMs >= wall) {
      const inFlight = (spent: number, held: number, of: number) => `${Math.round(spent)} ms${h.calls > 0 ? ` and ${Math.round(held)} ms held by ${h.calls} call(s) in flight` : ''} of ${of} ms`;
      const which = u.cpuMs + h.cpuMs >= cpu ? `CPU time (${inFlight(u.cpuMs, h.cpuMs, cpu)})` : `wall time (${inFlight(u.wallMs, h.wallMs, wall)})`;
      throw kernelError('RTC_ERR_TOOL_BUDGET', `tool ${name}: persona ${this.profile.id}'s tool calls have spent the cycle's ${which}; no more tool calls until the next cycle`, {
        details: { tool: name, cpu_ms: Math.round(u.cpuMs), wall_ms: Math.round(u.wallMs), held_cpu_ms: Math.round(h.cpuMs), held_wall_ms: Math.round(h.wallMs), in_flight: h.calls },
      });
    }
    let limits: { cpuMs: number; wallMs: number } | undefined;
    try {
      limits = toolCallLimits(this.#toolHost(), name);
    } catch {
      // a tool that cannot be resolved is refused by callTool, naming why; it holds nothing
      limits = undefined;
    }
    const held = { cpuMs: limits?.cpuMs ?? 0, wallMs: limits?.wallMs ?? 0 };
    h.cpuMs += held.cpuMs;
    h.wallMs += held.wallMs;
    h.calls += 1;
    return held;
  }

  /** Gives back what #holdToolBudget held for a call, once the call has ended either way. */
  #releaseToolBudget(held: { cpuMs: number; wallMs: number }): void {
    this.#toolHeld.cpuMs -= held.cpuMs;
    this.#toolHeld.wallMs -= held.wallMs;
    this.#toolHeld.calls -= 1;
  }

  /** A recorder for one tool call outside any cycle, writing to trace/tools.jsonl. */
  #ownRecorder(): CycleRecorder {
    this.#toolTrace ??= new TraceStore(this.paths.dir, { file: TOOL_TRACE_FILE });
    return new CycleRecorder(this.#toolTrace, this.#codec, {
      persona: this.profile.id,
      cycle: this.#cycles,
      now: this.#kernel.clock(),
      profile: this.#profileDigest,
      limits: { cpu_seconds: this.limits.cpu_seconds_per_cycle, wall_seconds: this.limits.wall_seconds_per_cycle },
    }, this.#secrets);
  }

  /**
   * Opens the persona for tool calls only (`runtimectl mcp serve` without a running kernel,
   * `tools call`): its start is checked and its events opened for appends, but no step is
   * set up and no `persona_start` is written; every call is one `tool_call` event and one
   * line of trace/tools.jsonl. The persona must not be running in another process (its log
   * has one writer): under `runtimectl run`, `mcp serve` relays to that process instead.
   */
  static openForTools(kernel: LoopKernel, persona: LoadedPersona): Promise<PersonaRuntime> {
    return PersonaRuntime.#openPersona(kernel, persona, 'tools', {});
  }

  /**
   * Opens the persona to list its tools only (`tools list`): read-only, without the writer
   * lock, so it works while `run` runs the persona; its state is opened read-only, nothing is
   * written (no trace, no checkpoint, no event) and no tool may be called.
   */
  static openForToolList(kernel: LoopKernel, persona: LoadedPersona): Promise<PersonaRuntime> {
    return PersonaRuntime.#openPersona(kernel, persona, 'list', {});
  }

  /**
   * The one opening path of `open` and `openForTools`: the start check, the persistence backend
   * (the profile's, or the one its state directory records), the writer lock, the trace's
   * recovery, the history (through the composition's history part: the chain continues from
   * the checkpoint, and close() writes a shutdown checkpoint). `run` also sets up each step
   * (`start` collects what they add to persona_start) and the tool relay; `tools` sets up no
   * step and hands the harness no MCP server.
   */
  static async #openPersona(kernel: LoopKernel, persona: LoadedPersona, mode: OpenMode, start: Record<string, unknown>): Promise<PersonaRuntime> {
    const { harness, steps, backend: backendName, registry, scripts } = await checkPersonaStart(kernel, persona);
    const paths = personaPaths(kernel.stateDir, persona.profile.id);
    // The persona folder must exist for the backend's and the ledger's path checks; the brain step creates the rest.
    ensurePersonaDir(kernel.stateDir, persona.profile.id);
    const persistence = kernel.composition.persistence;
    let backend: PersistenceBackend;
    try {
      const dsn = personaDsn(kernel, persona.profile);
      backend = await persistence.open(paths.dir, backendName, { personaId: persona.profile.id, now: () => new Date(kernel.clock()), registry, ...(dsn ? { dsn } : {}), ...(mode === 'list' ? { readonly: true } : {}) });
    } catch (error) {
      throw backendStartRefusal(persona, error);
    }
    // One writer per persona, taken before the first read of its events: a second kernel (or a
    // tools session while `run` runs it) is refused here, naming the holder, instead of forking the log (issue 12).
    let lock: WriterLock;
    try {
      // A listing writes nothing: it takes no lock, so it works beside the persona's writer.
      lock = mode === 'list' ? { holder: selfHolder('tools list'), release: () => undefined } : await lockPersonaWriter(backend, mode);
    } catch (error) {
      await backend.close();
      throw error;
    }
    let runtime: PersonaRuntime | undefined;
    try {
      if (mode !== 'list' && backendName !== persistence.configured(paths.dir)) persistence.record(paths.dir, backendName);
      runtime = new PersonaRuntime(mode === 'run' ? kernel : { ...kernel, mcpServer: () => null }, persona, harness, steps, backend, lock, scripts, registry, mode);
      runtime.#toolsOnly = mode !== 'run';
      if (mode === 'list') {
        runtime.#listing = true;
        runtime.#history = { startup: {}, cycles: 0, afterCycle: async () => undefined, close: () => undefined };
        return runtime;
      }
      // A trace line a crash left without its seal is completed before anything new is recorded.
      await runtime.#trace.recover();
      for (const step of runtime.#steps) step.prepare?.(runtime.#context);
      runtime.#history = await runtime.#openHistory();
      runtime.#cycles = runtime.#history.cycles;
      if (mode === 'run') for (const step of runtime.#steps) await step.open?.(runtime.#context, start);
      await runtime.#relay?.listening;
      if (runtime.#operatorRelay) {
        await runtime.#operatorRelay.listening;
        writeRelayPointer(paths.dir, runtime.#operatorRelay.socketPath);
      }
      return runtime;
    } catch (error) {
      if (runtime) await runtime.#closeRelay();
      await backend.close();
      lock.release();
      throw error;
    }
  }

  /** The persistence backend holding this persona's state: `jsonl-fs`, `sqlite`. */
  get persistence(): string {
    return this.#backend.name;
  }

  /**
   * The persona's review queue over this runtime's own backend (proposals and long-term.md
   * where the events and brain are); what the loop applies accepted proposals through.
   */
  reviewQueue(options: Omit<ReviewQueueOptions, 'backend'> = {}): ReviewQueue {
    return new ReviewQueue(this.paths.dir, { ...options, backend: this.#backend });
  }

  async #closeRelay(): Promise<void> {
    await this.#relay?.close();
    if (this.#operatorRelay) {
      removeRelayPointer(this.paths.dir, this.#operatorRelay.socketPath);
      await this.#operatorRelay.close();
    }
  }

  /** Closes the relay, flushes the events, closes the history (a shutdown checkpoint), closes the backend and disposes the plugins' isolates. */
  async close(): Promise<void> {
    await this.#closeRelay();
    this.#plugins.dispose();
    try {
      await this.#backend.events.flush();
      await this.#history.close(this.#kernel.clock());
    } finally {
      this.#trace.close();
      this.#toolTrace?.close();
      try {
        await this.#backend.close();
      } finally {
        // Released only once the checkpoint is written and the backend closed: the next writer reads both.
        this.#lock.release();
      }
    }
  }
}
