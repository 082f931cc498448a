/**
 * The default composition: the kernel's loop driver with the science-loop steps registered by
 * name, the persistence feature as its backend provider, and what only these features know of
 * a persona (its plugins' CPU and wall limits from the budget, the local ledger's path in
 * their environment, what the ledger, events and memory bindings do). `runtimectl run`,
 * `replay` and the tests start the loop through here; the kernel imports none of it.
 */
import { HarnessCatalog } from '../profiles/harness-catalog.ts';
import { openLoopKernel as openKernel, type LoopComposition, type LoopKernel, type LoopOptions } from '../persona/persona-runtime.ts';
import { runPersonas as runKernelPersonas, type RunOptions } from './run-personas.ts';
import type { ScienceRun } from './report.ts';
import { StepRegistry } from '../../kernel/loop/steps.ts';
import { replayPersona as replayKernelPersona, type ReplayOptions, type ReplayReport } from './replay-persona.ts';
import type { LoadedPersona } from '../../kernel/personas/profile-schema.ts';
import { ledgerEnv } from '../ledger/layout.ts';
import { ChildRegistry, type PersonaChildren } from './executors/children.ts';
import type { PersonaBackend } from '../persistence/backend.ts';
import { providerWith } from '../persistence/provider.ts';
import { ledgerOf } from '../ledger/access.ts';
import { ledgerPart } from '../ledger/backend-part.ts';
import { personaBindings } from './bindings.ts';
import { readAgentEnv } from './budget/env.ts';
import { budgetLimits } from './budget/posture.ts';
import { scienceLoopSteps, type ScienceLoopSettings } from './steps.ts';
import { historyPart } from '../history/loop-part.ts';
import { skillScriptTools } from '../skills/scripts.ts';
import { defaultSandboxKit } from '../../sandboxes/index.ts';
import { personaToolRunners } from './tool-runners.ts';

export interface CompositionSettings extends Omit<ScienceLoopSettings, 'children'> {
  /** harness manifests (tests); default: policies/harnesses/ */
  harnessesDir?: string;
  /** the registry of the run's subprocesses (the run command keeps it to stop them on a signal); default: a new one */
  children?: ChildRegistry;
}

/** The default composition for a run with these settings. */
export function defaultComposition(settings: CompositionSettings = {}): LoopComposition {
  const registry = settings.children ?? new ChildRegistry();
  // One tracker a persona, shared by its plugins' subprocesses and its decide step.
  const trackers = new Map<string, PersonaChildren>();
  const children = (personaId: string): PersonaChildren => {
    let tracker = trackers.get(personaId);
    if (!tracker) trackers.set(personaId, (tracker = registry.forPersona(personaId)));
    return tracker;
  };
  return {
    sandbox: (o) => defaultSandboxKit(o),
    tools: personaToolRunners,
    steps: new StepRegistry().register(...scienceLoopSteps({ ...settings, children })),
    tracker: children,
    persistence: providerWith([ledgerPart]),
    history: historyPart,
    scriptTools: skillScriptTools(settings.skillsDirs ?? []),
    harnesses: new HarnessCatalog(settings.harnessesDir),
    limits: (profile, env) => budgetLimits(profile, readAgentEnv(env)),
    pluginEnv: (paths, profile) => ledgerEnv(paths.dir, profile.id),
    bindings: (w) => personaBindings(w.paths, w.profile.id, w.clock, () => w.log, { ledger: ledgerOf(w.backend as PersonaBackend), memory: w.backend.memory }, w.scrub),
  };
}

/** Loop options with the composition optional (the default one, built from `skillsDir`/`skillsDirs`). */
export type DefaultLoopOptions = Omit<LoopOptions, 'composition'> & { composition?: LoopComposition; skillsDir?: string } & CompositionSettings;

function withComposition<T extends DefaultLoopOptions>(options: T): T & { composition: LoopComposition } {
  const skillsDirs = options.skillsDirs ?? (options.skillsDir ? [options.skillsDir] : undefined);
  const composition =
    options.composition ??
    defaultComposition({ ...(skillsDirs ? { skillsDirs } : {}), ...(options.harnessesDir ? { harnessesDir: options.harnessesDir } : {}), ...(options.children ? { children: options.children } : {}) });
  return { ...options, composition };
}

/** openLoopKernel with the default composition. */
export function openLoopKernel(options: DefaultLoopOptions): Promise<LoopKernel> {
  return openKernel(withComposition(options));
}

/** runPersonas with the default composition. */
export async function runPersonas(personas: readonly LoadedPersona[], options: Omit<RunOptions, 'composition'> & DefaultLoopOptions): Promise<ScienceRun[]> {
  return (await runKernelPersonas(personas, withComposition(options))) as ScienceRun[];
}

/** replayPersona with the default composition's sandbox, persistence and plugin environment. */
export function replayPersona(options: Omit<ReplayOptions, 'persistence' | 'sandbox' | 'tools'> & Partial<Pick<ReplayOptions, 'persistence' | 'sandbox' | 'tools'>> & { skillsDirs?: readonly string[] }): Promise<ReplayReport> {
  const { skillsDirs, ...rest } = options;
  const composition = defaultComposition(skillsDirs ? { skillsDirs } : {});
  return replayKernelPersona({
    sandbox: composition.sandbox,
    tools: composition.tools,
    persistence: composition.persistence,
    ...(composition.pluginEnv ? { pluginEnv: composition.pluginEnv } : {}),
    ...(composition.scriptTools ? { scriptTools: composition.scriptTools } : {}),
    ...rest,
  });
}
