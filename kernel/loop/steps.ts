/**
 * Loop steps: what one named step of a harness does, and the registry features register
 * their steps in. The persona runtime (features/persona/persona-runtime.ts) runs the steps a harness names, in
 * order, and records them; what each step does is the feature's (features/science-loop has
 * brain, usage, budget, skills, ledger, phase, decide), or a plugin's (a `loop-step` plugin
 * named by its id: features/persona/steps/plugin-step.ts). `review` (the cycle boundary) and
 * `record` are the driver's own.
 *
 * A step declares the values it reads and produces (step-values.ts: a name and a zod schema):
 * a harness whose step reads a value no earlier step produces is refused at start.
 *
 * A step may also take part in a persona's start: say which plugins it will call (checked
 * before the persona starts: installed, of the right kind, exporting what will be called),
 * report other start problems, set up per-persona state, and contribute to `persona_start`.
 */
import type { PluginKind } from '../manifest/plugin-manifest.ts';
import type { McpServerSpec } from '../contracts/executor.ts';
import type { EventEnvelope } from '../events/envelope.ts';
import type { PersistenceBackend } from '../contracts/persistence.ts';
import type { LoadedPersona, PersonaProfile } from '../personas/profile-schema.ts';
import type { PluginRegistry } from '../plugins/registry.ts';
import { kernelError } from '../errors.ts';
import type { LoadedHarness } from './harness.ts';
import type { PersonaPaths, PathScrubber } from './persona-paths.ts';
import type { PermissionGate } from '../permissions/gate.ts';
import type { Scrubber } from '../redact/scrubber.ts';
import type { StepValue, StepValueAccess, StepValueUse } from './step-values.ts';

/** A plugin a step will call for a persona, and where that choice was made (for the message). */
export interface SlotRequirement {
  /** a file other than the profile that chose it (a harness naming a step plugin) */
  file?: string;
  /** the profile field (`executor.plugin`) or environment variable that chose it */
  field: string;
  /** true when `field` is an environment variable, not a profile field */
  fromEnv?: boolean;
  plugin: string;
  kind: PluginKind;
  /** the exports the step calls: each must be in the manifest and in the bundle */
  calls: readonly string[];
}

/** One start problem of a persona: the field at fault and why (the file defaults to the profile's). */
export interface StartProblem {
  /** a file other than the profile (a harness, an environment variable) */
  file?: string;
  field: string;
  reason: string;
}

/** What the cycle holds of a plugin: its calls (recorded while the cycle's recorder is set). */
export interface PluginHandle {
  readonly id: string;
  call(name: string, ...args: unknown[]): Promise<unknown>;
}

/**
 * The persona's plugins as its steps reach them. The kernel owns this port; the persona runtime
 * (features/persona/persona-plugins.ts) implements it over the persona's isolates.
 */
export interface StepPlugins {
  /** the plugin `id` of `kind`, started on first use under the persona's grant */
  get(id: string, kind: PluginKind): PluginHandle;
  /** the grant plugin `id` runs under: what its subprocesses' OS sandbox is planned from */
  gate(id: string, kind: PluginKind): PermissionGate;
  /** the executor session folder the next calls' `session` refs resolve in (null: none) */
  bindSession(dir: string | null): void;
}

/** What a step sees of a persona before it starts. */
export interface PersonaStart {
  persona: LoadedPersona;
  profile: PersonaProfile;
  harness: LoadedHarness;
  registry: PluginRegistry;
  env: Readonly<Record<string, string | undefined>>;
  stateDir: string;
  /** false: token-spending executors are never launched (run --no-spend) */
  spendTokens: boolean;
  /** calls a plugin in a throwaway isolate under the persona's grant, unrecorded (a start check) */
  probe(plugin: string, kind: PluginKind, method: string, ...args: unknown[]): Promise<unknown>;
}

/** A persona while it runs, as its steps see it. */
export interface PersonaContext extends PersonaStart {
  paths: PersonaPaths;
  backend: PersistenceBackend;
  plugins: StepPlugins;
  /** per-persona state of the steps, kept across cycles (each step owns its keys) */
  state: Map<string, unknown>;
  /** keeps host paths and the persona's secret values out of event payloads */
  scrub: PathScrubber;
  /** the persona's secret values and the pattern rules, for what steps write elsewhere (brain.json) */
  secrets: Scrubber;
  clock: () => number;
  /** cycles of this kernel in flight now, this one included: durable work may leave the main thread when others can use it */
  concurrentCycles(): number;
  /** the MCP server the kernel hands this persona's executors (LoopOptions.mcpServer), or null */
  mcp: McpServerSpec | null;
  /**
   * the persona's tools: the names it offers (what its MCP server lists; null when they cannot
   * be listed), this cycle's calls so far, and which executor session is running (an agent's
   * MCP calls, a proposal among them, are recorded as that session's; null when it ended)
   */
  tools: { offered(): Promise<string[] | null>; calls(): readonly ToolCallNote[]; session?(running: { run_id: string; executor: string } | null): void };
}

