/**
 * The MCP server `runtimectl run` hands each executor's harness (LoopOptions.mcpServer): this
 * install's `runtimectl mcp serve --persona <profile> --state-dir <state>`, for a persona that
 * selects tools or skills, or may propose (`bindings: [proposals]`: the review.propose tool);
 * none otherwise. The kernel adds its tool relay's socket to the server's
 * environment, so the server the harness starts relays every call back into the running
 * cycle. Its install is what the sandbox lets the harness read: the bin, the precompiled CLI,
 * the sources tsx would run, node_modules.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { McpServerSpec } from '../../kernel/contracts/executor.ts';
import type { LoadedPersona } from '../../kernel/personas/load.ts';
import { CLI_ENTRY, PROJECT_ROOT } from '../../kernel/version.ts';
import { TOOLS_SOCKET_ENV } from '../persona/tools/tool-relay.ts';

/** The name the server has in the harness's MCP configuration (claude's tools are `mcp__runtimectl__<tool>`). */
export const SERVER_NAME = 'runtimectl';

const INSTALL_PARTS = ['bin', '.build', 'cli', 'kernel', 'features', 'sandboxes', 'plugins', 'policies', 'node_modules', 'package.json', 'tsconfig.json'];

export function harnessToolServer(personas: readonly LoadedPersona[], stateDir: string): (personaId: string) => McpServerSpec | null {
  const reads = INSTALL_PARTS.map((p) => path.join(PROJECT_ROOT, p)).filter((p) => existsSync(p));
  return (personaId) => {
    const persona = personas.find((p) => p.profile.id === personaId);
    // Skills may ship scripts (tools too), and a persona that may propose offers review.propose:
    // the kernel hands the server only when the persona has some tool.
    const proposes = persona?.profile.bindings.includes('proposals') ?? false;
    if (!persona || (persona.profile.tools.length === 0 && persona.profile.skills.length === 0 && !proposes)) return null;
    return {
      name: SERVER_NAME,
      command: process.execPath,
      args: ['--no-node-snapshot', CLI_ENTRY, 'mcp', 'serve', '--persona', persona.file, '--state-dir', stateDir],
      reads,
      // filled in by the kernel with its relay's socket; the kernel hands no server when the persona turns out to have no tool
      env: { [TOOLS_SOCKET_ENV]: '' },
    };
  };
}
