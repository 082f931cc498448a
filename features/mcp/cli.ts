/**
 * `runtimectl mcp serve` (the persona's tools as an MCP server over stdio) and `runtimectl
 * tools list|call` (the same tools for authors and operators), all through one tool source.
 */
import { StdioUntilEnd } from './stdio-until-end.ts';
import { parseFlags, printJson, type CliIo, type Command } from '../command/command.ts';
import { errorLine, isKernelError, kernelError } from '../../kernel/errors.ts';
import { serveTools } from '../persona/tools/mcp-server.ts';
import { PROPOSE_TOOL } from '../review-queue/agent-proposals.ts';
import { openToolSource, sourceOptions, type OpenToolKernel } from './tool-source.ts';
import { openServeSource } from './serve-source.ts';
import { SOURCE_FLAGS } from './tool-plan.ts';
import { runningKernelSocket } from './running-kernel.ts';
import { TOOLS_SOCKET_ENV } from '../persona/tools/tool-relay.ts';
import type { ToolInfo } from '../persona/tools/call-tool.ts';

const COMMON = `  --persona ID_OR_FILE  the persona (an id in personas/, or a profile file)
  --state-dir DIR       default: $SCIDEX_AGENT_STATE_DIR, else ./state
  --plugins-dir DIR     another plugin folder, as given to run (repeatable)
  --skills-dir DIR      another folder of skills, as given to run (repeatable; after
                        ${'$'}RUNTIMECTL_SKILLS_PATH): the selected skills' scripts are tools`;

const SERVE_USAGE = `Usage: runtimectl mcp serve --persona ID_OR_FILE [--state-dir DIR] [--plugins-dir DIR]...

Serves the persona's tools as an MCP server over stdio: each export of a tool plugin its
profile selects (tools:), and each tool of an MCP server a selected plugin mounts. Every
call runs in the tool's own sandbox under its grant (its manifest ∩ the persona's allow ∩
its sandbox profile's ceiling), is a tool_call event in the persona's log and is recorded
in its trace; a denial, a limit or a failure is an MCP tool error, never the server's end.

While "runtimectl run" runs the persona on this machine (the run's
<state>/<persona>/tools-relay.json names its socket), or given ${'$'}RUNTIMECTL_TOOLS_SOCKET, it
pipes stdio to that kernel, which speaks MCP on its socket itself: the persona is not opened
here, and calls land in that kernel's log and trace (via "mcp"). Otherwise it opens the
persona for tool calls only, under its writer lock: each call is a tool_call event and one
line of <state>/<persona>/trace/tools.jsonl. (An executor's harness is handed no runtimectl:
a bridge of a few lines, features/mcp/bridge.mjs, to the run's relay.)

Options:
${COMMON}
`;

const LIST_USAGE = `Usage: runtimectl tools list --persona ID_OR_FILE [--state-dir DIR] [--plugins-dir DIR]... [--json]

Lists the tools the persona offers (read-only: it takes no writer lock, so it works while
"runtimectl run" runs the persona): each tool's name, where it comes from (a tool plugin's
export, a mounted MCP server's tool, or a selected skill's script), its description, what a
call may do (its grant: the manifest ∩ the persona's allow ∩ the profile's ceiling, per kind)
and its input schema (--json).
A mounted server that cannot be started or listed is named with why.

Options:
${COMMON}
  --json                one JSON document: {persona, tools: [...], problems: [...]}
`;

const CALL_USAGE = `Usage: runtimectl tools call --persona ID_OR_FILE TOOL [--args JSON] [--state-dir DIR] [--json]

Calls one tool through the same path an agent's call takes (grant, audit event, trace,
budget) and prints its result. Exit 1 when the call failed (the error is printed).
While "runtimectl run" runs the persona on this machine, the call is made by that run (its
writer lock, its log: a tool_call event with via "cli"); otherwise the persona is opened here
for the call, under its writer lock, and the call is its only event (no reboot).

Options:
${COMMON}
  --args JSON           the tool's arguments, one JSON object (default {})
  --json                one JSON document: {tool, ok, result | error}
`;

const common = SOURCE_FLAGS;

function personaFlag(value: string | undefined, command: string): string {
  if (!value) throw kernelError('RTC_ERR_CLI_USAGE', `--persona ID_OR_FILE is required; see "runtimectl ${command} --help"`);
  return value;
}

const mcpServeCommand = (openKernel: OpenToolKernel): Command => ({
  path: ['mcp', 'serve'],
  rawStderr: true,
  summary: "serve the persona's tools as an MCP server over stdio",
  usage: SERVE_USAGE,
  async run(argv, io) {
    const { values } = parseFlags(argv, common, 'mcp serve', false);
    const persona = personaFlag(values.persona, 'mcp serve');
    // Fast path: a kernel runs the persona; the bridge pipes this process's stdio to its relay.
    const socket = await runningKernelSocket(persona, values['state-dir'], io);
    if (socket !== undefined) {
      process.env[TOOLS_SOCKET_ENV] = socket;
      await import('./bridge.mjs');
      // the bridge ends this process when either side closes
      return new Promise<number>(() => undefined);
    }
    const source = await openServeSource(openKernel, { ...values, persona }, io);
    await serveTools({ source, log: (line) => io.stderr(`runtimectl mcp serve: ${line}\n`) }, new StdioUntilEnd());
    return 0;
  },
});

