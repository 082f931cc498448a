/**
 * How the default composition runs a persona's tools that are not plugin code (the kernel's
 * ToolRunners, features/persona/tools/runners.ts): a tool plugin's MCP server is mounted by
 * features/mcp (in the OS sandbox, over its grant), a skill's script runs through
 * features/skills' script tool (one warm script runner a set, over the kit's build cache), and
 * a tool's grant is summarized for `tools list` over the OS sandbox's grant view.
 */
import type { SandboxKit } from '../../kernel/sandbox.ts';
import type { ToolRunners } from '../persona/tools/runners.ts';
import { McpMount } from '../mcp/mount/mcp-mount.ts';
import { toolGrant } from '../mcp/tools/tool-grant.ts';
import { scriptTools } from '../skills/script-tool.ts';

export function personaToolRunners(kit: SandboxKit): ToolRunners {
  const scripts = scriptTools(kit.loader.cacheDir);
  return {
    mount: (plugin, options) => new McpMount(plugin, options),
    script: scripts.script,
    grant: toolGrant,
    close: scripts.close,
  };
}
