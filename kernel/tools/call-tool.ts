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
 * Tool names are `<plugin id>.<export>`: `tool.skill-stats.stats`.
 */
import { z } from 'zod';
import { kernelError } from '../errors.ts';
import { describeZodError } from '../manifest/load.ts';
import type { ToolDeclaration } from '../manifest/plugin-manifest.ts';
import type { PersonaProfile } from '../personas/profile-schema.ts';
import type { PluginRegistry } from '../plugins/registry.ts';
import type { PersonaPlugins } from '../loop/persona-plugins.ts';

/** What callTool needs of a persona: its selection, the registry, and its plugin instances. */
export interface ToolHost {
  profile: Pick<PersonaProfile, 'id' | 'tools'>;
  registry: PluginRegistry;
  plugins: Pick<PersonaPlugins, 'get'>;
}

export interface ToolInfo {
  /** `<plugin id>.<export>` */
  name: string;
  plugin: string;
  export: string;
  description: string;
  input_schema: Record<string, unknown>;
}

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

/** Every tool the persona's profile selects, in profile order (a plugin missing since start offers none). */
export function listTools(host: ToolHost): ToolInfo[] {
  return host.profile.tools.flatMap((id) => {
    const plugin = host.registry.get(id);
    if (!plugin || plugin.manifest.kind !== 'tool') return [];
    return (plugin.manifest.tools ?? []).map((t) => ({ name: `${id}.${t.export}`, plugin: id, export: t.export, description: t.description, input_schema: t.input_schema }));
  });
}

/** Resolves `name` to a tool the persona selects, or RTC_ERR_TOOL_UNKNOWN listing the ones it has. */
export function resolveTool(host: ToolHost, name: string): { plugin: string; tool: ToolDeclaration } {
  const cut = name.lastIndexOf('.');
  const pluginId = cut > 0 ? name.slice(0, cut) : '';
  const exportName = cut > 0 ? name.slice(cut + 1) : name;
  const plugin = host.profile.tools.includes(pluginId) ? host.registry.get(pluginId) : undefined;
  const tool = plugin?.manifest.kind === 'tool' ? plugin.manifest.tools?.find((t) => t.export === exportName) : undefined;
  if (!plugin || !tool) {
    const have = listTools(host).map((t) => t.name);
    throw kernelError('RTC_ERR_TOOL_UNKNOWN', `persona ${host.profile.id} has no tool "${name}" (its tools: ${have.join(', ') || 'none'}; a profile selects tool plugins with tools:)`, { details: { tool: name, known: have } });
  }
  return { plugin: pluginId, tool };
}

/**
 * Calls tool `name` with `args` (one object of named arguments) for the persona and returns
 * the export's JSON result. Bad arguments are RTC_ERR_TOOL_ARGS naming the field; an error
 * inside the tool is the plugin's error (RTC_ERR_SANDBOX_SCRIPT and the like).
 */
export async function callTool(host: ToolHost, name: string, args: unknown): Promise<unknown> {
  const { plugin, tool } = resolveTool(host, name);
  const parsed = argumentSchema(tool).safeParse(args ?? {});
  if (!parsed.success) {
    const { field, reason } = describeZodError(parsed.error);
    throw kernelError('RTC_ERR_TOOL_ARGS', `tool ${name}: ${field}: ${reason}`, { details: { tool: name, field, reason } });
  }
  return host.plugins.get(plugin, 'tool').call(tool.export, parsed.data);
}
