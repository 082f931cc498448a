/**
 * Persona profiles (`policies/personas/<id>.yaml`): which plugin set one persona runs with.
 * A profile names a harness (the loop's steps) and one plugin per slot: skills, tools, one
 * executor (with config kept per executor), one budget policy and its budgets, one phase
 * selector and the phases, one persistence backend; also the cadence, the permission ceiling
 * its plugins get, and the bindings it grants. Nothing in the kernel looks at a persona's id
 * to decide anything, only at these fields.
 */
import { z } from 'zod';
import { BINDING_NAMES } from '../manifest/plugin-manifest.ts';
import { permissionsSchema } from '../manifest/permissions-schema.ts';
import { DEFAULT_REVIEW_POLICY, reviewPolicySchema } from './review-policy.ts';
import { PERSONA_ID_PATTERN, PLAIN_NAME_PATTERN, PLUGIN_ID_PATTERN } from '../ids.ts';

/** A harness file named relative to the profile: `./loops/mine.yaml`, `../harnesses/x.yaml` (never absolute, so a profile travels with its folder). */
export const HARNESS_FILE_PATTERN = /^\.{1,2}\/(?:[A-Za-z0-9_.-]+\/)*[a-z][a-z0-9_-]{0,62}\.yaml$/;

/** The spec's activity phases, in the order a profile usually lists them. */
export const PHASES = ['science_patrol', 'science_compute_patrol', 'governance_patrol'] as const;
export type Phase = (typeof PHASES)[number];

const pluginId = z.string().regex(PLUGIN_ID_PATTERN, 'a dotted plugin id such as executor.codex');
/** The default phase selector: the phases in turn, one per cycle. */
export const DEFAULT_PHASE_SELECTOR = 'phase.round-robin';

/**
 * `executor.config`: keyed by executor plugin id (`executor.codex: {model: ...}`), so an
 * override of the executor (SCIDEX_AGENT_CONTINUOUS_EXECUTOR) picks that executor's own config
 * or its defaults, never another's. The older flat form (`config: {command: ...}`) is still
 * read: it belongs to the executor the profile names (executor.plugin) and to no other.
 */
const executorConfigSchema = z
  .record(z.string(), z.unknown())
  .superRefine((config, ctx) => {
    const keys = Object.keys(config);
    const keyed = keys.filter((k) => PLUGIN_ID_PATTERN.test(k));
    if (keyed.length > 0 && keyed.length < keys.length) {
      const flat = keys.find((k) => !PLUGIN_ID_PATTERN.test(k))!;
      ctx.addIssue({ code: 'custom', path: [flat], message: 'mixes the two forms: key every entry by executor plugin id (executor.codex: {...}), or none (a flat config for executor.plugin only)' });
    }
    for (const k of keyed) {
      const value = config[k];
      if (value === null || typeof value !== 'object' || Array.isArray(value)) ctx.addIssue({ code: 'custom', path: [k], message: 'an executor\'s config is a mapping' });
    }
  });
const count = z.number().int().min(0);
const seconds = z.number().positive().max(86_400);

