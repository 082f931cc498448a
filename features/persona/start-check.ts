/**
 * Refuse at start what cannot work. Before a persona opens anything, everything it names is
 * resolved: its harness and each step the harness lists, the plugin in each slot (installed,
 * of the kind the slot needs, listing and really exporting what will be called: the bundle is
 * loaded to see), its persistence backend against the one its state is in, and whatever each
 * step checks for itself (programs on PATH, skills). Every problem is one line naming the
 * persona, the file and the field; the persona does not start, the others do.
 */
import { existsSync } from 'node:fs';
import { ensurePersonaDir } from '../persistence/state/state-dir.ts';
import path from 'node:path';
import { isKernelError, kernelError, type KernelError } from '../../kernel/errors.ts';
import type { LoadedPersona, PersonaProfile } from '../../kernel/personas/profile-schema.ts';
import { persistencePluginOf, profileDsnOf } from '../profiles/profile-slots.ts';
import { BACKEND_EXPORTS } from '../../kernel/contracts/persistence.ts';
import type { LoadedPlugin, PluginRegistry } from '../../kernel/plugins/registry.ts';
import { displayPath } from '../plugin-search/scan.ts';
import type { ScriptToolSpec } from './tools/script-spec.ts';
import { didYouMean } from '../profiles/suggest.ts';
import { RECORD_STEP, REVIEW_STEP, type LoadedHarness } from '../../kernel/loop/harness.ts';
import { isPluginStep, pluginStep } from './steps/plugin-step.ts';
import { REVIEW_STEP_VALUES } from './steps/review-step.ts';
import type { StepValueUse } from '../../kernel/loop/step-values.ts';
import { valueOrderProblems } from './cycle-values.ts';
import { personaPaths } from '../persona-layout/layout.ts';
import { buildPersonaPlugin, personaPluginOptions, type PersonaPluginOptions } from './plugin-options.ts';
import type { LoopKernel } from './persona-runtime.ts';
import type { LoopStep, PersonaStart, SlotRequirement, StartProblem } from '../../kernel/loop/steps.ts';
import type { PluginKind } from '../../kernel/manifest/plugin-manifest.ts';

export interface StartResolution {
  harness: LoadedHarness;
  /** the harness's cycle steps in order (record aside): registered steps and step plugins */
  steps: LoopStep[];
  /** the persistence backend the persona opens (a name: `jsonl-fs`, `sqlite`) */
  backend: string;
  /** the plugins as this persona sees them: the kernel's registry with its profile's `trust:` granted */
  registry: PluginRegistry;
  /** the scripts of its selected skills, offered as tools (each under the profile its grant allows) */
  scripts: ScriptToolSpec[];
}

function profileFile(persona: LoadedPersona): string {
  return displayPath(persona.file);
}

/** One problem as its line: `persona <id>: <file>: <field>: <reason>`. */
export function problemLine(persona: LoadedPersona, problem: StartProblem): string {
  return `persona ${persona.profile.id}: ${problem.file ?? profileFile(persona)}: ${problem.field}: ${problem.reason}`;
}

function refusal(persona: LoadedPersona, problems: StartProblem[]): KernelError {
  const lines = problems.map((p) => problemLine(persona, p));
  const more = lines.length > 1 ? ` (and ${lines.length - 1} more problem${lines.length > 2 ? 's' : ''})` : '';
  return kernelError('RTC_ERR_PERSONA_START', `${lines[0]}${more}`, { details: { persona: persona.profile.id, problems: lines } });
}

/**
 * The persistence slot's backend could not be opened for a reason the operator fixes (no
 * database named, unreachable, a database newer than this runtimectl, a plugin that does not
 * load): a start refusal naming the profile's file and field, like every other slot's.
 */
const BACKEND_START_CODES: ReadonlySet<string> = new Set(['RTC_ERR_PERSISTENCE_CONFIG', 'RTC_ERR_PERSISTENCE_PLUGIN', 'RTC_ERR_PERSISTENCE_BINDING', 'RTC_ERR_PERSISTENCE_UNREACHABLE', 'RTC_ERR_PERSISTENCE_SCHEMA_NEWER']);

export function backendStartRefusal(persona: LoadedPersona, error: unknown): unknown {
  if (!isKernelError(error) || error.internal || !BACKEND_START_CODES.has(error.code)) return error;
  const field = persona.profile.persistence !== undefined ? 'persistence' : 'persistence (default)';
  return refusal(persona, [{ field, reason: `${error.code}: ${error.message}` }]);
}

