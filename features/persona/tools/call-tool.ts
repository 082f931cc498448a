/**
 * The one path to a persona's tools. A tool is an export of a `kind: tool` plugin the
 * persona's profile selects (`tools:`), declared in the plugin's manifest with a description
 * and a JSON Schema of its arguments. Whoever calls a tool (an executor through the `tools`
 * binding, `runtimectl mcp serve` for an agent) goes through callTool: the name is resolved
 * against the persona's selection, the arguments are checked against the declared schema, and
 * the export runs in the tool plugin's own isolate under its own grant (its manifest ∩ the
 * persona's allow ∩ its sandbox ceiling), audited like every broker call, and recorded in the
 * cycle's trace while a cycle is being recorded, so replay covers it.
 *
 * A tool plugin may instead mount an MCP server (`mcp:` in its manifest): its tools are the
 * server's, listed when first asked, and each call is proxied to it under the plugin's grant
 * (features/mcp/mount, handed in as ToolRunners.mount), recorded the same way.
 *
 * A selected skill's scripts (`scripts/*.ts|js`) are tools too (features/skills/script-tool.ts):
 * each call one sandboxed run of the script, its `args` as `Deno.args`, under the grant the
 * skill's manifest requests ∩ the persona's allow ∩ its profile's ceiling. Which scripts a
 * persona has is the composition's to say (ToolHost.scripts).
 *
 * Tool names are `<plugin id>.<export>` (`tool.skill-stats.stats`), `<plugin id>.<server's
 * tool name>` for a mount (`tool.everything.echo`), `skill.<skill name>.<script stem>` for a
 * script (`skill.pdf.extract`).
 */
import path from 'node:path';
import { z } from 'zod';
import { errorLine, kernelError } from '../../../kernel/errors.ts';
import { describeZodError } from '../../../kernel/manifest/load.ts';
import type { ToolDeclaration } from '../../../kernel/manifest/plugin-manifest.ts';
import type { PersonaProfile } from '../../../kernel/personas/profile-schema.ts';
import type { LoadedPlugin, PluginRegistry } from '../../../kernel/plugins/registry.ts';
import type { PersonaPlugins } from '../persona-plugins.ts';
import type { CycleRecorder } from '../../cycle-recording/cycle-recorder.ts';
import { SCRIPT_INPUT_SCHEMA, type ScriptToolSpec } from './script-spec.ts';
import type { ToolGrant } from './runners.ts';
import type { PermissionsManifest } from '../../../kernel/manifest/permissions-schema.ts';
import { grantLayers } from '../../../kernel/broker/context.ts';
import { type SandboxProfile } from '../../../kernel/manifest/sandbox-profile.ts';
import { loadSandboxProfile } from '../../plugin-search/sandbox-profiles.ts';

/** What callTool needs of a persona: its selection, the registry, and its plugin instances. */
export interface ToolHost {
  profile: Pick<PersonaProfile, 'id' | 'tools'>;
  registry: PluginRegistry;
  plugins: Pick<PersonaPlugins, 'callRecorded' | 'callMount' | 'mount' | 'callScript' | 'callLimits' | 'toolGrant'> & { readonly options?: Pick<PersonaPlugins['options'], 'allow' | 'vars'> };
  /** the scripts of the persona's selected skills (the composition's: features/skills/scripts.ts) */
  scripts?: readonly ScriptToolSpec[];
  /** where a call is recorded (a cycle's recorder, or the one of a call outside any cycle); none: the cycle's, if any */
  recorder?: CycleRecorder;
}

export interface ToolInfo {
  /** `<plugin id>.<export>`, `<plugin id>.<server's tool>` for a mounted MCP server, `skill.<skill>.<script>` for a script */
  name: string;
  /** the tool plugin's id, or a script's trace id (`skill:<skill id>/scripts/<file>`) */
  plugin: string;
  /** the export called, or the mounted server's own name of the tool */
  export: string;
  /** `plugin`: code of a tool plugin, in its isolate; `mcp`: a tool of the MCP server the plugin mounts; `script`: a skill's script; `kernel`: the kernel's own (review.propose) */
  source: 'plugin' | 'mcp' | 'script' | 'kernel';
  description: string;
  input_schema: Record<string, unknown>;
  /** a mounted server's containment: `bubblewrap`, or why it runs without the OS sandbox (`off: ...`, `unavailable: ...`) */
  os_sandbox?: string;
  /** what a call may do: the manifest ∩ the persona's allow ∩ the profile's ceiling, folded per kind (ToolRunners.grant) */
  grant?: ToolGrant;
}

