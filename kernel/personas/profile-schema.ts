/**
 * Persona profiles (`policies/personas/<id>.yaml`): which plugin set one persona runs with.
 * A profile picks skills, one executor, one budget policy and its budgets, the activity
 * phases and cadence, the permission ceiling its plugins get, and the bindings it grants.
 * Every persona runs the same loop; nothing in the kernel looks at a persona's id to decide
 * anything, only at these fields.
 */
import { z } from 'zod';
import { BINDING_NAMES } from '../manifest/plugin-manifest.ts';
import { permissionsSchema } from '../manifest/permissions-schema.ts';
import { DEFAULT_REVIEW_POLICY, reviewPolicySchema } from '../review/policy.ts';

/** The spec's activity phases, in the order a profile usually lists them. */
export const PHASES = ['science_patrol', 'science_compute_patrol', 'governance_patrol'] as const;
export type Phase = (typeof PHASES)[number];

const pluginId = z.string().regex(/^[a-z][a-z0-9-]*(\.[a-z][a-z0-9-]*)+$/, 'a dotted plugin id such as executor.codex');
const count = z.number().int().min(0);
const seconds = z.number().positive().max(86_400);

/** A persona id names a directory under the state dir and a skills folder: one plain segment. */
export const PERSONA_ID_PATTERN = /^[a-z0-9][a-z0-9_-]{0,62}$/;

export const personaProfileSchema = z.strictObject({
  $schema: z.string().optional(),
  id: z.string().regex(PERSONA_ID_PATTERN, 'lowercase letters, digits, "-" and "_" (it names the state directory)').describe('the persona id; also its folder under the state directory'),
  description: z.string().min(1).max(1000).optional(),
  runtime: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, 'a runtime target such as agent-jerome')
    .describe('runtime target: agent-<persona> for canonical deployments; any other name is a compatibility harness (minimax, operon, rosalind)'),
  skills: z.array(z.string().min(1).max(200)).default([]).describe('skill names or globs: shared/*, persona/<id>/*, a bare name'),
  executor: z
    .strictObject({
      plugin: pluginId.optional().describe('executor plugin id; default: executor.orchestra for agent-* targets, executor.none otherwise'),
      enabled: z.boolean().optional().describe('default: true for agent-* targets, false otherwise'),
      config: z.record(z.string(), z.unknown()).default({}).describe('passed to the executor plugin as is'),
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
  phases: z.array(z.enum(PHASES)).min(1).default([...PHASES]).describe('activity phases, taken in turn one per cycle'),
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

/** `canonical` for agent-<persona> targets, `compatibility_harness` for every other target. */
export type RuntimeKind = 'canonical' | 'compatibility_harness';

export function runtimeKindOf(runtime: string): RuntimeKind {
  return /^agent-[a-z0-9]/.test(runtime) ? 'canonical' : 'compatibility_harness';
}
