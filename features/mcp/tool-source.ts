/**
 * Where `mcp serve` and `tools list/call` get a persona's tools from:
 *
 *  - the kernel process running the persona, through its tool relay (MCP over its socket,
 *    relay-client.ts): the socket RUNTIMECTL_TOOLS_SOCKET names, or the operator's socket
 *    `<persona>/tools-relay.json` names when `run` runs the persona on this machine. The call
 *    is made there, under that kernel's writer lock and in its log (one writer, no fork),
 *    recorded `via: cli`;
 *  - else a persona opened here for tool calls only, under the writer lock: each call is a
 *    `tool_call` event and a line of trace/tools.jsonl, and nothing else (no `reboot`: no loop
 *    restarted);
 *  - `tools list` only reads: it opens the persona read-only, without the lock, so it works
 *    while `run` runs it.
 *
 * Either way a call goes through the one path (PersonaRuntime.callTool → features/persona/tools/call-tool.ts):
 * grant, audit event, trace, budget.
 */
import path from 'node:path';
import type { CliIo } from '../command/command.ts';
import { PersonaRuntime, type LoopKernel } from '../persona/persona-runtime.ts';
import { resolvePersona } from '../profiles/load.ts';
import type { LoadedPersona } from '../../kernel/personas/profile-schema.ts';
import type { ToolSource as ServedToolSource } from '../persona/tools/mcp-server.ts';
import { RelayClient } from '../persona/tools/relay-client.ts';
import { runningRelay, TOOLS_SOCKET_ENV } from '../persona/tools/tool-relay.ts';
import { resolveStateDir } from '../persistence/state-dir.ts';
import { skillSearchPath } from '../skills/search-path.ts';
import type { ServeValues } from './tool-plan.ts';

export interface ToolSource extends ServedToolSource {
  /** `relay`: the kernel running the persona; `local`: opened in this process */
  readonly mode: 'relay' | 'local';
  /** `local` only: the persona opened here, as resolved, and its folder in the state directory */
  readonly opened?: { persona: LoadedPersona; personaDir: string };
  call(name: string, args: unknown): Promise<unknown>;
}

/**
 * Opens the loop kernel a persona's tools run in, with the composition `run` uses. The
 * composition root hands it in (cli/commands.ts: features/science-loop/preset.ts), so the
 * same tools, grants and trace result here as in a run, and this feature imports no loop.
 */
export type OpenToolKernel = (options: { stateDir: string; env: Readonly<Record<string, string | undefined>>; pluginPath?: readonly string[]; skillsDirs?: readonly string[] }) => Promise<LoopKernel>;

export interface ToolSourceOptions {
  /** the kernel a persona opened here runs in (not used when a running kernel answers through its relay) */
  openKernel: OpenToolKernel;
  persona: string;
  stateDir?: string;
  pluginsDirs?: string[];
  /** the skill search path (skillSearchPath), when it adds folders to the built-in one */
  skillsDirs?: string[];
  /** who the calls are from, for the audit event */
  via: 'mcp' | 'cli';
  /** `list`: only list the tools (read-only, no writer lock) */
  listOnly?: boolean;
}

/** What every command opening a persona's tools opens its source with, from its flags. */
export function sourceOptions(openKernel: OpenToolKernel, values: ServeValues, persona: string, via: 'mcp' | 'cli', io: CliIo): ToolSourceOptions {
  const skillsDirs = skillSearchPath(values['skills-dir'], io);
  return {
    openKernel,
    persona,
    via,
    ...(values['state-dir'] ? { stateDir: values['state-dir'] } : {}),
    ...(values['plugins-dir'] ? { pluginsDirs: values['plugins-dir'] } : {}),
    ...(skillsDirs.length > 0 ? { skillsDirs } : {}),
  };
}

export async function openToolSource(options: ToolSourceOptions, io: CliIo): Promise<ToolSource> {
  const socket = io.env[TOOLS_SOCKET_ENV];
  if (socket) {
    const client = await RelayClient.connect(socket);
    return {
      mode: 'relay',
      list: () => client.list(),
      call: (name, args) => client.call(name, args),
      close: () => client.close(),
    };
  }
  const persona = resolvePersona(options.persona, { cwd: io.cwd });
  const stateDir = resolveStateDir(options.stateDir, io);
  if (!options.listOnly) {
    // Running on this machine: the call is made by that kernel (its lock, its log).
    const running = runningRelay(path.join(stateDir, persona.profile.id));
    const client = running === undefined ? undefined : await RelayClient.connect(running).catch(() => undefined);
    if (client) {
      return {
        mode: 'relay',
        list: () => client.list(),
        call: (name, args) => client.call(name, args, options.via),
        close: () => client.close(),
      };
    }
  }
  const kernel = await options.openKernel({
    stateDir,
    env: io.env,
    ...(options.pluginsDirs?.length ? { pluginPath: options.pluginsDirs.map((d) => path.resolve(io.cwd, d)) } : {}),
    ...(options.skillsDirs?.length ? { skillsDirs: options.skillsDirs } : {}),
  });
  const runtime = options.listOnly ? await PersonaRuntime.openForToolList(kernel, persona) : await PersonaRuntime.openForTools(kernel, persona);
  return {
    mode: 'local',
    opened: { persona, personaDir: path.join(stateDir, persona.profile.id) },
    list: () => runtime.toolsReport(),
    call: (name, args) => runtime.callTool(name, args, options.via),
    close: () => runtime.close(),
  };
}