/** A selected tool plugin whose tools could not be listed (its MCP server did not start or answer). */
export interface ToolProblem {
  plugin: string;
  error: string;
}

const scriptArguments = z.fromJSONSchema(SCRIPT_INPUT_SCHEMA as Parameters<typeof z.fromJSONSchema>[0]);

/** Compiled argument schemas, by declaration (a start's manifests do not change). */
const compiled = new WeakMap<ToolDeclaration, z.ZodType>();

function argumentSchema(tool: ToolDeclaration): z.ZodType {
  let schema = compiled.get(tool);
  if (!schema) {
    schema = z.fromJSONSchema(tool.input_schema as Parameters<typeof z.fromJSONSchema>[0]);
    compiled.set(tool, schema);
  }
  return schema;
}

/** The selected tool plugins still in the registry, in profile order. */
function selected(host: ToolHost): LoadedPlugin[] {
  return host.profile.tools.flatMap((id) => {
    const plugin = host.registry.get(id);
    return plugin && plugin.manifest.kind === 'tool' ? [plugin] : [];
  });
}

function declared(plugin: LoadedPlugin): ToolInfo[] {
  const id = plugin.manifest.id;
  return (plugin.manifest.tools ?? []).map((t) => ({ name: `${id}.${t.export}`, plugin: id, export: t.export, source: 'plugin' as const, description: t.description, input_schema: t.input_schema }));
}

/**
 * Every tool the persona's profile selects, in profile order. A mounted server is started and
 * listed on first need; one that cannot be is left out and named in `problems` (never a throw:
 * the other tools stay usable).
 */
export async function listToolsReport(host: ToolHost): Promise<{ tools: ToolInfo[]; problems: ToolProblem[] }> {
  const tools: ToolInfo[] = [];
  const problems: ToolProblem[] = [];
  for (const plugin of selected(host)) {
    const id = plugin.manifest.id;
    const grant = grantOf(host, plugin.manifest.permissions, plugin.dir, plugin.profile);
    if (!plugin.manifest.mcp) {
      tools.push(...declared(plugin).map((t) => ({ ...t, ...grant })));
      continue;
    }
    try {
      const mount = host.plugins.mount(id);
      for (const t of await mount.tools()) {
        tools.push({ name: `${id}.${t.name}`, plugin: id, export: t.name, source: 'mcp', description: t.description, input_schema: t.input_schema, ...(mount.osSandbox ? { os_sandbox: mount.osSandbox } : {}), ...grant });
      }
    } catch (error) {
      problems.push({ plugin: id, error: errorLine(error) });
    }
  }
  for (const script of host.scripts ?? []) {
    if (script.refused) problems.push({ plugin: script.traceId, error: `${script.name}: ${script.refused}` });
    else tools.push({ ...scriptInfo(script), ...grantOf(host, script.permissions, script.dir, loadSandboxProfile(script.profile)) });
  }
  return { tools, problems };
}

/** `{grant}` of a tool whose manifest asks for `permissions` (with `${plugin}` = `dir`) under `profile`, for this persona. */
function grantOf(host: ToolHost, permissions: PermissionsManifest, dir: string, profile: SandboxProfile): { grant?: ToolGrant } {
  const o = host.plugins.options;
  if (!o) return {};
  const layers = grantLayers({ subject: 'tool', permissions, dir, ...(o.vars ? { vars: o.vars } : {}), allow: o.allow, profile });
  return { grant: host.plugins.toolGrant(layers, profile) };
}

function scriptInfo(script: ScriptToolSpec): ToolInfo {
  return { name: script.name, plugin: script.traceId, export: path.basename(script.file), source: 'script', description: script.description, input_schema: SCRIPT_INPUT_SCHEMA };
}

/** The script tool `name` names, if any. */
function scriptOf(host: Pick<ToolHost, 'scripts'>, name: string): ScriptToolSpec | undefined {
  return host.scripts?.find((s) => s.name === name);
}

/** Every tool the persona's profile selects (see listToolsReport). */
export async function listTools(host: ToolHost): Promise<ToolInfo[]> {
  return (await listToolsReport(host)).tools;
}

/** The tools the manifests declare (no server is started): what can be said of a persona without running anything. */
export function declaredTools(host: Pick<ToolHost, 'profile' | 'registry' | 'scripts'>): ToolInfo[] {
  return [...selected(host as ToolHost).flatMap((p) => (p.manifest.mcp ? [] : declared(p))), ...(host.scripts ?? []).filter((s) => !s.refused).map(scriptInfo)];
}

