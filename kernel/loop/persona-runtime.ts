/**
 * One persona in the kernel: its profile, event log, skills, plugins and probes, and the
 * `continuous_science_loop` cycle, the same function for every persona and every runtime
 * target. The eight steps run in the spec's order:
 *
 *   1 brain   create or load brain/ (brain.json, long-term.md, sessions, workspace, artifacts)
 *   2 usage   tokens and sessions of the last 24 h, from the persona's own event log
 *   3 budget  the posture: env over profile; the wallet is advisory; no daily budget = read-only
 *   4 skills  shared and persona skills selected by the profile's names and globs
 *   5 ledger  bootstrap or inspect the persona's local task ledger (orchestra/)
 *   6 phase   the activity phase, taken in turn from the profile
 *   7 decide  the idempotent probes find the work; then defer or execute (decide.ts)
 *   8 record  the cycle's trace line, one `continuous_loop_cycle` event, then brain.json
 *
 * At the cycle boundary, before step 1, proposals an operator accepted since the last cycle
 * take effect (the review queue's applyAccepted) and their records join the event log.
 *
 * Every plugin call of a cycle is recorded with the effects it made (kernel/replay): the
 * trace line is written durably before the event, and the event carries the trace's hash,
 * so `runtimectl replay` can re-run the cycle against its record. Plugins get fresh isolates
 * every REPLAY_EPOCH_CYCLES cycles, which bounds how far back a replay of one cycle starts.
 *
 * Events, brain memory (brain.json, long-term.md) and the ledger go through the persona's
 * persistence backend (features/persistence), opened once in open() and closed in close().
 *
 * A cycle never throws for bad input (an unknown plugin, a failing skill, a missing or
 * failing executor binary, an executor past its wall limit): it records the reason and the
 * next cycle starts fresh. It throws only when the persona's own state cannot be written.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { AuditEvent, WorldSources } from '../broker/op.ts';
import { HOST_SOURCES } from '../broker/ops/entropy.ts';
import { defaultCacheDir } from '../build/bundle.ts';
import { readAgentEnv, type AgentEnv } from '../../features/science-loop/budget/env.ts';
import { budgetLimits, derivePosture, type BudgetLimits, type BudgetPosture } from '../../features/science-loop/budget/posture.ts';
import { CYCLE_EVENT, INTERRUPTED_EVENT, setAsideUsageOfEvent, UsageWindow, usageOfEvent } from '../../features/science-loop/budget/usage.ts';
import { kernelError } from '../errors.ts';
import { chooseExecutor, type ExecutorChoice } from '../../features/science-loop/executors/choice.ts';
import { ChildRegistry, recoverLeftSessions, type PersonaChildren } from '../../features/science-loop/executors/children.ts';
import type { McpServerSpec } from '../contracts/executor.ts';
import { resolveExecutable } from '../../sandboxes/subprocess/run-command.ts';
import { markSessionManifest, preparePersonaWorkspace } from '../../features/science-loop/executors/session-dir.ts';
import type { PersistenceBackend } from '../contracts/persistence.ts';
import { openBackend } from '../../features/persistence/open.ts';
import type { LoadedPersona } from '../personas/load.ts';
import { runtimeKindOf, type PersonaProfile } from '../personas/profile-schema.ts';
import { ReviewQueue, type ReviewQueueOptions } from '../review/queue.ts';
import { loadSkillCatalog, type SkillCatalog } from '../../features/skills/catalog.ts';
import { CycleRecorder } from '../replay/cycle-recorder.ts';
import { pathCodec, type PathCodec } from '../replay/path-codec.ts';
import { TraceStore } from '../replay/trace-store.ts';
import { REPO_SKILLS_DIR, skillRootsForPersona } from '../../features/skills/layout.ts';
import { selectSkills, unknownSkillNames, unmatchedPatterns } from '../../features/skills/select.ts';
import { checkSubstrateAtStart, type SubstrateAtStart } from '../substrate/substrate-at-start.ts';
import { KERNEL_VERSION } from '../version.ts';
import { loadShim } from '../../sandboxes/isolate/shim-source.ts';
import type { CompiledSource } from '../../sandboxes/isolate/isolate-runtime.ts';
import { loadBrain, RECENT_CYCLES, saveBrainDurably, scrubBrain, type Brain } from '../../features/science-loop/brain.ts';
import { ensurePersonaDir, ensureStateDir } from '../storage/state-dir.ts';
import { lockPersonaWriter, type WriterLock } from '../storage/writer-lock.ts';
import { evidenceDigest } from '../review/evidence.ts';
import { loadOperatorTrust, operatorHome, refuseInsideState, type OperatorTrust } from '../review/operators.ts';
import type { RatifyContext } from '../review/ratify.ts';
import { systemClock, type Clock } from './clock.ts';
import { act, errorLine, estimateUsage, type ActResult } from '../../features/science-loop/decide.ts';
import { hostPathScrubber, type PathScrubber } from './host-paths.ts';
import { ensureBrainLayout, personaPaths, relToState, WORKSPACE_ID, type PersonaPaths } from './layout.ts';
import { LedgerInspector } from '../../features/science-loop/ledger-inspection.ts';
import { personaBindings } from './persona-bindings.ts';
import { PersonaPlugins, PluginDirectory } from './persona-plugins.ts';
import { personaPluginOptions, personaSecrets } from './plugin-options.ts';
import { ledgerEnv } from '../../features/ledger/layout.ts';
import { scrubber, type Scrubber, type SecretValues } from '../redact/secret-values.ts';
import { DEFAULT_MAX_RESIDENT_ISOLATES, ResidentIsolates } from './resident-isolates.ts';
import { findWork, type ProbeRecord } from '../../features/science-loop/probes.ts';

export const CYCLE_STEPS = ['brain', 'usage', 'budget', 'skills', 'ledger', 'phase', 'decide', 'record'] as const;

export interface LoopOptions {
  stateDir: string;
  /** how messages name the state directory (default: as given in stateDir) */
  stateDirShown?: string;
  /** the process environment: budget and executor overrides, and what plugins may inherit */
  env: Readonly<Record<string, string | undefined>>;
  clock?: Clock;
  pluginsDir?: string;
  skillsDir?: string;
  cacheDir?: string;
  /** false: token-spending executors are never launched; everything else runs (default true) */
  spendTokens?: boolean;
  /**
   * where plugins' random bytes come from (default: the host's CSPRNG); with `clock`, it pins
   * the world plugins see, so the same inputs give the same bytes (tests, a re-run)
   */
  entropy?: (length: number) => Buffer;
  /** most plugin isolates kept alive across all personas (default 256); the rest are rebuilt on use */
  maxResidentIsolates?: number;
  /**
   * The MCP server an executor hands its harness for this persona (issue 19: `runtimectl mcp
   * serve --persona ID`); none by default. Its install is visible read-only in the OS sandbox.
   */
  mcpServer?: (personaId: string) => McpServerSpec | null;
}