/** The problem lines of an RTC_ERR_PERSONA_START refusal (one per problem). */
export function startProblems(error: unknown): string[] {
  if (isKernelError(error) && error.code === 'RTC_ERR_PERSONA_START' && Array.isArray(error.details.problems)) return error.details.problems as string[];
  return [];
}

function reasonOf(error: unknown): string {
  if (!isKernelError(error)) throw error;
  return error.message;
}

/** A harness error's message without its own file prefix (the line names the file already). */
function harnessProblem(catalogDir: string, persona: LoadedPersona, error: KernelError): StartProblem {
  const named = persona.profile.harness;
  if (named !== undefined && error.code === 'RTC_ERR_MANIFEST_NOT_FOUND') return { field: 'harness', reason: error.message };
  if (named === undefined && error.code === 'RTC_ERR_MANIFEST_INVALID' && error.details.field === 'harness') return { field: 'harness', reason: error.message.replace(/^harness: /, '') };
  // The harness file itself is bad: its message is `file: field: reason` already.
  const [file, field, ...rest] = error.message.split(': ');
  if (rest.length > 0 && file !== undefined && field !== undefined) return { file, field, reason: rest.join(': ') };
  return { file: displayPath(catalogDir), field: 'harness', reason: error.message };
}

/** The kernel's own slots: the persistence backend and the tools the profile selects. */
function kernelRequirements(profile: PersonaProfile, backend: string, registry: PersonaStart['registry']): SlotRequirement[] {
  const out: SlotRequirement[] = [{ field: profile.persistence !== undefined ? 'persistence' : 'persistence (default)', plugin: `persistence.${backend}`, kind: 'persistence', calls: [...BACKEND_EXPORTS] }];
  profile.tools.forEach((tool, i) => {
    const tools = registry.get(tool)?.manifest.tools?.map((t) => t.export) ?? [];
    out.push({ field: `tools[${i}]`, plugin: tool, kind: 'tool', calls: tools });
  });
  return out;
}

/** Options a throwaway instance is built with for a start check: the persona's grant, no bindings, no audit. */
function checkOptions(kernel: LoopKernel, profile: PersonaProfile): PersonaPluginOptions {
  const paths = personaPaths(kernel.stateDir, profile.id);
  return personaPluginOptions({
    stateDir: kernel.stateDir,
    profile,
    hostEnv: kernel.env,
    limits: kernel.composition.limits(profile, kernel.env),
    extraEnv: kernel.composition.pluginEnv?.(paths, profile) ?? {},
    kit: kernel.sandbox,
    tools: kernel.composition.tools,
    bindings: {},
    audit: () => undefined,
    sources: kernel.sources,
  });
}

/** Calls `method` of a plugin in a throwaway isolate under the persona's grant (what a step check may ask). */
async function probeCall(kernel: LoopKernel, profile: PersonaProfile, plugin: LoadedPlugin, kind: PluginKind, method: string, args: unknown[]): Promise<unknown> {
  const instance = buildPersonaPlugin(checkOptions(kernel, profile), plugin, kind);
  try {
    return await instance.call(method, ...args);
  } finally {
    instance.dispose();
  }
}

/** The bundle's real exports, loaded once per plugin folder and start. */
function bundleExports(kernel: LoopKernel, profile: PersonaProfile, plugin: LoadedPlugin, kind: PluginKind): Promise<readonly string[]> {
  const seen = kernel.exportsSeen.get(plugin.dir);
  if (seen) return seen;
  const loading = (async () => {
    const instance = buildPersonaPlugin(checkOptions(kernel, profile), plugin, kind);
    try {
      return await instance.exportNames();
    } finally {
      instance.dispose();
    }
  })();
  kernel.exportsSeen.set(plugin.dir, loading);
  return loading;
}

