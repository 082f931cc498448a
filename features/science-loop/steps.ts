/**
 * The steps of `continuous_science_loop` (source: ../shared/spec/000_6587f3dd4bf5a928.txt),
 * registered by name for the kernel's loop driver. A harness (policies/harnesses/*.yaml)
 * lists them in order; the driver runs them and then records the cycle:
 *
 *   brain   create or load brain/ (brain.json, long-term.md, sessions, workspace, artifacts)
 *   usage   tokens and sessions of the last 24 h, from the persona's own event log
 *   budget  the posture: env over profile; the wallet is advisory; no daily budget = read-only
 *   skills  shared and persona skills selected by the profile's names and globs
 *   ledger  bootstrap or inspect the persona's local task ledger (orchestra/)
 *   phase   the activity phase, picked by the profile's phase-selector plugin
 *   decide  the idempotent probes find the work; then defer or execute (decide.ts)
 *
 * After the cycle event is durable, brain.json is updated (short-term plan, medium-term
 * history, probe state) and the usage window takes the cycle's spending.
 *
 * What a step hands a later one is a typed step value (values.ts), declared in its `reads`,
 * `uses` and `produces`, so a harness may drop, reorder or replace a step (a step plugin) and
 * is refused at start when a step's inputs come from no earlier step. What the steps keep
 * across cycles is in the persona's `state` under SCIENCE.
 */
import path from 'node:path';
import { checkPluginAnswer } from '../../kernel/contracts/answer.ts';
import { executorDescriptionSchema } from '../../kernel/contracts/executor.ts';
import { isKeyedExecutorConfig } from '../profiles/profile-slots.ts';
import { phaseAnswerSchema } from '../../kernel/contracts/phase-selector.ts';
import { errorLine } from '../../kernel/errors.ts';
import { ensureBrainLayout, relToState, WORKSPACE_ID } from '../persona-layout/layout.ts';
import type { CycleContext, LoopStep, PersonaContext, PersonaStart, SlotRequirement, StartProblem } from '../../kernel/loop/steps.ts';
import { KERNEL_VERSION } from '../../kernel/version.ts';
import type { PersonaBackend } from '../persistence/backend.ts';
import { ledgerOf, type LedgerAccess } from '../ledger/access.ts';
import { loadSkillCatalog, type SkillCatalog, type SkillMeta } from '../skills/catalog.ts';
import { REPO_SKILLS_DIR, skillRootsForDir } from '../skills/layout.ts';
import { selectSkills, unknownSkillNames, unmatchedPatterns } from '../skills/select.ts';
import { loadBrain, RECENT_CYCLES, saveBrainDurably, scrubBrain, type Brain } from './brain.ts';
import { readAgentEnv, EXECUTOR_ENV, type AgentEnv } from './budget/env.ts';
import { budgetLimits, derivePosture, type BudgetLimits } from './budget/posture.ts';
import { loopHistoryOf } from '../history/loop-part.ts';
import { INTERRUPTED_EVENT, setAsideUsageOfEvent, UsageWindow, usageOfEvent } from '../history/usage.ts';
import { act, estimateUsage, type ActResult } from './decide.ts';
import { recoverLeftSessions, type PersonaChildren } from './executors/children.ts';
import { markSessionManifest } from './executors/session-dir.ts';
import { chooseExecutor, executorConfig, type ExecutorChoice } from './executors/choice.ts';
import { preparePersonaWorkspace } from './executors/session-dir.ts';
import { LedgerInspector } from './ledger-inspection.ts';
import { findWork, type ProbeRecord } from './probes.ts';
import { findProgram } from '../../sandboxes/subprocess/executable.ts';
import { ACT, BRAIN, LEDGER, PHASE, POSTURE, SKILLS, USAGE, WORK } from './values.ts';

const SCIENCE = 'science-loop';

/** What the science steps keep for a persona across cycles. */
interface PersonaScience {
  agentEnv: AgentEnv;
  choice: ExecutorChoice;
  limits: BudgetLimits;
  usage: UsageWindow;
  /** loaded by the skills step's open (undefined on a harness without it) */
  catalog: SkillCatalog | undefined;
  /** the catalog (loaded at open) and the profile's patterns never change, so this is computed once */
  skills: { selected: SkillMeta[]; unmatched: string[] };
  ledger: LedgerInspector;
}

