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

export function describe(config: Record<string, unknown> = {}): { spends_tokens: boolean; command: string } {
  return { spends_tokens: config.spends_tokens !== false, command: typeof config.command === 'string' ? config.command : '' };
}

export async function run(input: ExecutorInput): Promise<ExecutorResult> {
  const command = input.config.command;
  if (typeof command !== 'string' || command === '') {
    return { status: 'failed', reason: 'executor.command needs config.command (the program to run)', work_done: [] };
  }
  const format = typeof input.config.usage_format === 'string' ? input.config.usage_format : 'none';
  const parse = PARSERS[format];
  if (!parse) return { status: 'failed', reason: `executor.command: unknown usage_format "${format}" (use ${Object.keys(PARSERS).join(', ')})`, work_done: [] };
  const raw = stringList(input.config.args);
  if (raw.some((a) => a.includes('{prompt}'))) {
    return { status: 'failed', reason: 'executor.command: {prompt} in args is refused (argv is visible to every user in ps); the prompt is on stdin, or use {prompt_file}', work_done: [] };
  }
  const promptFile = `${input.paths.session_dir.replace(/\/+$/, '')}/${SESSION_FILES.prompt}`;
  const args = raw.map((a) => a.replaceAll('{prompt_file}', promptFile));
  const mcp: Record<string, string> = input.mcp ? { RUNTIMECTL_MCP_SERVER: JSON.stringify({ name: input.mcp.name, command: input.mcp.command, args: input.mcp.args, env: input.mcp.env ?? {} }) } : {};
  return runCli(input, { plugin: 'executor.command', command, args, env: { HOME: input.paths.provider_home, ...mcp }, parse });
}
