/**
 * The MCP server `runtimectl run` hands each executor's harness (LoopOptions.mcpServer), for a
 * persona that selects tools or skills, or may propose (`bindings: [proposals]`: the
 * review.propose tool); none otherwise. It is no runtimectl: `node bridge.mjs`, a script of a
 * few lines that pipes the harness's stdio to the running kernel's tool relay socket, where
 * the kernel speaks MCP itself (features/persona/tools/tool-relay.ts). The kernel fills in the
 * socket (RUNTIMECTL_TOOLS_SOCKET) and adds the socket's folder to what the sandbox lets the
 * harness read; besides node, the bridge file is all the server reads.
 */
import path from 'node:path';
import type { McpServerSpec } from '../../kernel/contracts/executor.ts';
import type { LoadedPersona } from '../../kernel/personas/profile-schema.ts';
import { PROJECT_ROOT } from '../../kernel/version.ts';
import { TOOLS_SOCKET_ENV } from '../persona/tools/tool-relay.ts';

/** The name the server has in the harness's MCP configuration (claude's tools are `mcp__runtimectl__<tool>`). */
export const SERVER_NAME = 'runtimectl';

/** The bridge program (from the install's root: the precompiled CLI is a bundle elsewhere). */
export const BRIDGE_FILE = path.join(PROJECT_ROOT, 'features', 'mcp', 'bridge.mjs');

export function harnessToolServer(personas: readonly LoadedPersona[]): (personaId: string) => McpServerSpec | null {
  return (personaId) => {
    const persona = personas.find((p) => p.profile.id === personaId);
    // Skills may ship scripts (tools too), and a persona that may propose offers review.propose:
    // the kernel hands the server only when the persona has some tool.
    const proposes = persona?.profile.bindings.includes('proposals') ?? false;
    if (!persona || (persona.profile.tools.length === 0 && persona.profile.skills.length === 0 && !proposes)) return null;
    return {
      name: SERVER_NAME,
      command: process.execPath,
      args: [BRIDGE_FILE],
      reads: [BRIDGE_FILE],
      // filled in by the kernel with its relay's socket; the kernel hands no server when the persona turns out to have no tool
      env: { [TOOLS_SOCKET_ENV]: '' },
    };
  };
}