async function checkRequirement(kernel: LoopKernel, start: PersonaStart, req: SlotRequirement): Promise<StartProblem[]> {
  const at = req.fromEnv ? { file: 'environment', field: req.field } : { ...(req.file ? { file: req.file } : {}), field: req.field };
  let plugin: LoadedPlugin;
  try {
    plugin = start.registry.find(req.plugin, req.kind);
  } catch (error) {
    return [{ ...at, reason: reasonOf(error) }];
  }
  const manifestFile = displayPath(path.join(plugin.dir, 'plugin.yaml'));
  // A tool plugin that mounts an MCP server has no code of ours to load: its tools are listed when first asked.
  if (req.kind === 'tool' && plugin.manifest.mcp) return [];
  if (req.kind === 'tool' && (plugin.manifest.tools ?? []).length === 0) {
    return [{ ...at, reason: `tool plugin ${req.plugin} offers no tools (${manifestFile}: tools: lists each exported tool with its description and input_schema)` }];
  }
  const unlisted = req.calls.filter((name) => !plugin.manifest.exports.includes(name));
  if (unlisted.length > 0) {
    return [{ ...at, reason: `plugin ${req.plugin} does not list ${unlisted.map((n) => `"${n}"`).join(', ')} in its exports (${manifestFile}: exports: [${plugin.manifest.exports.join(', ')}])` }];
  }
  let names: readonly string[];
  try {
    names = await bundleExports(kernel, start.profile, plugin, req.kind);
  } catch (error) {
    return [{ ...at, reason: `plugin ${req.plugin} does not load: ${reasonOf(error)}` }];
  }
  const missing = plugin.manifest.exports.filter((name) => !names.includes(name));
  if (missing.length === 0) return [];
  return [{ file: manifestFile, field: 'exports', reason: `${missing.map((n) => `"${n}"`).join(', ')} ${missing.length === 1 ? 'is' : 'are'} not exported by ${plugin.manifest.entry} (its bundle exports: ${names.join(', ') || 'nothing'}); named by ${req.fromEnv ? req.field : `the persona's ${req.field}`}` }];
}

/**
 * The persistence backend the persona opens: the profile's, else the one its state records,
 * else the default. A profile naming another backend than the one holding the persona's state
 * is refused with how to move it (the state is never opened in a backend that does not hold it).
 */
async function chooseBackend(kernel: LoopKernel, profile: PersonaProfile, registry: PluginRegistry): Promise<{ backend: string; problem?: StartProblem }> {
  const provider = kernel.composition.persistence;
  const dir = personaPaths(kernel.stateDir, profile.id).dir;
  const recorded = existsSync(dir) ? provider.recorded(dir) : undefined;
  const wanted = persistencePluginOf(profile)?.replace(/^persistence\./, '');
  if (wanted === undefined) return { backend: recorded ?? provider.defaultName };
  const move = (from: string, where: string) => ({
    backend: wanted,
    problem: {
      field: 'persistence',
      reason: `the profile names persistence.${wanted}, but this persona's state is in persistence.${from} (${where}); move it first with "runtimectl persistence export --persona ${profile.id} --to ${wanted} --switch" (persona stopped), or name persistence.${from}`,
    },
  });
  if (recorded !== undefined) return recorded === wanted ? { backend: wanted } : move(recorded, `${profile.id}/persistence.yaml`);
  if (wanted === provider.defaultName || !existsSync(dir)) return { backend: wanted };
  // No record: the state, if any, is in the default backend. Only an empty one may be left behind.
  try {
    const existing = await provider.open(dir, provider.defaultName, { readonly: true, personaId: profile.id, registry });
    try {
      if (!existing.events.isEmpty()) return move(provider.defaultName, 'its state directory');
    } finally {
      await existing.close();
    }
  } catch (error) {
    return { backend: wanted, problem: { field: 'persistence', reason: `the state already in persistence.${provider.defaultName} cannot be read (${reasonOf(error)})` } };
  }
  return { backend: wanted };
}

/** Resolves everything the persona names, or throws RTC_ERR_PERSONA_START with one line per problem. */
export async function checkPersonaStart(kernel: LoopKernel, persona: LoadedPersona): Promise<StartResolution> {
  const profile = persona.profile;
  let harness: LoadedHarness;
  try {
    harness = kernel.harnesses.forProfile(profile, persona.file);
  } catch (error) {
    if (!isKernelError(error)) throw error;
    throw refusal(persona, [harnessProblem(kernel.harnesses.dir, persona, error)]);
  }
  const harnessFile = kernel.harnesses.display(harness);
  // The persona's plugins: the kernel's registry with the operator's grant of its profile applied.
  const registry = kernel.registry.granting(profile.trust);
  const { steps, pluginRequirements, problems } = resolveSteps(kernel, harness, harnessFile, registry);
  if (problems.length > 0) throw refusal(persona, problems);

  const start: PersonaStart = {
    persona,
    profile,
    harness,
    registry,
    env: kernel.env,
    stateDir: kernel.stateDir,
    spendTokens: kernel.spendTokens,
    probe: (pluginId, kind, method, ...args) => probeCall(kernel, profile, registry.find(pluginId, kind), kind, method, args),
  };
  const { backend, problem } = await chooseBackend(kernel, profile, registry);
  // The throwaway isolates of the checks run under the persona's grant, rooted in its folder.
  ensurePersonaDir(kernel.stateDir, profile.id);
  if (problem) problems.push(problem);
  // A database the profile names by a variable that is not set (and no --dsn overrides it).
  const named = profileDsnOf(profile, kernel.env);
  if (kernel.dsn === undefined && named !== undefined && named.dsn === undefined) problems.push({ field: 'persistence.dsn_env', reason: `${named.source}; set it to the database's DSN, or pass --dsn` });
  const requirements = [...kernelRequirements(profile, backend, registry), ...pluginRequirements, ...steps.flatMap((s) => s.requires?.(start) ?? [])];
  for (const req of requirements) problems.push(...(await checkRequirement(kernel, start, req)));
  // A step's own checks run only on a persona whose plugins resolve (they may call them).
  if (problems.length === 0) for (const step of steps) problems.push(...(await step.check?.(start) ?? []));
  if (problems.length > 0) throw refusal(persona, problems);
  const scripts = (await kernel.composition.scriptTools?.(profile)) ?? [];
  problems.push(...unknownTrust(profile, registry, scripts));
  if (problems.length > 0) throw refusal(persona, problems);
  return { harness, steps, backend, registry, scripts };
}

/**
 * The harness's steps resolved: each registered step or step plugin (installed, a loop-step,
 * its values known), then their order: every value a step reads produced by an earlier one
 * (the boundary's first), and no value produced twice. Each problem names the harness file
 * and the step's field (`steps[3]`), or the step plugin's manifest field.
 */
function resolveSteps(kernel: LoopKernel, harness: LoadedHarness, harnessFile: string, registry: PluginRegistry): { steps: LoopStep[]; pluginRequirements: SlotRequirement[]; problems: StartProblem[] } {
  const problems: StartProblem[] = [];
  const pluginRequirements: SlotRequirement[] = [];
  const registered = kernel.composition.steps;
  const ordered: { use: StepValueUse; field: string }[] = harness.manifest.boundary.flatMap((name, i) => (name === REVIEW_STEP ? [{ use: REVIEW_STEP_VALUES, field: `boundary[${i}]` }] : []));
  const steps: LoopStep[] = [];
  harness.manifest.steps.forEach((name, i) => {
    if (name === RECORD_STEP) return;
    const field = `steps[${i}]`;
    let step: LoopStep | undefined;
    if (isPluginStep(name)) {
      let plugin: LoadedPlugin;
      try {
        plugin = registry.find(name, 'loop-step');
      } catch (error) {
        problems.push({ file: harnessFile, field, reason: `step plugin: ${reasonOf(error)}` });
        return;
      }
      const made = pluginStep(plugin, registered);
      if ('problems' in made) return void problems.push(...made.problems);
      step = made.step;
      pluginRequirements.push({ file: harnessFile, field, plugin: name, kind: 'loop-step', calls: ['run'] });
    } else {
      step = registered.get(name);
      if (!step) return void problems.push({ file: harnessFile, field, reason: `unknown step "${name}" (steps features provide: ${registered.names().join(', ')}, and ${RECORD_STEP}; a step plugin is named by its id, step.<name>)` });
    }
    steps.push(step);
    ordered.push({ use: step, field });
  });
  if (problems.length > 0) return { steps, pluginRequirements, problems };
  const order = valueOrderProblems(ordered.map((o) => o.use), (i) => ordered[i]!.field);
  return { steps, pluginRequirements, problems: order.map((p) => ({ file: harnessFile, ...p })) };
}

/**
 * Every `trust:` entry that grants nothing: not an installed plugin, nor the id a selected
 * skill's plugin.yaml declares. A grant naming a typo would otherwise sit there unused while
 * the plugin the operator meant runs where they did not mean it to.
 */
function unknownTrust(profile: PersonaProfile, registry: PluginRegistry, scripts: readonly ScriptToolSpec[]): StartProblem[] {
  const skillIds = new Set(scripts.flatMap((s) => (s.manifestId ? [s.manifestId] : [])));
  const known = [...registry.list().map((p) => p.manifest.id), ...skillIds];
  return profile.trust.flatMap((id, i) =>
    registry.has(id) || skillIds.has(id)
      ? []
      : [{ field: `trust[${i}]`, reason: `${id}${didYouMean(id, known)} is not an installed plugin nor the id of a selected skill's plugin.yaml; a grant must name the plugin it trusts` }],
  );
}

/** A start check's plugin call, for code outside a check (the runtime's own context). */
export function probePlugin(kernel: LoopKernel, profile: PersonaProfile, pluginId: string, kind: PluginKind, method: string, args: unknown[]): Promise<unknown> {
  return probeCall(kernel, profile, kernel.registry.granting(profile.trust).find(pluginId, kind), kind, method, args);
}
