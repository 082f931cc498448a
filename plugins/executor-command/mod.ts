/**
 * executor.command: any configured command. Config:
 *   command        the program (required)
 *   args           its arguments; `{prompt_file}` becomes the path of the session's
 *                  prompt.md. The prompt itself is on the command's stdin; it is never put
 *                  in argv (`{prompt}` is refused: every user of the machine sees argv in ps)
 *   usage_format   codex-json | claude-stream-json | codex-stderr | none (default none)
 *   spends_tokens  false for a command that calls no model (default true: the cautious
 *                  answer, so budgets apply)
 * The persona's MCP server, when the kernel hands one (its tools), is in the command's
 * environment as RUNTIMECTL_MCP_SERVER: one JSON object {name, command, args, env}, for the
 * command to start as its own child over stdio.
 */
import { stringList, type ExecutorInput, type ExecutorResult } from '../executor-shared/contract.ts';
import { runCli, SESSION_FILES } from '../executor-shared/session.ts';
import { PARSERS } from '../executor-shared/usage.ts';

/** The config keys this executor reads (plugins/executor-command/README.md); any other is a typo. */
const CONFIG_KEYS = ['command', 'args', 'usage_format', 'spends_tokens'] as const;

interface ConfigProblem {
  field: string;
  reason: string;
}

/** Everything wrong with a config, each with its key: the kernel refuses the persona at start with them. */
export function configProblems(config: Record<string, unknown>): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const command = config.command;
  if (command === undefined) problems.push({ field: 'command', reason: 'is required: the program to run (a name on PATH, or a path), e.g. command: ./agent.sh' });
  else if (typeof command !== 'string' || command.trim() === '') problems.push({ field: 'command', reason: 'must be a non-empty string: the program to run' });
  const args = config.args;
  if (args !== undefined) {
    if (!Array.isArray(args)) problems.push({ field: 'args', reason: 'must be a list of strings (the program\'s arguments)' });
    else {
      args.forEach((a, i) => {
        if (typeof a !== 'string') problems.push({ field: `args[${i}]`, reason: 'must be a string' });
        else if (a.includes('{prompt}')) problems.push({ field: `args[${i}]`, reason: '{prompt} is refused (argv is visible to every user in ps): the prompt is on stdin, or use {prompt_file}' });
      });
    }
  }
  const format = config.usage_format;
  if (format !== undefined && (typeof format !== 'string' || !(format in PARSERS))) problems.push({ field: 'usage_format', reason: `must be one of ${Object.keys(PARSERS).join(', ')} (got ${JSON.stringify(format)})` });
  if (config.spends_tokens !== undefined && typeof config.spends_tokens !== 'boolean') problems.push({ field: 'spends_tokens', reason: 'must be true or false' });
  for (const key of Object.keys(config)) if (!(CONFIG_KEYS as readonly string[]).includes(key)) problems.push({ field: key, reason: `unknown key (executor.command reads ${CONFIG_KEYS.join(', ')})` });
  return problems;
}

export function describe(config: Record<string, unknown> = {}): { spends_tokens: boolean; command: string; config_problems: ConfigProblem[] } {
  return { spends_tokens: config.spends_tokens !== false, command: typeof config.command === 'string' ? config.command : '', config_problems: configProblems(config) };
}

export async function run(input: ExecutorInput): Promise<ExecutorResult> {
  // The kernel refuses a persona with a bad config at start (describe); this holds if one gets here anyway.
  const problem = configProblems(input.config)[0];
  if (problem) return { status: 'failed', reason: `executor.command: config.${problem.field} ${problem.reason}`, work_done: [] };
  const command = input.config.command as string;
  const format = typeof input.config.usage_format === 'string' ? input.config.usage_format : 'none';
  const parse = PARSERS[format]!;
  const raw = stringList(input.config.args);
  const promptFile = `${input.paths.session_dir.replace(/\/+$/, '')}/${SESSION_FILES.prompt}`;
  const args = raw.map((a) => a.replaceAll('{prompt_file}', promptFile));
  const mcp: Record<string, string> = input.mcp ? { RUNTIMECTL_MCP_SERVER: JSON.stringify({ name: input.mcp.name, command: input.mcp.command, args: input.mcp.args, env: input.mcp.env ?? {} }) } : {};
  return runCli(input, { plugin: 'executor.command', command, args, env: { HOME: input.paths.provider_home, ...mcp }, parse });
}