/** Plugins get fresh isolates every this many cycles: a replay of one cycle starts at most this far back. */
export const REPLAY_EPOCH_CYCLES = 32;

/** What every persona in one process shares: the checked env, the shim, the plugin directory. */
export interface LoopKernel {
  stateDir: string;
  env: Readonly<Record<string, string | undefined>>;
  agentEnv: AgentEnv;
  clock: Clock;
  shim: CompiledSource;
  directory: PluginDirectory;
  skillsDir: string;
  cacheDir: string;
  spendTokens: boolean;
  /** the clock and randomness plugins see: the loop's clock, so a pinned loop pins its plugins too */
  sources: WorldSources;
  /** the bound on live plugin isolates, shared by every persona of this kernel */
  resident: ResidentIsolates;
  /** what the start found of the substrate (manifest and bundle digests) against `<state>/substrate.json` */
  substrate: SubstrateAtStart;
  /** the operators whose signatures ratify review decisions (kernel/review/operators.ts) */
  trust: OperatorTrust;
  /** every subprocess the personas' plugins have running: a stop reaches them all */
  children: ChildRegistry;
  mcpServer: (personaId: string) => McpServerSpec | null;
}

/** Checks the environment first (a bad override stops the start), then loads what is shared. */
export async function openLoopKernel(options: LoopOptions): Promise<LoopKernel> {
  const agentEnv = readAgentEnv(options.env);
  const stateDir = path.resolve(options.stateDir);
  // One line for a state directory that is a file, unreadable, or under /proc (where Node's own recursive mkdir spins forever).
  ensureStateDir(options.stateDirShown ?? options.stateDir, stateDir);
  const cacheDir = options.cacheDir ?? defaultCacheDir();
  const clock = options.clock ?? systemClock;
  // A pinned clock is also the plugins' monotonic clock (its origin would otherwise be this
  // process's start, which a reboot moves).
  const sources: WorldSources = {
    now: clock,
    monotonic: options.clock ? clock : HOST_SOURCES.monotonic,
    randomBytes: options.entropy ?? HOST_SOURCES.randomBytes,
  };
  // The operators whose signed decisions take effect; their folder must be out of every persona's reach.
  const trust = loadOperatorTrust(options.env);
  if (existsSync(operatorHome(options.env))) refuseInsideState(operatorHome(options.env), stateDir);
  const substrate = await checkSubstrateAtStart(stateDir, { cacheDir, ...(options.pluginsDir ? { pluginsDir: options.pluginsDir } : {}), now: () => new Date(clock()) });
  return {
    stateDir,
    env: options.env,
    agentEnv,
    clock,
    sources,
    substrate,
    trust,
    resident: new ResidentIsolates(options.maxResidentIsolates ?? DEFAULT_MAX_RESIDENT_ISOLATES),
    shim: await loadShim(cacheDir),
    directory: new PluginDirectory(options.pluginsDir),
    skillsDir: options.skillsDir ?? REPO_SKILLS_DIR,
    cacheDir,
    spendTokens: options.spendTokens ?? true,
    children: new ChildRegistry(),
    mcpServer: options.mcpServer ?? (() => null),
  };
}

