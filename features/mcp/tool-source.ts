/**
 * Where `mcp serve` and `tools list/call` get a persona's tools from: the kernel process
 * running the persona (through its tool relay, when RUNTIMECTL_TOOLS_SOCKET names one: the
 * server an executor's harness started), or a persona opened here for tool calls only (an
 * operator's or author's own session). Either way a call goes through the one path
 * (PersonaRuntime.callTool → kernel/tools/call-tool.ts): grant, audit event, trace, budget.
 */
import path from 'node:path';
import type { CliIo } from '../../kernel/cli/command.ts';
import { PersonaRuntime } from '../../kernel/loop/persona-runtime.ts';
import { resolvePersona } from '../../kernel/personas/load.ts';
import type { ToolInfo, ToolProblem } from '../../kernel/tools/call-tool.ts';
import { RelayClient, TOOLS_SOCKET_ENV } from '../../kernel/tools/tool-relay.ts';
import { openLoopKernel } from '../science-loop/preset.ts';
import { resolveStateDir } from '../science-loop/cli.ts';

export interface ToolSource {
  /** `relay`: the kernel running the persona; `local`: opened in this process */
  readonly mode: 'relay' | 'local';
  list(): Promise<{ tools: ToolInfo[]; problems: ToolProblem[] }>;
  call(name: string, args: unknown): Promise<unknown>;
  close(): Promise<void>;
}

export interface ToolSourceOptions {
  persona: string;
  stateDir?: string;
  pluginsDirs?: string[];
  /** the skill search path (skillSearchPath), when it adds folders to the built-in one */
  skillsDirs?: string[];
  /** who the calls are from, for the audit event */
  via: 'mcp' | 'cli';
}

export async function openToolSource(options: ToolSourceOptions, io: CliIo): Promise<ToolSource> {
  const socket = io.env[TOOLS_SOCKET_ENV];
  if (socket) {
    const client = await RelayClient.connect(socket);
    return {
      mode: 'relay',
      list: async () => ({ tools: (await client.list()) as ToolInfo[], problems: [] }),
      call: (name, args) => client.call(name, args),
      close: async () => client.close(),
    };
  }
  const persona = resolvePersona(options.persona, { cwd: io.cwd });
  const kernel = await openLoopKernel({
    stateDir: resolveStateDir(options.stateDir, io),
    env: io.env,
    ...(options.pluginsDirs?.length ? { pluginPath: options.pluginsDirs.map((d) => path.resolve(io.cwd, d)) } : {}),
    ...(options.skillsDirs?.length ? { skillsDirs: options.skillsDirs } : {}),
  });
  const runtime = await PersonaRuntime.openForTools(kernel, persona);
  return {
    mode: 'local',
    list: () => runtime.toolsReport(),
    call: (name, args) => runtime.callTool(name, args, options.via),
    close: () => runtime.close(),
  };
}