/** A Postgres DSN in a profile: a URL, never with a password (the profile text is kept in every trace). */
const profileDsn = z
  .string()
  .max(2000)
  .refine((dsn) => /^postgres(ql)?:\/\//.test(dsn), 'a postgres:// URL')
  .refine((dsn) => {
    try {
      return new URL(dsn).password === '' && !/[?&]password=/i.test(dsn);
    } catch {
      return false;
    }
  }, 'holds a password (or is not a URL): the profile text is kept in every trace; name the variable that holds the DSN with dsn_env, or give the password in PGPASSWORD');

/** `persistence: {plugin, dsn_env | dsn}`: the backend and, for Postgres, where its database is named. */
const persistenceSlotSchema = z
  .strictObject({
    plugin: pluginId.describe('the persistence backend plugin'),
    dsn_env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a variable name').optional().describe('the environment variable holding the database DSN (password included); --dsn overrides it, and it overrides RUNTIMECTL_POSTGRES_DSN'),
    dsn: profileDsn.optional().describe('the database DSN without a password (PGPASSWORD or ~/.pgpass gives it); --dsn overrides it'),
  })
  .refine((slot) => slot.dsn === undefined || slot.dsn_env === undefined, { message: 'name the database once: dsn_env or dsn, not both', path: ['dsn'] });

/** The persistence plugin a profile names, whichever form it uses. */
export function persistencePluginOf(profile: { persistence?: string | { plugin: string } | undefined }): string | undefined {
  const slot = profile.persistence;
  return typeof slot === 'string' ? slot : slot?.plugin;
}

/**
 * The database a profile names for its Postgres backend: the value of its dsn_env variable in
 * `env`, or its dsn. `source` says which, for messages; undefined when the profile names none.
 */
export function profileDsnOf(profile: { persistence?: unknown }, env: Readonly<Record<string, string | undefined>>): { dsn: string; source: string } | { dsn: undefined; source: string } | undefined {
  const slot = profile.persistence;
  if (typeof slot !== 'object' || slot === null) return undefined;
  const { dsn_env: name, dsn } = slot as { dsn_env?: string; dsn?: string };
  if (name !== undefined) {
    const value = env[name];
    return value !== undefined && value.trim() !== '' ? { dsn: value, source: `$${name} (persistence.dsn_env)` } : { dsn: undefined, source: `$${name} (persistence.dsn_env) is not set` };
  }
  return dsn !== undefined ? { dsn, source: 'persistence.dsn' } : undefined;
}

/** The id rules are kernel/ids.ts's; re-exported for the modules that read them here. */
export { PERSONA_ID_PATTERN, PLUGIN_ID_PATTERN };

export const personaProfileSchema = z.strictObject({
  $schema: z.string().optional(),
  id: z.string().regex(PERSONA_ID_PATTERN, 'lowercase letters, digits, "-" and "_" (it names the state directory)').describe('the persona id; also its folder under the state directory'),
  description: z.string().min(1).max(1000).optional(),
  runtime: z
    .string()
    .regex(PLAIN_NAME_PATTERN, 'a runtime target such as agent-jerome')
    .describe('runtime target: agent-<persona> for canonical deployments; minimax, operon, rosalind, codex, claude are compatibility harnesses'),
  harness: z
    .string()
    .refine((h) => PLAIN_NAME_PATTERN.test(h) || HARNESS_FILE_PATTERN.test(h), 'a harness id (policies/harnesses/<id>.yaml), or a harness file relative to this profile (./loops/<id>.yaml)')
    .optional()
    .describe('the harness: an id (policies/harnesses/<id>.yaml) or a harness file relative to this profile (./<id>.yaml, so an operator composes a loop with their own step plugins outside the checkout); the loop steps and slot defaults; default: the harness whose runtimes match this runtime'),
  skills: z.array(z.string().min(1).max(200)).default([]).describe('skill names or globs: shared/*, persona/<id>/*, a bare name; each must match a skill'),
  tools: z.array(pluginId).default([]).describe('tool plugins (kind tool) this persona offers its executor (and agents over MCP)'),
  executor: z
    .strictObject({
      plugin: pluginId.optional().describe("executor plugin id; default: the harness's (executor.orchestra for the canonical loop)"),
      enabled: z.boolean().optional().describe("default: the harness's (true for the canonical loop, false for compatibility harnesses)"),
      config: executorConfigSchema.default({}).describe('config per executor plugin id (executor.codex: {model: ...}); a flat mapping is the config of executor.plugin only'),
    })
    .default({ config: {} }),
  budget: z
    .strictObject({
      policy: pluginId.default('budget.voi-tiers').describe('the budget-policy plugin'),
      daily_tokens: count.optional().describe('daily token budget; without it (and without SCIDEX_AGENT_DAILY_TOKEN_BUDGET) token-spending executors never run'),
      max_tokens_per_session: count.optional().describe('cap on one executor session'),
      min_tokens_remaining_for_executor: count.default(0).describe('below this many tokens left in 24 h, executors stay off'),
      max_autonomous_sessions_per_day: count.default(12).describe('executor sessions allowed in any 24 h window'),
      cpu_seconds_per_cycle: seconds.default(2).describe('CPU seconds one plugin call of this persona may use'),
      wall_seconds_per_cycle: seconds.default(900).describe('wall seconds an executor session may run before its process group is killed'),
      config: z.record(z.string(), z.unknown()).default({}).describe('passed to the budget policy plugin as is'),
    })
    .default({ policy: 'budget.voi-tiers', min_tokens_remaining_for_executor: 0, max_autonomous_sessions_per_day: 12, cpu_seconds_per_cycle: 2, wall_seconds_per_cycle: 900, config: {} }),
  wallet: z
    .strictObject({ monthly_token_budget: count.optional().describe('advisory only: never unlocks executor sessions by itself') })
    .default({}),
  phase: pluginId.default(DEFAULT_PHASE_SELECTOR).describe('the phase-selector plugin that picks each cycle\'s phase from `phases`'),
  phases: z.array(z.enum(PHASES)).min(1).default([...PHASES]).describe('activity phases the phase selector picks from (the default takes them in turn, one per cycle)'),
  persistence: z
    .union([pluginId, persistenceSlotSchema])
    .optional()
    .describe('the persistence backend plugin (persistence.jsonl-fs, persistence.sqlite, persistence.postgres), or {plugin, dsn_env | dsn} to name a Postgres database too; default: the one the state directory records, else persistence.jsonl-fs'),
  cadence: z
    .strictObject({
      cycle_seconds: seconds.default(300).describe('seconds between cycles'),
      periodic_seconds: seconds.default(3600).describe('seconds between periodic patrol slots'),
    })
    .default({ cycle_seconds: 300, periodic_seconds: 3600 }),
  allow: permissionsSchema
    .default({ read: ['${state}'], write: ['${state}'] })
    .describe('the most this persona lets any of its plugins do (Deno vocabulary; ${state}, ${workspace}, ${session}, ${scratch} expand)'),
  bindings: z.array(z.enum(BINDING_NAMES)).default([]).describe('kernel bindings this persona grants to plugins that declare them'),
  trust: z
    .array(pluginId)
    .default([])
    .refine((ids) => new Set(ids).size === ids.length, 'names a plugin twice')
    .describe(
      "the operator's grant: plugin ids (a plugin from RUNTIMECTL_PLUGIN_PATH or --plugins-dir, or the id in a selected skill's plugin.yaml) that may run under the in-process sandbox profile their manifest asks for (trusted, persistence). Without it they run in the isolating process tier; first-party plugins of the checkout need no entry. An in-process isolate's fatal V8 error aborts the kernel and every persona: grant only code you vouch for. Each id must be installed (or a selected skill's), or the persona does not start",
    ),
  os_sandbox: z
    .enum(['required', 'off'])
    .default('required')
    .describe('required (default): every subprocess of this persona\'s plugins (codex, claude, any run grant) runs in the OS sandbox built from its grant, or is refused where bubblewrap cannot start; off: the operator opts out and they run unsandboxed, said in every cycle event'),
  public_writes: z.boolean().default(false).describe('whether executor work may publish outside the persona (never in read-only posture)'),
  env: z
    .array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*\*?$/, 'a variable name, or a prefix ending in *'))
    .default([])
    .describe('host environment variables handed to this persona\'s plugins (besides PATH and HOME), further limited by each plugin\'s env permission'),
  review: reviewPolicySchema
    .default(() => structuredClone(DEFAULT_REVIEW_POLICY) as z.output<typeof reviewPolicySchema>)
    .describe('review-queue backpressure: the cap on open proposals, the rate limit and the expiry'),
});

export type PersonaProfile = z.output<typeof personaProfileSchema>;

/** A profile as read from its file (features/profiles/load.ts finds and reads it). */
export interface LoadedPersona {
  profile: PersonaProfile;
  /** Absolute path of the YAML file. */
  file: string;
  /** sha256 of the file's bytes: which profile text a cycle ran under. */
  digest: string;
  /** the file's text as read (kept in the trace's blobs) */
  text: string;
}

/** Whether `config` is keyed by executor plugin id (every key a dotted id); {} counts as keyed. */
export function isKeyedExecutorConfig(config: Record<string, unknown>): boolean {
  return Object.keys(config).every((k) => PLUGIN_ID_PATTERN.test(k));
}

/**
 * The config executor `plugin` runs with: its own entry of a keyed config; with the flat form,
 * the whole mapping when `plugin` is the executor the profile names, else {} (its defaults).
 */
export function executorConfigFor(profile: PersonaProfile, plugin: string): Record<string, unknown> {
  const config = profile.executor.config;
  if (isKeyedExecutorConfig(config)) return (config[plugin] as Record<string, unknown> | undefined) ?? {};
  return profile.executor.plugin === plugin ? config : {};
}
