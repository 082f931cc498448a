/**
 * The catalog of the published contracts, one per plugin kind: what the kernel calls a plugin of
 * that kind with and what it accepts back, each a zod schema (the types are inferred from them, and
 * `npm run schemas` writes their JSON Schemas and docs/plugin-contracts.md from this catalog). The
 * schemas themselves live in the modules each entry names (kernel/contracts/<kind>.ts); plugins
 * import the types from those (`import type`), so kernel and plugins share one copy. Only the
 * doc and schema generators read this catalog (cli/contract-docs.ts, cli/schema-registry.ts).
 */
import type { z } from 'zod';
import type { PluginKind } from '../kernel/manifest/plugin-manifest.ts';
import { toolDeclarationSchema } from '../kernel/manifest/plugin-manifest.ts';
import { budgetAssessInputSchema, budgetDecisionSchema } from '../kernel/contracts/budget-policy.ts';
import { executorDescriptionSchema, executorInputSchema, executorResultSchema } from '../kernel/contracts/executor.ts';
import { phaseAnswerSchema, phasePickInputSchema } from '../kernel/contracts/phase-selector.ts';
import { gateCheckInputSchema, gateCheckResultSchema, gateCheckSectionSchema } from '../kernel/contracts/gate-check.ts';
import { loopStepInputSchema, loopStepResultSchema, loopStepSectionSchema } from '../kernel/contracts/loop-step.ts';

export interface ContractCall {
  /** the export the kernel calls */
  export: string;
  /** what it is called with (its one argument), if the kernel fixes it */
  input?: { name: string; schema: z.ZodType };
  /** what the kernel accepts back */
  output?: { name: string; schema: z.ZodType };
  doc: string;
}

export interface PluginContract {
  kind: PluginKind;
  /** the published module (for `import type`) */
  module: string;
  summary: string;
  /** the profile field that selects a plugin of this kind */
  selectedBy: string;
  /** which profile that field is in (default: the persona profile) */
  selectedIn?: string;
  calls: ContractCall[];
  /** a section of the manifest the kind declares (the tool kind's `tools:`, a gate check's `gate_check:`) */
  manifest?: { field: string; name: string; schema: z.ZodType; doc: string };
  /** contracts that are not zod schemas (an interface of exports, like a persistence backend's), said in prose */
  note?: string;
}