/** `read ${state}; write none; net api.example.com; env none; run none (profile default, process tier)`. */
function grantLine(g: NonNullable<ToolInfo['grant']>): string {
  const kind = (name: string, v: true | string[]) => `${name} ${v === true ? 'anything' : v.length === 0 ? 'nothing' : v.join(', ')}`;
  return `${[kind('read', g.read), kind('write', g.write), kind('net', g.net), kind('env', g.env), kind('run', g.run)].join('; ')} (profile ${g.profile}, ${g.tier} tier)`;
}

const toolsListCommand = (openKernel: OpenToolKernel): Command => ({
  path: ['tools', 'list'],
  summary: 'list the tools a persona offers, with their schemas',
  usage: LIST_USAGE,
  async run(argv, io) {
    const { values } = parseFlags(argv, { ...common, json: { type: 'boolean' } }, 'tools list', false);
    const persona = personaFlag(values.persona, 'tools list');
    const source = await openToolSource({ ...sourceOptions(openKernel, values, persona, 'cli', io), listOnly: true }, io);
    try {
      const { tools, problems } = await source.list();
      if (values.json) {
        printJson(io, { persona, tools, problems });
      } else {
        if (tools.length === 0) io.stdout(`persona ${persona} offers no tools (a profile selects tool plugins with tools:, and skills whose scripts/ are tools with skills:)\n`);
        for (const t of tools) io.stdout(`${t.name}  [${t.source === 'mcp' ? `MCP server of ${t.plugin}${t.os_sandbox && t.os_sandbox !== 'bubblewrap' ? `, NOT in the OS sandbox (${t.os_sandbox})` : ''}` : t.source === 'script' ? t.plugin : t.source === 'kernel' ? 'kernel: the review queue' : `plugin ${t.plugin}`}]  ${t.description.split('\n')[0]}\n${t.grant ? `    may: ${grantLine(t.grant)}\n` : ''}`);
        for (const p of problems) io.stdout(`${p.plugin}: cannot list its tools: ${p.error}\n`);
      }
      return problems.length > 0 ? 1 : 0;
    } finally {
      await source.close();
    }
  },
});

const toolsCallCommand = (openKernel: OpenToolKernel): Command => ({
  path: ['tools', 'call'],
  summary: 'call one of a persona\'s tools through the broker',
  usage: CALL_USAGE,
  async run(argv, io) {
    const { values, positionals } = parseFlags(argv, { ...common, args: { type: 'string' }, json: { type: 'boolean' } }, 'tools call');
    const persona = personaFlag(values.persona, 'tools call');
    if (positionals.length !== 1) throw kernelError('RTC_ERR_CLI_USAGE', `name exactly one tool (got ${positionals.length}); see "runtimectl tools call --help"`);
    const tool = positionals[0]!;
    let args: unknown = {};
    if (values.args !== undefined) {
      try {
        args = JSON.parse(values.args);
      } catch (error) {
        throw kernelError('RTC_ERR_CLI_USAGE', `--args: not JSON: ${(error as Error).message}`);
      }
      if (typeof args !== 'object' || args === null || Array.isArray(args)) throw kernelError('RTC_ERR_CLI_USAGE', '--args: must be a JSON object of named arguments');
    }
    const source = await openToolSource(sourceOptions(openKernel, values, persona, 'cli', io), io);
    try {
      const result = await source.call(tool, args);
      // review.propose answers a refusal as a value: the command still fails, with its line.
      const refusal = result as { status?: string; code?: string; message?: string } | null;
      const refused = tool === PROPOSE_TOOL && refusal?.status === 'refused';
      if (values.json) printJson(io, { tool, ok: !refused, result });
      else if (refused) io.stderr(`runtimectl: ${refusal!.code}: ${refusal!.message}\n`);
      else io.stdout(`${JSON.stringify(result, null, 2)}\n`);
      return refused ? 1 : 0;
    } catch (error) {
      const line = isKernelError(error) ? error.toLine() : errorLine(error);
      if (values.json) printJson(io, { tool, ok: false, error: line, code: isKernelError(error) ? error.code : null });
      else io.stderr(`runtimectl: ${line}\n`);
      return 1;
    } finally {
      await source.close();
    }
  },
});

/**
 * `mcp serve`, `tools list` and `tools call`, over the composition `openKernel` opens (the
 * composition root passes features/science-loop/preset.ts's openLoopKernel).
 */
export function mcpCommands(deps: { openKernel: OpenToolKernel }): readonly Command[] {
  return [mcpServeCommand(deps.openKernel), toolsListCommand(deps.openKernel), toolsCallCommand(deps.openKernel)];
}