function unknownTool(host: ToolHost, name: string, have: string[]): never {
  throw kernelError('RTC_ERR_TOOL_UNKNOWN', `persona ${host.profile.id} has no tool "${name}" (its tools: ${have.join(', ') || 'none'}; a profile selects tool plugins with tools:)`, { details: { tool: name, known: have } });
}

/** The selected plugin `name` names (`<plugin id>.<tool>`; the longest id that fits), and the tool part. */
function splitName(host: ToolHost, name: string): { plugin: LoadedPlugin; tool: string } | undefined {
  let best: LoadedPlugin | undefined;
  for (const plugin of selected(host)) {
    const id = plugin.manifest.id;
    if (name.startsWith(`${id}.`) && name.length > id.length + 1 && (!best || id.length > best.manifest.id.length)) best = plugin;
  }
  return best ? { plugin: best, tool: name.slice(best.manifest.id.length + 1) } : undefined;
}

/** The id of the selected tool plugin `name` belongs to, if any (what a call's usage is read from). */
export function toolPluginOf(host: ToolHost, name: string): string | undefined {
  return scriptOf(host, name)?.traceId ?? splitName(host, name)?.plugin.manifest.id;
}

/** The limits one call of tool `name` runs under (what it reserves of the budget), or undefined for a name no tool has. */
export function toolCallLimits(host: ToolHost, name: string): { cpuMs: number; wallMs: number } | undefined {
  const script = scriptOf(host, name);
  if (script) return host.plugins.callLimits(script.traceId, script);
  const split = splitName(host, name);
  return split ? host.plugins.callLimits(split.plugin.manifest.id) : undefined;
}

/** Resolves `name` to a declared tool the persona selects, or RTC_ERR_TOOL_UNKNOWN listing the ones it has. */
export function resolveTool(host: ToolHost, name: string): { plugin: string; tool: ToolDeclaration } {
  const split = splitName(host, name);
  const tool = split && !split.plugin.manifest.mcp ? split.plugin.manifest.tools?.find((t) => t.export === split.tool) : undefined;
  if (!split || !tool) unknownTool(host, name, declaredTools(host).map((t) => t.name));
  return { plugin: split.plugin.manifest.id, tool };
}

/**
 * Calls tool `name` with `args` (one object of named arguments) for the persona and returns
 * the export's JSON result (for a mounted server: its CallToolResult). Bad arguments are
 * RTC_ERR_TOOL_ARGS naming the field; an error inside the tool is the plugin's error
 * (RTC_ERR_SANDBOX_SCRIPT and the like), a mounted server's is RTC_ERR_TOOL_MCP_*.
 */
export async function callTool(host: ToolHost, name: string, args: unknown): Promise<unknown> {
  const script = scriptOf(host, name);
  if (script) {
    const parsed = scriptArguments.safeParse(args ?? {});
    if (!parsed.success) {
      const { field, reason } = describeZodError(parsed.error);
      throw kernelError('RTC_ERR_TOOL_ARGS', `tool ${name}: ${field}: ${reason}`, { details: { tool: name, field, reason } });
    }
    return host.plugins.callScript(script, parsed.data, host.recorder);
  }
  const split = splitName(host, name);
  if (split?.plugin.manifest.mcp) {
    const id = split.plugin.manifest.id;
    const offered = await host.plugins.mount(id).tools();
    if (!offered.some((t) => t.name === split.tool)) unknownTool(host, name, (await listTools(host)).map((t) => t.name));
    if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) {
      throw kernelError('RTC_ERR_TOOL_ARGS', `tool ${name}: arguments: must be an object of named arguments`, { details: { tool: name, field: 'arguments' } });
    }
    // The server checks its own schema (an MCP tool error when they do not fit).
    return host.plugins.callMount(id, split.tool, args ?? {}, host.recorder);
  }
  const { plugin, tool } = resolveTool(host, name);
  const parsed = argumentSchema(tool).safeParse(args ?? {});
  if (!parsed.success) {
    const { field, reason } = describeZodError(parsed.error);
    throw kernelError('RTC_ERR_TOOL_ARGS', `tool ${name}: ${field}: ${reason}`, { details: { tool: name, field, reason } });
  }
  return host.plugins.callRecorded(plugin, 'tool', host.recorder, tool.export, [parsed.data]);
}
