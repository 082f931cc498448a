/**
 * executor.codex: `codex -a never exec --json --skip-git-repo-check --sandbox workspace-write
 * -C WORKSPACE -c sandbox_workspace_write.network_access=BOOL [MCP] [--model M]
 * [config.args...] -`, the prompt on stdin, in the persona workspace.
 *
 * codex's own controls agree with the OS sandbox around it: commands the model runs get
 * codex's workspace-write sandbox, are never sent for approval (nobody is there to answer),
 * and have network only when the grant names hosts beyond the provider's. CODEX_HOME and HOME
 * are the persona's provider home for this executor (credentials staged there by the
 * operator). Without a granted provider host the session is not started: codex would wait
 * for the network until the wall limit.
 *
 * Config: `command` (default `codex`), `model`, `args`, `provider_hosts` (default
 * `[api.openai.com]`; `[]` when the provider needs no network grant).
 */
import { stringList, stringOr, type ExecutorInput, type ExecutorResult, type McpServerSpec } from '../executor-shared/contract.ts';
import { providerHosts, runProviderCli, toolsNetwork } from '../executor-shared/session.ts';
import { parseCodex } from '../executor-shared/usage.ts';

export const DEFAULT_PROVIDER_HOSTS = ['api.openai.com'];

export function describe(config: Record<string, unknown> = {}): { spends_tokens: boolean; command: string } {
  return { spends_tokens: true, command: stringOr(config.command, 'codex') };
}

/** `-c mcp_servers.NAME.*=VALUE` (TOML values; JSON strings are valid TOML basic strings). */
function mcpFlags(mcp: McpServerSpec | null): string[] {
  if (!mcp) return [];
  const key = `mcp_servers.${mcp.name.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  const flags = ['-c', `${key}.command=${JSON.stringify(mcp.command)}`, '-c', `${key}.args=[${mcp.args.map((a) => JSON.stringify(a)).join(', ')}]`];
  const env = Object.entries(mcp.env ?? {});
  if (env.length > 0) flags.push('-c', `${key}.env={ ${env.map(([k, v]) => `${JSON.stringify(k)} = ${JSON.stringify(v)}`).join(', ')} }`);
  return flags;
}

export function codexArgs(input: ExecutorInput): string[] {
  const model = typeof input.config.model === 'string' ? ['--model', input.config.model] : [];
  return [
    '-a', 'never',
    'exec', '--json', '--skip-git-repo-check',
    '--sandbox', 'workspace-write',
    '-C', input.paths.workspace_dir,
    '-c', `sandbox_workspace_write.network_access=${toolsNetwork(input.sandbox.net, providerHosts(input.config, DEFAULT_PROVIDER_HOSTS))}`,
    ...mcpFlags(input.mcp),
    ...model,
    ...stringList(input.config.args),
    '-',
  ];
}

export function run(input: ExecutorInput): Promise<ExecutorResult> {
  const home = input.paths.provider_home;
  return runProviderCli(input, {
    plugin: 'executor.codex',
    name: 'codex',
    command: stringOr(input.config.command, 'codex'),
    args: codexArgs(input),
    hosts: providerHosts(input.config, DEFAULT_PROVIDER_HOSTS),
    env: { CODEX_HOME: home, HOME: home },
    parse: parseCodex,
  });
}
