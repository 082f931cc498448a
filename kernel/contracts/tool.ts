/**
 * The tool contract (`kind: tool`): each tool is an export listed in the manifest's `tools:`
 * with a description and a JSON Schema of its one argument, an object of named arguments
 * (checked before the call: features/persona/tools/call-tool.ts). The export returns any JSON value.
 * Tools are called by name `<plugin id>.<export>` through callTool: by an executor through the
 * `tools` binding (`Runtimectl.bindings.tools.call(name, args)`), or by an agent over MCP.
 */
export { toolDeclarationSchema, type ToolDeclaration } from '../manifest/plugin-manifest.ts';

/** What `Runtimectl.bindings.tools.list()` answers: one entry per tool the persona selects. */
export interface ToolListing {
  name: string;
  plugin: string;
  export: string;
  description: string;
  input_schema: Record<string, unknown>;
}