export const PLUGIN_CONTRACTS: PluginContract[] = [
  {
    kind: 'skill',
    module: 'features/skills/frontmatter-schema.ts',
    summary: 'Instructions an agent reads (Agent Skills): a folder `<name>/SKILL.md` on the skill search path, offered to the persona\'s executor in its prompt when the profile selects it; its code, if any, is evaluated by the gate before it is published.',
    selectedBy: 'skills (names such as shared/<name>, or globs; each must match a skill)',
    calls: [],
    note: 'A skill is text first: `SKILL.md` with front matter (`name` equal to the folder, `description`, optional `license`, `compatibility`, `metadata`, `allowed-tools`; schema `schemas/skill-frontmatter.schema.json`) and the files it refers to, read on demand. One with code adds a `plugin.yaml` of kind `skill` naming its `entry` and `exports`, like any plugin; the gate (`runtimectl gate`) builds and tests it. Skills are found in the built-in `skills/`, then `RUNTIMECTL_SKILLS_PATH` (`:`-separated), then each `--skills-dir`.',
  },
  {
    kind: 'executor',
    module: 'kernel/contracts/executor.ts',
    summary: 'Runs one session of work for the persona (a CLI like codex or claude, or the local Orchestra) and reports what it did and spent.',
    selectedBy: 'executor.plugin (SCIDEX_AGENT_CONTINUOUS_EXECUTOR overrides); its config: executor.config.<plugin id>',
    calls: [
      { export: 'describe', output: { name: 'contract-executor-description', schema: executorDescriptionSchema }, doc: 'Called with the executor\'s own config; says whether sessions spend tokens and which program runs (checked on PATH at start).' },
      { export: 'run', input: { name: 'contract-executor-input', schema: executorInputSchema }, output: { name: 'contract-executor-result', schema: executorResultSchema }, doc: 'One session for the cycle\'s work; the result is checked, bounded and logged.' },
    ],
  },
  {
    kind: 'budget-policy',
    module: 'kernel/contracts/budget-policy.ts',
    summary: 'Decides, before any spending, whether the cycle\'s work is worth a session and at which value-of-information tier.',
    selectedBy: 'budget.policy (its config: budget.config)',
    calls: [{ export: 'assess', input: { name: 'contract-budget-assess-input', schema: budgetAssessInputSchema }, output: { name: 'contract-budget-decision', schema: budgetDecisionSchema }, doc: 'The decision record the cycle event carries.' }],
  },
  {
    kind: 'phase-selector',
    module: 'kernel/contracts/phase-selector.ts',
    summary: 'Picks the activity phase of each cycle from the profile\'s phases (default: phase.round-robin, the phases in turn).',
    selectedBy: 'phase (the list: phases)',
    calls: [{ export: 'pick', input: { name: 'contract-phase-pick-input', schema: phasePickInputSchema }, output: { name: 'contract-phase-answer', schema: phaseAnswerSchema }, doc: 'The answer must be one of the profile\'s phases.' }],
  },
  {
    kind: 'tool',
    module: 'kernel/contracts/tool.ts',
    summary: 'Offers functions an executor (through the tools binding) or an agent (over MCP) may call by name `<plugin id>.<export>`, each in the tool\'s own isolate under its own grant.',
    selectedBy: 'tools (a list of tool plugin ids)',
    calls: [],
    manifest: { field: 'tools', name: 'contract-tool-declaration', schema: toolDeclarationSchema, doc: 'Each entry of the manifest\'s `tools:`: the export is called with one object of named arguments, checked against input_schema first; it returns any JSON value.' },
  },
  {
    kind: 'persistence',
    module: 'kernel/contracts/persistence.ts',
    summary: 'Holds a persona\'s events, brain memory, ledger and proposals.',
    selectedBy: 'persistence (default: the backend the state directory records, else persistence.jsonl-fs)',
    calls: [],
    note: 'Backends run in isolates (sandbox profile `persistence`, no Deno permission) and reach storage only through the storage bindings they declare (`storage.files`, `storage.sqlite`, `storage.postgres`). They export BACKEND_EXPORTS of kernel/contracts/persistence.ts, each called with the session token first; the kernel keeps the hash chain, group commit, verification and the sealed history, and builds the PersistenceBackend interface over those exports (features/persistence/isolated-backend.ts, README there).',
  },
  {
    kind: 'ledger',
    module: 'features/ledger/plugin-host.ts',
    summary: 'The persona\'s local task ledger (container-local Orchestra): task lifecycle, resource leases, checkpoints and surprises, over rows the persona\'s persistence backend keeps.',
    selectedBy: 'not a profile slot: the one ledger plugin (plugins/ledger) serves every persona, over the ledger rows of the persona\'s persistence backend (`storage.ledger`)',
    calls: [],
    note: 'Runs in an isolate under the `persistence` sandbox profile, with only the `storage.ledger` binding (forwarded by the kernel to the persona\'s backend, its `ledgerLoad`/`ledgerCommit` exports). Exports `open`, `call`, `close`; the `ledger` binding and `runtimectl ledger ...` reach the ledger through it (features/ledger/README.md).',
  },
  {
    kind: 'gate-check',
    module: 'kernel/contracts/gate-check.ts',
    summary: 'One check of a skill draft at the gate (snapshot, skill-manifest, prose-risk, permissions, build, tests, ...): it reads the draft\'s snapshot through its grant and reaches host services only through the `gate.*` bindings the gate profile grants it.',
    selectedBy: 'checks',
    selectedIn: 'gate profile (policies/gates/*.yaml)',
    calls: [{ export: 'check', input: { name: 'contract-gate-check-input', schema: gateCheckInputSchema }, output: { name: 'contract-gate-check-result', schema: gateCheckResultSchema }, doc: 'The result becomes the check\'s entry in the evidence; `failed` rejects the draft, `not-applicable` and `unavailable` are listed among what was not evaluated.' }],
    note: 'A gate profile lists its checks in order by name: the plugin id without `gate-check.` (`prose-risk` is the plugin `gate-check.prose-risk`). Adding a check is dropping its plugin folder on the plugin search path.',
    manifest: { field: 'gate_check', name: 'contract-gate-check-section', schema: gateCheckSectionSchema, doc: 'The earlier checks this one reads (a profile listing it must list them before it).' },
  },
  {
    kind: 'loop-step',
    module: 'kernel/contracts/loop-step.ts',
    summary: 'One step of a loop cycle, beside the steps features register: it reads step values earlier steps produced (the brain, the posture, ...), produces values for later steps (the phase, ...) and adds fields to the cycle event.',
    selectedBy: 'steps (its id, step.<name>, in the order of the cycle)',
    selectedIn: 'harness manifest (policies/harnesses/*.yaml)',
    calls: [{ export: 'run', input: { name: 'contract-loop-step-input', schema: loopStepInputSchema }, output: { name: 'contract-loop-step-result', schema: loopStepResultSchema }, doc: 'Once per cycle, recorded; each value is checked against its schema and each payload field against the manifest; what fails is a problem of the cycle.' }],
    note: 'The step values a plugin may name are those the composition\'s steps declare (the science loop\'s: features/science-loop/values.ts): brain, usage, posture, skills, ledger, phase, work, act, and the driver\'s review. A harness naming the plugin is refused at start when a value it reads is produced by no earlier step, or one it produces is produced by another step too.',
    manifest: { field: 'loop_step', name: 'contract-loop-step-section', schema: loopStepSectionSchema, doc: 'The step values it reads (an earlier step must produce them), uses when present and produces, and the cycle event fields it adds.' },
  },
];