export interface ScienceLoopSettings {
  /** skill folders; default: the repository's skills/ */
  skillsDirs?: readonly string[];
  /** each persona's subprocess tracker (the composition's; the same one its plugins' subprocesses use) */
  children?: (personaId: string) => PersonaChildren;
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

/** Sessions whose process marker a previous kernel left: ended, their manifest and the log say interrupted. */
async function recoverLeft(p: PersonaContext, science: PersonaScience): Promise<void> {
  for (const left of await recoverLeftSessions(p.paths.stateDir, p.profile.id, p.paths.sessionsDir)) {
    const usage = left.expected_tokens > 0 ? estimateUsage(left.expected_tokens) : null;
    let reason =
      left.found === 'invalid'
        ? `a process marker the previous kernel left could not be used: ${left.problem ?? 'invalid'}`
        : left.found === 'running'
          ? `interrupted: the kernel that started it ended without stopping it; found running at start and ${left.ended === 'killed' ? 'killed' : 'terminated'}`
          : `interrupted: the kernel that started it ended without stopping it; ${left.sandboxed ? 'the OS sandbox ended it with that kernel' : 'it had already ended'}`;
    if (left.found !== 'invalid') {
      const fallback = { run_id: left.run_id, executor: left.executor ?? 'unknown', status: 'interrupted' as const, reason };
      try {
        markSessionManifest({ anchor: p.paths.stateDir, dir: left.session_dir }, { status: 'interrupted', reason, interrupted_by: 'kernel crash', usage }, fallback);
      } catch (error) {
        reason = `${reason}; its manifest could not be updated: ${errorLine(error)}`;
      }
    }
    await p.backend.events.append(
      INTERRUPTED_EVENT,
      p.scrub({ run_id: left.run_id, session: relToState(p.paths, left.session_dir), command: left.command, found: left.found, ended: left.ended, sandboxed: left.sandboxed, reason, provider_usage: usage }),
    );
    if (left.found !== 'invalid') science.usage.add({ atMs: p.clock(), tokens: usage?.total_tokens ?? 0, session: true });
  }
}

function personaScience(p: PersonaContext): PersonaScience {
  const s = p.state.get(SCIENCE) as PersonaScience | undefined;
  if (!s) throw new Error('science-loop state used before the persona opened');
  return s;
}

function personaLedger(p: PersonaContext): LedgerAccess {
  return ledgerOf(p.backend as PersonaBackend);
}

/** The executor a persona runs and where that choice came from, as a start requirement's field. */
function executorField(start: PersonaStart, choice: ExecutorChoice): Pick<SlotRequirement, 'field' | 'fromEnv'> & { file?: string } {
  if (choice.plugin_source === 'env') return { field: EXECUTOR_ENV, fromEnv: true };
  if (choice.plugin_source === 'profile') return { field: 'executor.plugin' };
  return { field: `executor.plugin (default of harness ${start.harness.manifest.id})` };
}

/**
 * The config problems an executor's describe() named, as start problems at the profile's
 * field: `executor.config["executor.command"].command` (keyed form) or `executor.config.command`
 * (the flat form of the profile's own executor). An answer outside the contract is one problem.
 */
function configProblemsOf(start: PersonaStart, choice: ExecutorChoice, answer: unknown): StartProblem[] {
  if (answer === undefined) return [];
  const parsed = executorDescriptionSchema.shape.config_problems.safeParse(answer);
  if (!parsed.success) return [{ ...executorField(start, choice), reason: `executor ${choice.plugin}: describe() answered config_problems outside the executor contract` }];
  const config = start.profile.executor.config;
  const keyed = isKeyedExecutorConfig(config) && Object.keys(config).length > 0;
  const base = keyed || start.profile.executor.plugin !== choice.plugin ? `executor.config["${choice.plugin}"]` : 'executor.config';
  const picked = choice.plugin_source === 'env' ? ` (${EXECUTOR_ENV} picks ${choice.plugin}: its config is ${base} of the profile)` : '';
  return (parsed.data ?? []).map((p) => ({ field: `${base}${p.field.startsWith('[') ? '' : '.'}${p.field}`, reason: `${p.reason}${picked}` }));
}

function startChoice(start: PersonaStart): ExecutorChoice {
  return chooseExecutor(start.profile, readAgentEnv(start.env), start.harness.manifest);
}

/** Builds the science-loop steps; the settings are the run's (skill folders). */
export function scienceLoopSteps(settings: ScienceLoopSettings = {}): LoopStep[] {
  const skillsDirs = settings.skillsDirs && settings.skillsDirs.length > 0 ? settings.skillsDirs : [REPO_SKILLS_DIR];
  // A persona's catalog, loaded once for its start check and its open.
  const catalogs = new WeakMap<object, Promise<SkillCatalog>>();
  const catalogFor = (start: PersonaStart): Promise<SkillCatalog> => {
    let loading = catalogs.get(start.persona);
    if (!loading) {
      const roots = skillsDirs.flatMap((dir) => skillRootsForDir(dir)).filter((root) => root.scope === 'shared' || root.persona === start.profile.id);
      loading = loadSkillCatalog(roots, { displayRoot: skillsDirs[0]! });
      catalogs.set(start.persona, loading);
    }
    return loading;
  };

  const brain: LoopStep = {
    name: 'brain',
    produces: [BRAIN],
    // after the cycle event the brain remembers what the later steps did
    uses: [ACT, PHASE, WORK, POSTURE],
    run(c) {
      const p = c.persona;
      const created = ensureBrainLayout(p.paths, p.backend.memory);
      const loaded = loadBrain(p.backend.memory, p.paths, p.profile.id, p.profile.runtime);
      if (loaded.reason) c.problems.push(loaded.reason);
      c.put(BRAIN, loaded.brain);
      c.payload.brain = { status: created ? 'created' : loaded.status, file: relToState(p.paths, p.paths.brainFile) };
      // After the event: the brain remembers the cycle, then brain.json is replaced durably.
      c.afterRecord(async () => {
        remember(c, loaded.brain);
        await saveBrainDurably(p.backend.memory, scrubBrain(loaded.brain, p.secrets), { offThread: p.concurrentCycles() > 1 });
      });
    },
  };

  const usage: LoopStep = {
    name: 'usage',
    produces: [USAGE],
    open(p) {
      // With the history part (features/history), the window comes from the checkpoint and the
      // events folded after it, not from a read of the whole log.
      const science = p.state.get(SCIENCE) as PersonaScience | undefined;
      const history = loopHistoryOf(p);
      if (!science || !history) return;
      for (const entry of history.fold.usageEntries(p.clock())) science.usage.add(entry);
    },
    history(p, event) {
      // Without a history part: usage is read once at open; the window then takes each cycle's spending.
      const science = p.state.get(SCIENCE) as PersonaScience | undefined;
      if (!science) return;
      const recent = (atMs: number) => p.clock() - atMs < 24 * 3600 * 1000;
      // Cycles a fork repair set aside still spent their tokens (kernel/events/fork-repair.ts).
      for (const aside of setAsideUsageOfEvent(event)) if (recent(aside.atMs)) science.usage.add(aside);
      const entry = usageOfEvent(event);
      if (entry && recent(entry.atMs)) science.usage.add(entry);
    },
    run(c) {
      c.put(USAGE, personaScience(c.persona).usage.totals(c.now));
    },
  };

  const budget: LoopStep = {
    name: 'budget',
    uses: [USAGE, ACT],
    produces: [POSTURE],
    checkEnvironment: (env) => void readAgentEnv(env),
    requires: (start) => [{ field: 'budget.policy', plugin: start.profile.budget.policy, kind: 'budget-policy', calls: ['assess'] }],
    run(c) {
      const science = personaScience(c.persona);
      const posture = derivePosture(science.limits, c.persona.profile, c.get(USAGE) ?? science.usage.totals(c.now));
      c.put(POSTURE, posture);
      c.payload.budget = posture;
      c.report.posture = posture;
      c.afterRecord(() => {
        const r = c.get(ACT);
        science.usage.add({ atMs: c.now, tokens: r?.usage?.total_tokens ?? 0, session: r?.ran === true && r.spends_tokens === true });
      });
    },
  };

  const skills: LoopStep = {
    name: 'skills',
    produces: [SKILLS],
    async check(start) {
      // A name (no wildcard) that matches nothing is a typo: the persona would run without it, silently.
      // A glob that matches nothing is not (a persona may have no skills of its own yet); each cycle lists it.
      const catalog = await catalogFor(start);
      const unknown = new Map(unknownSkillNames(catalog, start.profile.skills).map((u) => [u.pattern, u.why]));
      return start.profile.skills.flatMap((pattern, i): StartProblem[] => (unknown.has(pattern) ? [{ field: `skills[${i}]`, reason: `"${pattern}" ${unknown.get(pattern)}` }] : []));
    },
    async open(p, start) {
      const catalog = await catalogFor(p);
      const science = personaScience(p);
      science.catalog = catalog;
      science.skills = { selected: selectSkills(catalog, p.profile.skills), unmatched: unmatchedPatterns(catalog, p.profile.skills) };
      start.skills = { loaded: catalog.skills.length, refused: catalog.refused.map((r) => r.message) };
    },
    run(c) {
      const science = personaScience(c.persona);
      c.put(SKILLS, science.skills.selected);
      c.payload.skills = {
        selected: science.skills.selected.map((sk) => sk.id),
        unmatched_patterns: [...science.skills.unmatched],
        refused: (science.catalog?.refused ?? []).map((r) => ({ skill: r.folder, scope: r.scope, reason: `${r.field}: ${r.reason}` })),
      };
    },
  };

  const ledger: LoopStep = {
    name: 'ledger',
    produces: [LEDGER],
    run(c) {
      const inspection = personaScience(c.persona).ledger.inspect();
      if (inspection.error) c.problems.push(`ledger: ${inspection.error}`);
      c.put(LEDGER, inspection);
      c.payload.ledger = inspection;
    },
  };

  const phase: LoopStep = {
    name: 'phase',
    uses: [BRAIN],
    produces: [PHASE],
    requires: (start) => [{ field: 'phase', plugin: start.profile.phase, kind: 'phase-selector', calls: ['pick'] }],
    async run(c) {
      const p = c.persona;
      const recent = c.get(BRAIN)?.medium_term.recent ?? [];
      let phase: string | null;
      try {
        const answer = await p.plugins.get(p.profile.phase, 'phase-selector').call('pick', {
          persona_id: p.profile.id,
          cycle: c.cycle,
          phases: p.profile.phases,
          history: recent.slice(-10).map((h) => ({ cycle: h.cycle, phase: h.phase, outcome: h.outcome })),
        });
        const picked = checkPluginAnswer(phaseAnswerSchema, answer, p.profile.phase, 'pick').phase;
        if (!p.profile.phases.includes(picked as (typeof p.profile.phases)[number])) throw new Error(`picked "${picked}", which is not one of the profile's phases (${p.profile.phases.join(', ')})`);
        phase = picked;
      } catch (error) {
        phase = null;
        c.problems.push(`phase selector ${p.profile.phase}: ${errorLine(error)}`);
      }
      c.put(PHASE, phase);
      c.payload.phase = phase;
      c.report.phase = phase;
    },
  };

  const decide: LoopStep = {
    name: 'decide',
    reads: [BRAIN, PHASE],
    uses: [POSTURE, SKILLS],
    produces: [WORK, ACT],
    checkEnvironment: (env) => void readAgentEnv(env),
    requires(start) {
      const choice = startChoice(start);
      const at = executorField(start, choice);
      return [{ ...at, plugin: choice.plugin, kind: 'executor', calls: ['describe', 'run'] }];
    },
    async check(start) {
      const choice = startChoice(start);
      if (!choice.enabled) return [];
      // An enabled executor's config is checked now, by the executor itself (describe names
      // what is wrong with it), not when the first work arrives.
      let description: { spends_tokens?: unknown; command?: unknown; config_problems?: unknown };
      try {
        description = (await start.probe(choice.plugin, 'executor', 'describe', executorConfig(start.profile, choice))) as typeof description;
      } catch (error) {
        return [{ ...executorField(start, choice), reason: `executor ${choice.plugin}: describe() failed: ${errorLine(error)}` }];
      }
      const configProblems = configProblemsOf(start, choice, description?.config_problems);
      if (configProblems.length > 0) return configProblems;
      // A token-spending executor that will really be launched must find its program.
      const limits = budgetLimits(start.profile, readAgentEnv(start.env));
      if (!start.spendTokens || limits.daily_tokens === null || limits.daily_tokens === 0) return [];
      if (description?.spends_tokens !== true || typeof description.command !== 'string') return [];
      const program = description.command.trim().split(/\s+/)[0] ?? '';
      if (program === '' || findProgram(program, start.env.PATH ?? '', path.join(start.stateDir, start.profile.id)) !== undefined) return [];
      return [{ ...executorField(start, choice), reason: `executor ${choice.plugin} spends tokens and runs "${program}", which is not on PATH; install it, or disable the executor (executor.enabled: false)` }];
    },
    async open(p, start) {
      const science = personaScience(p);
      // Before anything new: a session a crashed predecessor left running is ended and recorded.
      await recoverLeft(p, science);
      start.executor = science.choice;
      start.budget = science.limits;
    },
    async run(c) {
      const p = c.persona;
      const science = personaScience(p);
      // brain and phase come from earlier steps (the start check refuses a harness without them)
      const brainNow = c.get(BRAIN);
      if (!brainNow) throw new Error('the decide step needs the brain step before it in the harness');
      const phase = c.get(PHASE);
      // a phase step other than the feature's (a step plugin) reports no phase itself
      if (!('phase' in c.report)) c.report.phase = phase ?? null;
      const posture = c.get(POSTURE) ?? derivePosture(science.limits, p.profile, science.usage.totals(c.now));
      const probes: ProbeRecord[] = [await startupSmoke(p, science, brainNow), bootstrapProbe(p, brainNow, science.skills.selected)];
      const found = phase ? findWork(p.paths, brainNow, phase, c.now, p.profile.cadence.periodic_seconds) : { work: [], records: [] };
      probes.push(...found.records);
      // A probe that failed on a bad file (a FIFO for a queue, a file over its cap) is this cycle's problem, and the next cycle tries again.
      for (const r of found.records) if (r.action === 'failed') c.problems.push(`${r.probe}: ${r.reason}`);
      const result: ActResult =
        phase === null || phase === undefined
          ? { outcome: 'failed', reason: 'no phase for this cycle: the phase selector failed (see problems)', spends_tokens: null, ran: false, status: null, decision: null, session: null, usage: null, last_message: null, tasks: [], done: [] }
          : await act({
              profile: p.profile,
              paths: p.paths,
              ledger: personaLedger(p),
              plugins: p.plugins,
              choice: science.choice,
              executorConfig: executorConfig(p.profile, science.choice),
              posture,
              cycle: c.cycle,
              phase,
              work: found.work,
              skills: c.get(SKILLS) ?? science.skills.selected,
              history: brainNow.medium_term.recent,
              spendTokens: p.spendTokens,
              now: c.now,
              ...(settings.children ? { children: settings.children(p.profile.id) } : {}),
              mcp: p.mcp,
              tools: p.tools,
              secrets: secretValues(p.env, p.profile.env),
            });
      // An operator's opt-out of the OS sandbox is said every cycle, not only at start.
      if (p.profile.os_sandbox === 'off') c.problems.push('os_sandbox: off (the profile opts out): this persona\'s subprocesses run without the OS sandbox');
      if (result.usage && posture.max_tokens_per_session !== null && result.usage.total_tokens > posture.max_tokens_per_session) {
        c.problems.push(`the session used ${result.usage.total_tokens} tokens, over the per-session cap of ${posture.max_tokens_per_session}`);
      }
      const offered = found.work.map((w) => ({ kind: w.kind, key: w.key, title: w.title }));
      c.put(ACT, result);
      c.put(WORK, offered);
      Object.assign(c.payload, {
        probes,
        work: { offered, pending: brainNow.probes.pending.length },
        executor: {
          plugin: science.choice.plugin,
          enabled: science.choice.enabled,
          plugin_source: science.choice.plugin_source,
          enabled_source: science.choice.enabled_source,
          spends_tokens: result.spends_tokens,
          ran: result.ran,
          status: result.status,
          os_sandbox: p.profile.os_sandbox,
        },
        budget_decision: result.decision,
        outcome: result.outcome,
        defer_reason: result.outcome === 'executed' ? null : result.reason,
        public_writes_allowed: p.profile.public_writes && !posture.read_only && result.outcome === 'executed',
        executor_session: result.session ? { ...result.session, last_message: result.last_message } : null,
        provider_usage: result.usage,
        tasks_created: result.tasks,
      });
      Object.assign(c.report, {
        outcome: result.outcome,
        // as the event says it: host paths and the persona's secrets scrubbed
        defer_reason: result.outcome === 'executed' ? null : p.scrub(result.reason),
        executor: science.choice.plugin,
        act: result,
        probes,
      });
    },
  };

  // Each step can set the persona's science state up (whichever of them a harness lists first).
  return [brain, usage, budget, skills, ledger, phase, decide].map((step) => ({ ...step, prepare: initScienceState }));
}

/** Creates a persona's science state (before the driver's history pass and the open hooks fill it). */
function initScienceState(p: PersonaContext): void {
  if (p.state.has(SCIENCE)) return;
  const agentEnv = readAgentEnv(p.env);
  const state: PersonaScience = {
    agentEnv,
    choice: chooseExecutor(p.profile, agentEnv, p.harness.manifest),
    limits: budgetLimits(p.profile, agentEnv),
    usage: new UsageWindow(),
    catalog: undefined,
    skills: { selected: [], unmatched: [] },
    ledger: new LedgerInspector(p.paths, personaLedger(p)),
  };
  p.state.set(SCIENCE, state);
}

/** Once per kernel version: the persona's executor and budget policy load and answer. */
async function startupSmoke(p: PersonaContext, science: PersonaScience, brain: Brain): Promise<ProbeRecord> {
  if (brain.probes.startup_smoke_version === KERNEL_VERSION) {
    return { probe: 'startup_smoke', action: 'skipped', reason: `already ran for runtimectl ${KERNEL_VERSION}` };
  }
  try {
    const executor = p.plugins.get(science.choice.plugin, 'executor');
    await executor.call('describe', executorConfig(p.profile, science.choice));
    p.plugins.get(p.profile.budget.policy, 'budget-policy');
  } catch (error) {
    return { probe: 'startup_smoke', action: 'failed', reason: `${errorLine(error)} (retried next cycle)` };
  }
  brain.probes.startup_smoke_version = KERNEL_VERSION;
  return { probe: 'startup_smoke', action: 'ran', reason: `${science.choice.plugin} and ${p.profile.budget.policy} load and answer (runtimectl ${KERNEL_VERSION})` };
}

/** Once per kernel version: the persistent workspace is prepared (the ledger is bootstrapped in its step). */
function bootstrapProbe(p: PersonaContext, brain: Brain, skills: Parameters<typeof preparePersonaWorkspace>[4]): ProbeRecord {
  if (brain.probes.bootstrap_version === KERNEL_VERSION) {
    return { probe: 'bootstrap', action: 'skipped', reason: `already ran for runtimectl ${KERNEL_VERSION}` };
  }
  try {
    const ws = preparePersonaWorkspace(p.paths.stateDir, p.paths.workspaceRoot, p.profile.id, WORKSPACE_ID, skills);
    brain.probes.bootstrap_version = KERNEL_VERSION;
    return { probe: 'bootstrap', action: 'ran', reason: `workspace ${relToState(p.paths, ws.dir)} ${ws.created ? 'created' : 'checked'}` };
  } catch (error) {
    return { probe: 'bootstrap', action: 'failed', reason: `${errorLine(error)} (retried next cycle)` };
  }
}

/** The brain's update after the cycle event: short-term plan and reflection, medium-term history, probe state. */
function remember(c: CycleContext, brain: Brain): void {
  const result = c.get(ACT);
  brain.cycles = c.cycle;
  if (!result) return;
  const phase = c.get(PHASE) ?? '-';
  const science = personaScience(c.persona);
  const posture = c.get(POSTURE);
  const done = new Set(result.done);
  brain.probes.pending = brain.probes.pending.filter((w) => !done.has(w.key));
  brain.last_cycle = { cycle: c.cycle, phase, outcome: result.outcome, defer_reason: result.outcome === 'executed' ? null : result.reason, executor: science.choice.plugin, tier: result.decision?.tier ?? null };
  const waiting = brain.probes.pending.map((w) => w.title);
  brain.short_term = {
    phase,
    reflection: `cycle ${c.cycle} (${phase}): ${result.outcome}${result.reason ? `: ${result.reason}` : ''}${waiting.length ? `; ${waiting.length} item(s) wait` : ''}`.slice(0, 1000),
    plan: waiting.slice(0, 10).map((t) => (posture?.read_only ? `plan (read-only): ${t}` : `next: ${t}`)),
    last_message: result.last_message ?? brain.short_term.last_message,
  };
  const m = brain.medium_term;
  m.recent.push({ cycle: c.cycle, phase, keys: (c.get(WORK) ?? []).map((w) => w.key), outcome: result.outcome, ...(result.status ? { status: result.status } : {}), ...(result.decision ? { tier: result.decision.tier } : {}) });
  if (m.recent.length > RECENT_CYCLES) m.recent.splice(0, m.recent.length - RECENT_CYCLES);
  m.phase_counts[phase] = (m.phase_counts[phase] ?? 0) + 1;
  m.outcome_counts[result.outcome] = (m.outcome_counts[result.outcome] ?? 0) + 1;
  m.tokens_spent_total += result.usage?.total_tokens ?? 0;
  if (result.ran && result.spends_tokens) m.sessions_total += 1;
}