/** Values of the variables a persona hands its plugins by name (API keys): scrubbed from recorded error text. */
function secretValues(env: Readonly<Record<string, string | undefined>>, names: readonly string[]): string[] {
  const out: string[] = [];
  for (const pattern of names) {
    for (const [name, value] of Object.entries(env)) {
      if (typeof value !== 'string' || value === '') continue;
      if (pattern.endsWith('*') ? name.startsWith(pattern.slice(0, -1)) : name === pattern) out.push(value);
    }
  }
  return out;
}

/** What the cycle boundary did with the review queue: proposal ids applied and expired. */
export interface ReviewAtBoundary {
  applied: string[];
  expired: string[];
}

export interface CycleReport {
  persona_id: string;
  cycle: number;
  /** seq of the cycle event in the persona's log */
  seq: number;
  phase: string;
  outcome: ActResult['outcome'];
  defer_reason: string | null;
  executor: string;
  steps: string[];
  posture: BudgetPosture;
  act: ActResult;
  probes: ProbeRecord[];
  /** the event payload as written (after scrubbing) */
  payload: Record<string, unknown>;
}

/** Cycles running now in each kernel: step 8 writes brain.json off the main thread only when others can use it. */
const cyclesInFlight = new WeakMap<LoopKernel, number>();

export class PersonaRuntime {
  readonly profile: PersonaProfile;
  readonly persona: LoadedPersona;
  readonly paths: PersonaPaths;
  readonly choice: ExecutorChoice;
  readonly limits: BudgetLimits;
  readonly #kernel: LoopKernel;
  /** The persona's persistence backend (events, brain memory, ledger, proposals), open from open() to close(). */
  readonly #backend: PersistenceBackend;
  /** The persona's one-writer lock, held from open() to close() (writer-lock.ts). */
  readonly #lock: WriterLock;
  readonly #usage: UsageWindow;
  readonly #catalog: SkillCatalog;
  readonly #plugins: PersonaPlugins;
  readonly #scrub: PathScrubber;
  /** the persona's secret values and the pattern rules (kernel/redact/secret-values.ts) */
  readonly #secrets: Scrubber;
  readonly #trace: TraceStore;
  readonly #codec: PathCodec;
  /** sha256 of the profile text the persona opened with (kept in the trace's blobs) */
  readonly #profileDigest: string;
  /** step 5; keeps the last inspection while the ledger's files are unchanged (ledger-inspection.ts) */
  readonly #ledger: LedgerInspector;
  /** step 4's answer: the catalog (loaded at open) and the profile's patterns never change, so it is computed once */
  readonly #skills: { selected: ReturnType<typeof selectSkills>; unmatched: string[] };
  /** the queue the cycle boundary applies through: its policy and storage are fixed at open, so it is built once */
  #boundaryQueue: ReviewQueue | undefined;
  #cycles: number;
  #audit = { granted: 0, denied: [] as string[] };
  readonly #children: PersonaChildren;
  readonly #mcp: McpServerSpec | null;

