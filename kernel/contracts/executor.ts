/**
 * What the loop and its executor and budget-policy plugins exchange. Plugins run in the
 * sandbox, so every value coming back is checked here before the loop acts on it or logs
 * it; unknown fields are dropped, numbers are bounded, text is cut to size.
 */
import { z } from 'zod';
import { kernelError } from '../errors.ts';
import { describeZodError } from '../manifest/load.ts';

/** One piece of work a probe found for this cycle. */
export interface WorkItem {
  kind: 'packet' | 'message' | 'periodic';
  /** stable identity: `packet:<sha256>`, `message:<sha256>`, `periodic:<phase>` */
  key: string;
  title: string;
  /** the packet or message text (bounded), empty for periodic work */
  body: string;
  /** a packet may ask for a budget tier (front matter `tier: N`) */
  tier_hint?: number;
}

/**
 * An MCP server an executor hands its harness (stdio: a command and its arguments). The
 * kernel's own (`runtimectl mcp serve --persona ID`, the persona's tools through the broker)
 * is passed here by LoopOptions.mcpServer; codex gets it as `-c mcp_servers.<name>.*`, claude
 * as `--mcp-config` with `--strict-mcp-config`. Its install is visible read-only in the OS
 * sandbox, so the harness can start it as its own child.
 */
export interface McpServerSpec {
  name: string;
  command: string;
  args: string[];
  env?: Record<string, string>;
  /** trees the server needs to read (its own code, e.g. the runtimectl install): visible read-only in the sandbox */
  reads?: string[];
}

/** What the OS sandbox around the session lets through, for the harness's own controls to agree. */
export interface SessionSandbox {
  /** bubblewrap, or off when the profile opted out */
  mode: 'bubblewrap' | 'off';
  /** the hosts the session may reach (through the kernel's proxy): all, or these */
  net: true | string[];
}

/** Executor exports: `describe(config)` and `run(input)`. */
export interface ExecutorInput {
  run_id: string;
  persona_id: string;
  runtime: string;
  phase: string;
  /** goes to the harness on stdin, never in argv */
  prompt: string;
  /** `sha256:<hex>` of the prompt, for the session manifest */
  prompt_sha256: string;
  sandbox: SessionSandbox;
  mcp: McpServerSpec | null;
  work: WorkItem[];
  config: Record<string, unknown>;
  paths: {
    /** absolute, for the plugin's own file writes (inside its ${session} grant) */
    session_dir: string;
    workspace_dir: string;
    /** relative to the state directory: what the plugin may quote in its files */
    session_rel: string;
    ledger_db_rel: string;
    /** the executor's provider home: HOME, CODEX_HOME, CLAUDE_CONFIG_DIR of the session */
    provider_home: string;
  };
  limits: { wall_seconds: number; max_tokens_per_session: number | null };
  decision: BudgetDecision | null;
}

const count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const short = (max: number) => z.string().transform((s) => (s.length > max ? `${s.slice(0, max - 1)}…` : s));

export const usageSchema = z.object({
  input_tokens: count.default(0),
  cached_input_tokens: count.default(0),
  output_tokens: count.default(0),
  reasoning_tokens: count.default(0),
  cache_read_input_tokens: count.default(0),
  cache_creation_input_tokens: count.default(0),
  total_tokens: count.default(0),
  source: short(40).default('unknown'),
});
export type ProviderUsage = z.output<typeof usageSchema>;

export const EXECUTOR_STATUSES = ['ok', 'failed', 'timed_out', 'not_found', 'skipped', 'interrupted'] as const;

export const executorDescriptionSchema = z.object({
  spends_tokens: z.boolean(),
  command: short(200).optional(),
});
export type ExecutorDescription = z.output<typeof executorDescriptionSchema>;

export const executorResultSchema = z.object({
  status: z.enum(EXECUTOR_STATUSES),
  reason: short(500).optional(),
  exit_code: z.number().int().nullable().optional(),
  usage: usageSchema.nullable().optional(),
  files: z.array(short(200)).max(20).default([]),
  last_message: short(2000).optional(),
  tasks: z.array(z.object({ id: short(40), title: short(200), state: short(40) })).max(100).default([]),
  /** keys of the work items this run handled; they are not offered again */
  work_done: z.array(short(200)).max(200).default([]),
});
export type ExecutorResult = z.output<typeof executorResultSchema>;

export const TIER_NAMES = [
  'read/search existing context',
  'profile a bounded external source',
  'draft or update a small artifact',
  'request review from another role',
  'run an analysis, benchmark or experiment-planning pass',
  'escalate to challenge, Senate or resource allocation',
] as const;

export const BUDGET_ACTIONS = ['execute', 'read_only_planning', 'reviewer_handoff'] as const;

export const budgetDecisionSchema = z.object({
  action: z.enum(BUDGET_ACTIONS),
  tier: z.number().int().min(1).max(6),
  tier_name: short(120),
  decision: short(500).pipe(z.string().min(1)),
  uncertainty: short(500).pipe(z.string().min(1)),
  alternatives: z.array(z.object({ tier: z.number().int().min(1).max(6), tier_name: short(120), why_not: short(300) })).max(6),
  expected_cost: z.object({ tokens: count, cpu_seconds: z.number().min(0).max(86_400), wall_seconds: z.number().min(0).max(86_400) }),
  stop_condition: short(500).pipe(z.string().min(1)),
  reserve: z.object({ tokens: count.nullable(), sessions: count }),
  expected_improvement: z.number().min(0).max(1),
  reason: short(500).pipe(z.string().min(1)),
});
export type BudgetDecision = z.output<typeof budgetDecisionSchema>;

/** Parses a plugin's answer; a bad one is RTC_ERR_EXECUTOR_RESULT naming the plugin and field. */
export function checkPluginAnswer<S extends z.ZodType>(schema: S, value: unknown, plugin: string, exportName: string): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const { field, reason } = describeZodError(result.error);
  throw kernelError('RTC_ERR_EXECUTOR_RESULT', `plugin ${plugin}: ${exportName}() returned a bad value at ${field}: ${reason}`, { details: { plugin, field, reason } });
}
