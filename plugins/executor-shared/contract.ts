/**
 * The executor contract as plugins see it (the kernel checks every answer against its own
 * zod schema in kernel/contracts/executor.ts; these types mirror it).
 */

export interface WorkItem {
  kind: 'packet' | 'message' | 'periodic';
  key: string;
  title: string;
  body: string;
  tier_hint?: number;
}

export interface McpServerSpec {
  name: string;
  command: string;
  args: string[];
  env?: Record<string, string>;
}

export interface ExecutorInput {
  run_id: string;
  persona_id: string;
  runtime: string;
  phase: string;
  /** goes to the harness on stdin, never in argv */
  prompt: string;
  prompt_sha256: string;
  /** what the OS sandbox lets the session reach: the harness's own controls follow it */
  sandbox: { mode: 'bubblewrap' | 'off'; net: true | string[] };
  /** the persona's MCP server, when the kernel hands one to the harness */
  mcp: McpServerSpec | null;
  work: WorkItem[];
  config: Record<string, unknown>;
  paths: { session_dir: string; workspace_dir: string; session_rel: string; ledger_db_rel: string; provider_home: string };
  limits: { wall_seconds: number; max_tokens_per_session: number | null };
  decision: Record<string, unknown> | null;
}

export interface Usage {
  input_tokens: number;
  cached_input_tokens: number;
  output_tokens: number;
  reasoning_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
  total_tokens: number;
  /** which output the figures were read from */
  source: string;
}

export type ExecutorStatus = 'ok' | 'failed' | 'timed_out' | 'not_found' | 'skipped' | 'interrupted';

export interface ExecutorResult {
  status: ExecutorStatus;
  reason?: string;
  exit_code?: number | null;
  usage?: Usage | null;
  files?: string[];
  last_message?: string;
  tasks?: { id: string; title: string; state: string }[];
  work_done?: string[];
}

/** A config value as a list of strings (anything else is ignored). */
export function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

export function stringOr(value: unknown, fallback: string): string {
  return typeof value === 'string' && value !== '' ? value : fallback;
}