  private constructor(kernel: LoopKernel, persona: LoadedPersona, parts: { backend: PersistenceBackend; lock: WriterLock; usage: UsageWindow; catalog: SkillCatalog; cycles: number; trace: TraceStore; profileDigest: string }) {
    this.#kernel = kernel;
    this.persona = persona;
    this.profile = persona.profile;
    this.paths = personaPaths(kernel.stateDir, this.profile.id);
    this.choice = chooseExecutor(this.profile, kernel.agentEnv);
    this.limits = budgetLimits(this.profile, kernel.agentEnv);
    this.#backend = parts.backend;
    this.#lock = parts.lock;
    this.#usage = parts.usage;
    this.#catalog = parts.catalog;
    this.#cycles = parts.cycles;
    this.#trace = parts.trace;
    this.#profileDigest = parts.profileDigest;
    // Secrets by value (the profile's env values) and by pattern, out of everything written or printed for this persona.
    this.#secrets = scrubber(personaSecrets(kernel.env, this.profile, ledgerEnv(this.paths.dir, this.profile.id)));
    this.#codec = pathCodec(kernel.stateDir, undefined, this.#secrets.json);
    const paths = hostPathScrubber(kernel.stateDir);
    // Events: the values here; the event log itself redacts by pattern and key.
    this.#scrub = <T>(value: T) => this.#secrets.values(paths(value));
    this.#ledger = new LedgerInspector(this.paths, this.#backend.ledger);
    this.#skills = { selected: selectSkills(this.#catalog, this.profile.skills), unmatched: unmatchedPatterns(this.#catalog, this.profile.skills) };
    this.#children = kernel.children.forPersona(this.profile.id);
    this.#mcp = kernel.mcpServer(this.profile.id);
    const mcpProgram = this.#mcp ? resolveExecutable(this.#mcp.command, kernel.env.PATH ?? '', this.paths.dir) : undefined;
    this.#plugins = new PersonaPlugins(
      personaPluginOptions({
        stateDir: kernel.stateDir,
        scrub: this.#secrets,
        tracker: this.#children,
        ...(mcpProgram ? { programs: [mcpProgram] } : {}),
        ...(this.#mcp?.reads ? { programReads: this.#mcp.reads } : {}),
        profile: this.profile,
        hostEnv: kernel.env,
        limits: this.limits,
        shim: kernel.shim,
        bindings: personaBindings(this.paths, this.profile.id, kernel.clock, () => this.#backend.events, this.#backend, this.#secrets.deep),
        audit: (event) => this.#onAudit(event),
        cacheDir: kernel.cacheDir,
        sources: kernel.sources,
      }),
      kernel.directory,
      kernel.resident,
    );
  }

  /**
   * Opens the persona's persistence backend (the one its persistence.yaml names, jsonl-fs by
   * default), reads its usage history from the events there, opens the events for appends
   * (writing `persona_start`), and loads its skills.
   */
  static async open(kernel: LoopKernel, persona: LoadedPersona): Promise<PersonaRuntime> {
    const paths = personaPaths(kernel.stateDir, persona.profile.id);
    // The persona folder must exist for the backend's and the ledger's path checks; step 1 creates the brain.
    ensurePersonaDir(kernel.stateDir, persona.profile.id);
    const now = kernel.clock();
    const backend = await openBackend(paths.dir, undefined, { personaId: persona.profile.id, now: () => new Date(kernel.clock()) });
    // One writer per persona, taken before the first read of its events: a second kernel is
    // refused here, naming the holder, instead of forking the log (issue 12).
    let lock: WriterLock;
    try {
      lock = await lockPersonaWriter(backend, 'run');
    } catch (error) {
      await backend.close();
      throw error;
    }
    try {
      return await PersonaRuntime.#openLocked(kernel, persona, { paths, now, backend, lock });
    } catch (error) {
      await backend.close();
      lock.release();
      throw error;
    }
  }

  /** open()'s steps once the writer lock is held: usage from the events, the append side, skills, trace, persona_start. */
  static async #openLocked(kernel: LoopKernel, persona: LoadedPersona, o: { paths: PersonaPaths; now: number; backend: PersistenceBackend; lock: WriterLock }): Promise<PersonaRuntime> {
    const { paths, now, backend, lock } = o;
    const usage = new UsageWindow();
    let cycles = 0;
    for (const event of backend.events.read()) {
      for (const aside of setAsideUsageOfEvent(event)) if (now - aside.atMs < 24 * 3600 * 1000) usage.add(aside);
      const entry = usageOfEvent(event);
      if (!entry) continue;
      cycles += 1;
      if (now - entry.atMs < 24 * 3600 * 1000) usage.add(entry);
    }
    await backend.events.open();
    const catalog = await loadSkillCatalog(skillRootsForPersona(kernel.skillsDir, persona.profile.id), { displayRoot: kernel.skillsDir });
    // A skill named exactly (no glob) that matches nothing is a typo: the persona would run without it, silently.
    const unknown = unknownSkillNames(catalog, persona.profile.skills);
    if (unknown.length > 0) {
      throw kernelError('RTC_ERR_SKILL_UNKNOWN', `${path.basename(persona.file)}: skills: ${unknown.map((u) => `"${u.pattern}" ${u.why}`).join('; ')}`, {
        details: { persona: persona.profile.id, unknown },
      });
    }
    // The trace keeps the profile text each cycle ran under, so a replay needs no repository copy.
    const trace = new TraceStore(paths.dir, backend.trace);
    const profileDigest = trace.keep(persona.text);
    const runtime = new PersonaRuntime(kernel, persona, { backend, lock, usage, catalog, cycles, trace, profileDigest });
    // Before anything new: a session a crashed predecessor left running is ended and recorded.
    await runtime.#recoverLeftSessions(now);
    const substrate = kernel.substrate;
    await backend.events.append('persona_start', runtime.#scrub({
      persona_id: persona.profile.id,
      runtime: persona.profile.runtime,
      runtime_kind: runtimeKindOf(persona.profile.runtime),
      kernel_version: KERNEL_VERSION,
      profile: { file: path.basename(persona.file), digest: persona.digest },
      executor: runtime.choice,
      budget: runtime.limits,
      skills: { loaded: catalog.skills.length, refused: catalog.refused.map((r) => r.message) },
      substrate: { status: substrate.status, changes: substrate.changes.map((c) => `${c.file}${c.line ? `:${c.line}` : ''}: ${c.what}`) },
    }));
    return runtime;
  }

  get cycles(): number {
    return this.#cycles;
  }

  /** Sessions whose process marker a previous kernel left: ended, their manifest and the log say interrupted. */
  async #recoverLeftSessions(now: number): Promise<void> {
    for (const left of await recoverLeftSessions(this.paths.sessionsDir)) {
      const usage = left.expected_tokens > 0 ? estimateUsage(left.expected_tokens) : null;
      const reason = left.found === 'running'
        ? `interrupted: the kernel that started it ended without stopping it; found running at start and ${left.ended === 'killed' ? 'killed' : 'terminated'}`
        : `interrupted: the kernel that started it ended without stopping it; ${left.sandboxed ? 'the OS sandbox ended it with that kernel' : 'it had already ended'}`;
      markSessionManifest(left.session_dir, { run_id: left.run_id, status: 'interrupted', reason, interrupted_by: 'kernel crash', usage });
      await this.#backend.events.append(INTERRUPTED_EVENT, this.#scrub({
        run_id: left.run_id,
        session: relToState(this.paths, left.session_dir),
        command: left.command,
        found: left.found,
        ended: left.ended,
        sandboxed: left.sandboxed,
        reason,
        provider_usage: usage,
      }));
      this.#usage.add({ atMs: now, tokens: usage?.total_tokens ?? 0, session: true });
    }
  }

  #onAudit(event: AuditEvent): void {
    if (event.decision === 'granted') this.#audit.granted += 1;
    else if (this.#audit.denied.length < 20) this.#audit.denied.push(`${event.subject} ${event.op} ${event.permission}:${event.value ?? '*'}`);
  }

  /** One continuous_science_loop cycle. */
  async cycle(): Promise<CycleReport> {
    const k = this.#kernel;
    const p = this.profile;
    const now = k.clock();
    const cycle = this.#cycles + 1;
    const steps: string[] = [];
    const problems: string[] = [];
    this.#audit = { granted: 0, denied: [] };

    // the cycle boundary: accepted proposals take effect; their records join the log
    const review = await this.#applyAccepted(now, problems);
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
    cyclesInFlight.set(k, (cyclesInFlight.get(k) ?? 0) + 1);
    try {
      return await this.#cycleSteps({ now, cycle, steps, problems, review, recorder });
    } finally {
      cyclesInFlight.set(k, (cyclesInFlight.get(k) ?? 1) - 1);
      this.#plugins.recorder = undefined;
    }
  }

  async #cycleSteps(c: { now: number; cycle: number; steps: string[]; problems: string[]; review: ReviewAtBoundary; recorder: CycleRecorder }): Promise<CycleReport> {
    const k = this.#kernel;
    const p = this.profile;
    const { now, cycle, steps, problems } = c;

    // 1. brain
    const brainCreated = ensureBrainLayout(this.paths, this.#backend.memory);
    const loadedBrain = loadBrain(this.#backend.memory, this.paths, p.id, p.runtime);
    const brain = loadedBrain.brain;
    if (loadedBrain.reason) problems.push(loadedBrain.reason);
    steps.push('brain');

    // 2. usage
    const usage = this.#usage.totals(now);
    steps.push('usage');

    // 3. budget posture
    const posture = derivePosture(this.limits, p, usage);
    steps.push('budget');

    // 4. skills
    const selected = this.#skills.selected;
    const unmatched = [...this.#skills.unmatched];
    steps.push('skills');

    // 5. ledger
    const ledger = this.#ledger.inspect();
    if (ledger.error) problems.push(`ledger: ${ledger.error}`);
    steps.push('ledger');

    // 6. phase
    const phase = p.phases[(cycle - 1) % p.phases.length]!;
    steps.push('phase');

    // 7. probes, then defer or execute
    const probes: ProbeRecord[] = [await this.#startupSmoke(brain), this.#bootstrapProbe(brain, selected)];
    const found = findWork(this.paths, brain, phase, now, p.cadence.periodic_seconds);
    probes.push(...found.records);
    // A probe that failed on a bad file (a FIFO for a queue, a file over its cap) is this cycle's problem, and the next cycle tries again.
    for (const r of found.records) if (r.action === 'failed') problems.push(`${r.probe}: ${r.reason}`);
    const result = await act({
      profile: p,
      paths: this.paths,
      ledger: this.#backend.ledger,
      plugins: this.#plugins,
      choice: this.choice,
      posture,
      cycle,
      phase,
      work: found.work,
      skills: selected,
      history: brain.medium_term.recent,
      spendTokens: k.spendTokens,
      now,
      children: this.#children,
      mcp: this.#mcp,
      secrets: secretValues(k.env, p.env),
    });
    // An operator's opt-out of the OS sandbox is said every cycle, not only at start.
    if (p.os_sandbox === 'off') problems.push('os_sandbox: off (the profile opts out): this persona\'s subprocesses run without the OS sandbox');
    if (result.usage && posture.max_tokens_per_session !== null && result.usage.total_tokens > posture.max_tokens_per_session) {
      problems.push(`the session used ${result.usage.total_tokens} tokens, over the per-session cap of ${posture.max_tokens_per_session}`);
    }
    steps.push('decide');

    // 8. record: the trace line (durable), the event that carries its hash, then brain.json
    steps.push('record');
    const trace = c.recorder.finish();
    const payload = this.#scrub({
      loop: 'continuous_science_loop',
      cycle,
      steps,
      runtime_kind: runtimeKindOf(p.runtime),
      runtime: p.runtime,
      persona_id: p.id,
      kernel_version: KERNEL_VERSION,
      profile_digest: this.persona.digest,
      brain: { status: brainCreated ? 'created' : loadedBrain.status, file: relToState(this.paths, this.paths.brainFile) },
      skills: {
        selected: selected.map((s) => s.id),
        unmatched_patterns: unmatched,
        refused: this.#catalog.refused.map((r) => ({ skill: r.folder, scope: r.scope, reason: `${r.field}: ${r.reason}` })),
      },
      phase,
      budget: posture,
      ledger,
      probes,
      work: { offered: found.work.map((w) => ({ kind: w.kind, key: w.key, title: w.title })), pending: brain.probes.pending.length },
      executor: {
        plugin: this.choice.plugin,
        enabled: this.choice.enabled,
        plugin_source: this.choice.plugin_source,
        enabled_source: this.choice.enabled_source,
        spends_tokens: result.spends_tokens,
        ran: result.ran,
        status: result.status,
        os_sandbox: p.os_sandbox,
      },
      budget_decision: result.decision,
      outcome: result.outcome,
      defer_reason: result.outcome === 'executed' ? null : result.reason,
      public_writes_allowed: p.public_writes && !posture.read_only && result.outcome === 'executed',
      executor_session: result.session ? { ...result.session, last_message: result.last_message } : null,
      provider_usage: result.usage,
      tasks_created: result.tasks,
      audit: this.#audit,
      review: c.review,
      trace,
      problems,
    });
    const { seq } = await this.#backend.events.append(CYCLE_EVENT, payload);
    this.#usage.add({ atMs: now, tokens: result.usage?.total_tokens ?? 0, session: result.ran && result.spends_tokens === true });
    this.#cycles = cycle;
    this.#remember(brain, { cycle, phase, result, found: found.work, posture });
    // Awaited before the cycle returns: an acknowledged cycle's brain.json survives kill -9.
    await saveBrainDurably(this.#backend.memory, scrubBrain(brain, this.#secrets), { offThread: (cyclesInFlight.get(k) ?? 0) > 1 });
    return { persona_id: p.id, cycle, seq, phase, outcome: result.outcome, defer_reason: payload.defer_reason as string | null, executor: this.choice.plugin, steps, posture, act: result, probes, payload };
  }

  /** Applies proposals accepted since the last cycle; a queue that cannot be read is a problem of this cycle, never a stop. */
  async #applyAccepted(now: number, problems: string[]): Promise<ReviewAtBoundary> {
    try {
      // Accepted proposals take effect only when ratified by a trusted operator, their evidence unchanged (kernel/review/ratify.ts).
      this.#boundaryQueue ??= this.reviewQueue({ policy: this.profile.review, ratify: this.#ratifyContext() });
      const outcome = this.#boundaryQueue.applyAccepted({ now });
      for (const event of outcome.events) await this.#backend.events.append(event.type, this.#scrub(event.payload));
      for (const held of outcome.held) problems.push(`review queue: ${held.id} is accepted but not applied: ${held.reason}`);
      return { applied: outcome.applied.map((p) => p.id), expired: outcome.expired.map((p) => p.id) };
    } catch (error) {
      problems.push(`review queue: ${errorLine(error)}`);
      return { applied: [], expired: [] };
    }
  }

  /** What the ratification check needs: the trusted operators, and the persona's evidence (its files and events). */
  #ratifyContext(): RatifyContext {
    const personaDir = this.paths.dir;
    return { trust: this.#kernel.trust, evidenceDigest: (ref) => evidenceDigest(ref, { personaDir, events: () => this.#backend.events.read() }) };
  }

  /** Once per kernel version: the persona's executor and budget policy load and answer. */
  async #startupSmoke(brain: Brain): Promise<ProbeRecord> {
    if (brain.probes.startup_smoke_version === KERNEL_VERSION) {
      return { probe: 'startup_smoke', action: 'skipped', reason: `already ran for runtimectl ${KERNEL_VERSION}` };
    }
    try {
      const executor = this.#plugins.get(this.choice.plugin, 'executor');
      await executor.call('describe', this.profile.executor.config);
      this.#plugins.get(this.profile.budget.policy, 'budget-policy');
    } catch (error) {
      return { probe: 'startup_smoke', action: 'failed', reason: `${errorLine(error)} (retried next cycle)` };
    }
    brain.probes.startup_smoke_version = KERNEL_VERSION;
    return { probe: 'startup_smoke', action: 'ran', reason: `${this.choice.plugin} and ${this.profile.budget.policy} load and answer (runtimectl ${KERNEL_VERSION})` };
  }

  /** Once per kernel version: the persistent workspace is prepared (the ledger is bootstrapped in step 5). */
  #bootstrapProbe(brain: Brain, skills: Parameters<typeof preparePersonaWorkspace>[3]): ProbeRecord {
    if (brain.probes.bootstrap_version === KERNEL_VERSION) {
      return { probe: 'bootstrap', action: 'skipped', reason: `already ran for runtimectl ${KERNEL_VERSION}` };
    }
    try {
      const ws = preparePersonaWorkspace(this.paths.workspaceRoot, this.profile.id, WORKSPACE_ID, skills);
      brain.probes.bootstrap_version = KERNEL_VERSION;
      return { probe: 'bootstrap', action: 'ran', reason: `workspace ${relToState(this.paths, ws.dir)} ${ws.created ? 'created' : 'checked'}` };
    } catch (error) {
      return { probe: 'bootstrap', action: 'failed', reason: `${errorLine(error)} (retried next cycle)` };
    }
  }

  /** Step 8's brain update: short-term plan and reflection, medium-term history, probe state. */
  #remember(brain: Brain, c: { cycle: number; phase: string; result: ActResult; found: { key: string; title: string; kind: string }[]; posture: BudgetPosture }): void {
    const { result } = c;
    const done = new Set(result.done);
    brain.probes.pending = brain.probes.pending.filter((w) => !done.has(w.key));
    brain.cycles = c.cycle;
    brain.last_cycle = { cycle: c.cycle, phase: c.phase, outcome: result.outcome, defer_reason: result.outcome === 'executed' ? null : result.reason, executor: this.choice.plugin, tier: result.decision?.tier ?? null };
    const waiting = brain.probes.pending.map((w) => w.title);
    brain.short_term = {
      phase: c.phase,
      reflection: `cycle ${c.cycle} (${c.phase}): ${result.outcome}${result.reason ? `: ${result.reason}` : ''}${waiting.length ? `; ${waiting.length} item(s) wait` : ''}`.slice(0, 1000),
      plan: waiting.slice(0, 10).map((t) => (c.posture.read_only ? `plan (read-only): ${t}` : `next: ${t}`)),
      last_message: result.last_message ?? brain.short_term.last_message,
    };
    const m = brain.medium_term;
    m.recent.push({ cycle: c.cycle, phase: c.phase, keys: c.found.map((w) => w.key), outcome: result.outcome, ...(result.status ? { status: result.status } : {}), ...(result.decision ? { tier: result.decision.tier } : {}) });
    if (m.recent.length > RECENT_CYCLES) m.recent.splice(0, m.recent.length - RECENT_CYCLES);
    m.phase_counts[c.phase] = (m.phase_counts[c.phase] ?? 0) + 1;
    m.outcome_counts[result.outcome] = (m.outcome_counts[result.outcome] ?? 0) + 1;
    m.tokens_spent_total += result.usage?.total_tokens ?? 0;
    if (result.ran && result.spends_tokens) m.sessions_total += 1;
  }

  /** Text with this persona's secrets (by value and pattern) replaced: for what the CLI prints about it. */
  scrubText(text: string): string {
    return this.#secrets.text(text);
  }

  /** The persona's secret values (names only are ever shown), for a CLI printing several personas. */
  get secrets(): SecretValues {
    return this.#secrets.secrets;
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

  /** Flushes and closes the persistence backend and disposes the plugins' isolates. */
  async close(): Promise<void> {
    this.#plugins.dispose();
    try {
      await this.#backend.close();
    } finally {
      this.#lock.release();
    }
  }
}
