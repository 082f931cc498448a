/**
 * The executor contract (`kind: executor`): `describe(config) → description` and
 * `run(input) → result`. Executors run in the sandbox, so every value coming back is checked
 * against these schemas before the loop acts on it or logs it: unknown fields are dropped,
 * numbers are bounded, text is cut to size.
 *
 * One copy for kernel and plugins: plugins import the types (`import type`), which esbuild
 * erases, so nothing of zod is bundled into an isolate.
 */
import { z } from 'zod';
import { budgetDecisionSchema } from './budget-policy.ts';
import { workItemSchema } from './work.ts';

export { workItemSchema, type WorkItem } from './work.ts';
export { budgetDecisionSchema, TIER_NAMES, BUDGET_ACTIONS, type BudgetDecision } from './budget-policy.ts';

const count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const short = (max: number) => z.string().transform((s) => (s.length > max ? `${s.slice(0, max - 1)}…` : s));

/**
 * An MCP server an executor hands its harness (stdio: a command and its arguments). The
 * persona's own (a bridge to the running kernel's MCP tool relay, features/mcp/harness-server.ts)
 * is passed by LoopOptions.mcpServer; codex gets it as `-c mcp_servers.<name>.*`, claude as
 * `--mcp-config` with `--strict-mcp-config`. Its install is visible read-only in the OS
 * sandbox, so the harness can start it as its own child.
 */
export const mcpServerSpecSchema = z.object({
  name: z.string(),
  command: z.string(),
  args: z.array(z.string()),
  env: z.record(z.string(), z.string()).optional(),
  reads: z.array(z.string()).optional().describe('trees the server needs to read (its own code, e.g. the runtimectl install): visible read-only in the sandbox'),
});
export type McpServerSpec = z.infer<typeof mcpServerSpecSchema>;

/** What the OS sandbox around the session lets through, for the harness's own controls to agree. */
export const sessionSandboxSchema = z.object({
  mode: z.enum(['bubblewrap', 'off']).describe('bubblewrap, or off when the profile opted out'),
  net: z.union([z.literal(true), z.array(z.string())]).describe('the hosts the session may reach (through the kernel\'s proxy): all, or these'),
});
export type SessionSandbox = z.infer<typeof sessionSandboxSchema>;

/** What `run` is called with. */
export const executorInputSchema = z.object({
  run_id: z.string().describe('`c<cycle>-<executor>`: also the session folder\'s name'),
  persona_id: z.string().describe('the persona the session works for'),
  runtime: z.string().describe('its runtime target (agent-<persona>, or a compatibility target)'),
  phase: z.string().describe('the activity phase the phase selector picked'),
  prompt: z.string().describe('the prompt the kernel built (skills, work, budget decision); it goes to the harness on stdin, never in argv'),
  prompt_sha256: z.string().describe('`sha256:<hex>` of the prompt, for the session manifest'),
  sandbox: sessionSandboxSchema,
  mcp: mcpServerSpecSchema.nullable().describe('the persona\'s MCP server, when the kernel hands one to the harness'),
  work: z.array(workItemSchema).describe('the work offered this cycle (at most 5 items)'),
  config: z.record(z.string(), z.unknown()).describe('this executor\'s own config from the profile (executor.config.<plugin id>), or {}'),
  paths: z.object({
    session_dir: z.string().describe('absolute, for the plugin\'s own file writes (inside its ${session} grant)'),
    workspace_dir: z.string().describe('absolute: the persistent workspace (the session\'s cwd)'),
    session_rel: z.string().describe('relative to the state directory: what the plugin may quote in its files'),
    ledger_db_rel: z.string().describe('the local ledger\'s database, relative to the state directory'),
    provider_home: z.string().describe('the executor\'s provider home: HOME, CODEX_HOME, CLAUDE_CONFIG_DIR of the session'),
  }),
  limits: z.object({ wall_seconds: z.number(), max_tokens_per_session: z.number().nullable() }).describe('the session\'s wall limit (its process group is killed after it) and token cap'),
  decision: budgetDecisionSchema.nullable().describe('the budget policy\'s decision that approved this run'),
});
export type ExecutorInput = z.output<typeof executorInputSchema>;

export const usageSchema = z.object({
  input_tokens: count.default(0),
  cached_input_tokens: count.default(0),
  output_tokens: count.default(0),
  reasoning_tokens: count.default(0),
  cache_read_input_tokens: count.default(0),
  cache_creation_input_tokens: count.default(0),
  total_tokens: count.default(0),
  source: short(40).default('unknown').describe('which output the figures were read from'),
});
export type ProviderUsage = z.output<typeof usageSchema>;

export const EXECUTOR_STATUSES = ['ok', 'failed', 'timed_out', 'not_found', 'skipped', 'interrupted'] as const;
export type ExecutorStatus = (typeof EXECUTOR_STATUSES)[number];

/** What `describe(config)` returns. */
export const executorDescriptionSchema = z.object({
  spends_tokens: z.boolean().describe('true: sessions spend provider tokens, so budgets and hard stops apply'),
  command: short(200).optional().describe('the program it runs (first word), checked on PATH at start when it spends tokens'),
  config_problems: z
    .array(z.object({ field: short(200).describe('the key in the executor\'s config (`command`, `args[2]`)'), reason: short(500) }))
    .max(50)
    .optional()
    .describe('what is wrong with the config it was given: the persona does not start, one line per problem naming the profile\'s field'),
});
export type ExecutorDescription = z.output<typeof executorDescriptionSchema>;

/** What `run(input)` returns. */
export const executorResultSchema = z.object({
  status: z.enum(EXECUTOR_STATUSES).describe('ok, failed, timed_out, not_found (program missing), skipped, interrupted (the kernel stopped it)'),
  reason: short(500).optional().describe('why, in one line (failed, skipped)'),
  exit_code: z.number().int().nullable().optional(),
  usage: usageSchema.nullable().optional().describe('tokens spent, as the provider printed them'),
  files: z.array(short(200)).max(20).default([]).describe('session files written (relative to the session folder)'),
  last_message: short(2000).optional().describe('the agent\'s last message, for the brain\'s short-term memory'),
  tasks: z.array(z.object({ id: short(40), title: short(200), state: short(40) })).max(100).default([]).describe('tasks created in the persona\'s ledger'),
  work_done: z.array(short(200)).max(200).default([]).describe('keys of the work items this run handled; they are not offered again'),
});
export type ExecutorResult = z.output<typeof executorResultSchema>;
/** What a plugin may return from `run` (before defaults are filled in). */
export type ExecutorAnswer = z.input<typeof executorResultSchema>;

export const EXECUTOR_EXPORTS = ['describe', 'run'] as const;
