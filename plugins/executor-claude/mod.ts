/**
 * executor.claude: `claude -p --output-format stream-json --verbose --permission-mode
 * dontAsk --allowedTools ... [--disallowedTools WebFetch,WebSearch] --setting-sources ""
 * --strict-mcp-config [--mcp-config ...] [--model M] [config.args...]`, the prompt on stdin,
 * in the persona workspace.
 *
 * claude's own controls agree with the OS sandbox around it: nothing waits for a permission
 * prompt (`dontAsk` refuses whatever is not allowed), file edits are allowed only under the
 * workspace (`Edit(./**)`), web tools only when the grant names hosts beyond the provider's,
 * no settings file is read (the agent could write one in its workspace or provider home to
 * widen its own permissions), and no MCP server but the one the kernel hands it.
 * CLAUDE_CONFIG_DIR and HOME are the persona's provider home for this executor.
 *
 * Config: `command` (default `claude`), `model`, `args`, `provider_hosts` (default
 * `[api.anthropic.com]`), `shell` (default true: the Bash tool, inside the OS sandbox).
 */
import { stringList, stringOr, type ExecutorInput, type ExecutorResult, type McpServerSpec } from '../executor-shared/contract.ts';
import { providerHosts, runProviderCli, toolsNetwork } from '../executor-shared/session.ts';
import { parseClaude } from '../executor-shared/usage.ts';

export const DEFAULT_PROVIDER_HOSTS = ['api.anthropic.com'];
const WEB_TOOLS = ['WebFetch', 'WebSearch'];

export function describe(config: Record<string, unknown> = {}): { spends_tokens: boolean; command: string } {
  return { spends_tokens: true, command: stringOr(config.command, 'claude') };
}

function mcpConfig(mcp: McpServerSpec | null): string[] {
  if (!mcp) return ['--strict-mcp-config'];
  const server = { type: 'stdio', command: mcp.command, args: mcp.args, ...(mcp.env ? { env: mcp.env } : {}) };
  return ['--strict-mcp-config', '--mcp-config', JSON.stringify({ mcpServers: { [mcp.name]: server } })];
}

export function claudeArgs(input: ExecutorInput): string[] {
  const web = toolsNetwork(input.sandbox.net, providerHosts(input.config, DEFAULT_PROVIDER_HOSTS));
  const shell = input.config.shell !== false;
  const allowed = ['Read', 'Glob', 'Grep', 'Edit(./**)', 'Write(./**)', 'NotebookEdit(./**)', ...(shell ? ['Bash'] : []), ...(web ? WEB_TOOLS : []), ...(input.mcp ? [`mcp__${input.mcp.name}`] : [])];
  const disallowed = [...(web ? [] : WEB_TOOLS), ...(shell ? [] : ['Bash'])];
  const model = typeof input.config.model === 'string' ? ['--model', input.config.model] : [];
  return [
    '-p', '--output-format', 'stream-json', '--verbose',
    '--permission-mode', 'dontAsk',
    '--allowedTools', allowed.join(','),
    ...(disallowed.length > 0 ? ['--disallowedTools', disallowed.join(',')] : []),
    '--setting-sources', '',
    ...mcpConfig(input.mcp),
    ...model,
    ...stringList(input.config.args),
  ];
}

export function run(input: ExecutorInput): Promise<ExecutorResult> {
  const home = input.paths.provider_home;
  return runProviderCli(input, {
    plugin: 'executor.claude',
    name: 'claude',
    command: stringOr(input.config.command, 'claude'),
    args: claudeArgs(input),
    hosts: providerHosts(input.config, DEFAULT_PROVIDER_HOSTS),
    env: { CLAUDE_CONFIG_DIR: home, HOME: home, DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' },
    parse: (stdout) => parseClaude(stdout),
  });
}