/** One tool call of the persona: its `tool_call` event, for what a session's manifest records. */
export interface ToolCallNote {
  tool: string;
  /** who asked: `mcp` (an MCP client through the kernel's relay: an agent's session, `mcp serve`), `binding` (a plugin), `cli` (tools call) */
  via: 'binding' | 'mcp' | 'cli';
  ok: boolean;
  /** the error's code when it failed (RTC_ERR_...; null for an error without one) */
  code: string | null;
  /** the tool_call event's seq (null only while its append is in flight) */
  seq: number | null;
}

/** One cycle, as its steps see it (get and put reach only the values the step declared). */
export interface CycleContext extends StepValueAccess {
  persona: PersonaContext;
  cycle: number;
  now: number;
  /** problems of this cycle (logged in the cycle event; a cycle never throws for bad input) */
  problems: string[];
  /** fields of the cycle event the steps add (the driver adds the loop's own) */
  payload: Record<string, unknown>;
  /** what the cycle's report carries for callers besides the event (run --summary, tests) */
  report: Record<string, unknown>;
  /** work to do once the cycle event is durable (brain.json); run in the order added */
  afterRecord(work: (seq: number) => void | Promise<void>): void;
}

export interface LoopStep extends StepValueUse {
  readonly name: string;
  /** values an earlier step must produce (a harness without such a step is refused at start) */
  readonly reads?: readonly StepValue<any>[];
  /** values read when some step produced them by then (optional inputs; after the event, any step's) */
  readonly uses?: readonly StepValue<any>[];
  /** values this step hands later ones (each produced by one step of a harness) */
  readonly produces?: readonly StepValue<any>[];
  /** once per process, before any persona opens: a bad environment stops the start */
  checkEnvironment?(env: Readonly<Record<string, string | undefined>>): void;
  /** the plugins this step will call for the persona */
  requires?(start: PersonaStart): SlotRequirement[];
  /** other problems that would keep this step from working for the persona */
  check?(start: PersonaStart): StartProblem[] | Promise<StartProblem[]>;
  /** once per persona when it opens, before the history pass: set up the step's state */
  prepare?(persona: PersonaContext): void;
  /** each of the persona's events (oldest first) as found at open, e.g. to rebuild a usage window */
  history?(persona: PersonaContext, event: EventEnvelope): void;
  /** after the persona's state is open and its history read; may add fields to `persona_start` */
  open?(persona: PersonaContext, start: Record<string, unknown>): void | Promise<void>;
  run(cycle: CycleContext): void | Promise<void>;
}

/**
 * Steps by name, and the values they declare by name (what a step plugin's manifest names).
 * Features register theirs; the composition hands the registry to the driver.
 */
export class StepRegistry {
  readonly #steps = new Map<string, LoopStep>();
  readonly #values = new Map<string, StepValue>();

  register(...steps: LoopStep[]): this {
    for (const step of steps) {
      if (this.#steps.has(step.name)) throw kernelError('RTC_ERR_HARNESS_STEP', `two steps are registered as "${step.name}"`, { internal: true });
      this.values(...(step.reads ?? []), ...(step.uses ?? []), ...(step.produces ?? []));
      this.#steps.set(step.name, step);
    }
    return this;
  }

  /** Values a step plugin may name (those of registered steps are known already); one schema per name. */
  values(...values: StepValue<any>[]): this {
    for (const value of values) {
      const known = this.#values.get(value.name);
      if (known && known !== value) throw kernelError('RTC_ERR_HARNESS_STEP', `two step values are named "${value.name}"`, { internal: true });
      this.#values.set(value.name, value);
    }
    return this;
  }

  value(name: string): StepValue | undefined {
    return this.#values.get(name);
  }

  valueNames(): string[] {
    return [...this.#values.keys()].sort();
  }

  get(name: string): LoopStep | undefined {
    return this.#steps.get(name);
  }

  names(): string[] {
    return [...this.#steps.keys()].sort();
  }

  all(): LoopStep[] {
    return [...this.#steps.values()];
  }
}
