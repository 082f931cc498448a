/**
 * Plugin manifests (`plugin.yaml`): what a plugin is, what it runs, and what it asks for.
 * Declared here and never mutated; the resolved plugin (path, grant, bundle digest) is a
 * separate type in the registry.
 */
import { z } from 'zod';
import { limitsSchema } from './sandbox-profile.ts';
import { permissionsSchema } from './permissions-schema.ts';
import { GATE_BINDINGS, GATE_CHECK_ID_PREFIX, gateCheckSectionSchema } from '../contracts/gate-check.ts';
import { LOOP_STEP_EXPORTS, LOOP_STEP_ID_PREFIX, loopStepSectionSchema } from '../contracts/loop-step.ts';
import { PLUGIN_ID_PATTERN } from '../ids.ts';

export const PLUGIN_KINDS = ['skill', 'executor', 'budget-policy', 'persistence', 'phase-selector', 'tool', 'ledger', 'gate-check', 'loop-step'] as const;

export type PluginKind = (typeof PLUGIN_KINDS)[number];

export const BINDING_NAMES = ['events', 'usage', 'ledger', 'memory', 'proposals', 'storage.files', 'storage.sqlite', 'storage.postgres', 'storage.ledger', 'workspace', 'tools', ...GATE_BINDINGS] as const;

/** A JSON Schema the kernel can check tool arguments with (it becomes a zod schema at load). */
const jsonSchemaObject = z
  .record(z.string(), z.unknown())
  .superRefine((value, ctx) => {
    if (value.type !== 'object') ctx.addIssue({ code: 'custom', message: 'a tool\'s input_schema must be a JSON Schema with type: object (tools take named arguments)' });
    try {
      z.fromJSONSchema(value as Parameters<typeof z.fromJSONSchema>[0]);
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: `not a JSON Schema the kernel can check arguments with (${(error as Error).message.split('\n')[0]})` });
    }
  });

/** One tool a `kind: tool` plugin offers: an export taking one object of named arguments. */
export const toolDeclarationSchema = z.strictObject({
  export: z.string().regex(/^[A-Za-z_$][\w$]*$/).describe('the exported function that implements the tool; it is called with the arguments object'),
  description: z.string().min(1).max(1024).describe('what the tool does, for the agent choosing it'),
  input_schema: jsonSchemaObject.default({ type: 'object', properties: {}, additionalProperties: false }).describe('JSON Schema of the arguments object (type: object)'),
});
export type ToolDeclaration = z.infer<typeof toolDeclarationSchema>;

/** An environment variable name (what `mcp.env` and `mcp.pass_env` name). */
const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name');

/**
 * A tool plugin that mounts an MCP server instead of running code of its own: the kernel
 * starts `command` (resolved on PATH like a `run` permission, and needing one) as a
 * subprocess under the plugin's grant, lists its tools and proxies each call, audited,
 * recorded and metered. The server's environment is only what is declared here.
 */
export const mcpServerDeclarationSchema = z.strictObject({
  command: z.string().min(1).describe('the server program; a bare name is looked up on the persona\'s PATH and must be granted by permissions.run'),
  args: z.array(z.string()).default([]).describe('its arguments (placeholders such as ${plugin} and ${state} are filled)'),
  env: z.record(envName, z.string()).default({}).describe('variables the server gets, with these values (placeholders filled); nothing else of any environment reaches it but pass_env'),
  pass_env: z.array(envName).default([]).describe('variables copied from the persona\'s environment (each must be granted by permissions.env)'),
});
export type McpServerDeclaration = z.infer<typeof mcpServerDeclarationSchema>;

/**
 * The profile a manifest without `sandbox:` runs under: the isolating process tier. In-process
 * isolates are for code the operator vouches for (SANDBOX-HAZARDS.md: one fatal V8 error there
 * aborts the kernel), so they are never a default.
 */
export const DEFAULT_PLUGIN_PROFILE = 'default';

export const pluginManifestSchema = z.strictObject({
  $schema: z.string().optional(),
  id: z.string().regex(PLUGIN_ID_PATTERN, 'dotted lowercase id such as executor.codex').describe('unique plugin id, e.g. executor.codex'),
  version: z.string().regex(/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/, 'a semantic version such as 1.0.0'),
  kind: z.enum(PLUGIN_KINDS),
  entry: z.string().regex(/^[^/].*\.(ts|js|mts|mjs)$/, 'a relative .ts or .js file').refine((p) => !p.split('/').includes('..'), 'must stay inside the plugin folder').optional().describe('the code (required, except for a tool plugin that mounts an MCP server)'),
  description: z.string().min(1).max(1024),
  permissions: permissionsSchema.default({}),
  bindings: z.array(z.enum(BINDING_NAMES)).default([]).describe('kernel powers Deno has no word for, handed over only when declared and granted'),
  limits: limitsSchema.partial().default({}).describe('per-plugin limits; each is capped by the sandbox profile'),
  sandbox: z
    .string()
    .regex(/^[a-z][a-z0-9-]*$/)
    .default(DEFAULT_PLUGIN_PROFILE)
    .describe(
      'the sandbox profile the plugin asks to run under (default: "default", isolates inside a pool of sandbox host processes). An in-process profile (trusted, persistence) is honoured for first-party plugins (the checkout\'s plugins/) and for plugins an operator names in a persona profile\'s trust:; any other plugin asking for one runs under "default"',
    ),
  exports: z.array(z.string().regex(/^[A-Za-z_$][\w$]*$/)).default([]).describe('the functions the kernel may call (at least one, except for a tool plugin that mounts an MCP server)'),
  tools: z.array(toolDeclarationSchema).min(1).optional().describe('kind tool only: the tools this plugin offers (each one of its exports); a persona can select only a tool plugin that lists some'),
  mcp: mcpServerDeclarationSchema.optional().describe('kind tool only, instead of entry, exports and tools: an MCP server whose tools this plugin offers'),
  gate_check: gateCheckSectionSchema.optional().describe('kind gate-check only: which earlier checks this one reads'),
  loop_step: loopStepSectionSchema.optional().describe('kind loop-step only: the step values it reads, uses and produces, and the cycle event fields it adds'),
}).superRefine((m, ctx) => {
  if (m.mcp !== undefined) {
    if (m.kind !== 'tool') ctx.addIssue({ code: 'custom', path: ['mcp'], message: `only tool plugins mount an MCP server, not ${m.kind} plugins` });
    for (const field of ['entry', 'tools'] as const) {
      if (m[field] !== undefined) ctx.addIssue({ code: 'custom', path: [field], message: `a plugin that mounts an MCP server (mcp:) has no ${field}: its tools are the server's` });
    }
    if (m.exports.length > 0) ctx.addIssue({ code: 'custom', path: ['exports'], message: 'a plugin that mounts an MCP server (mcp:) has no exports: its tools are the server\'s' });
    return;
  }
  // A skill's plugin.yaml may only say what its scripts may do (scripts/*.ts are its code): entry and exports are for a skill with a module.
  const scriptsOnly = m.kind === 'skill' && m.entry === undefined && m.exports.length === 0;
  if (!scriptsOnly && m.entry === undefined) ctx.addIssue({ code: 'custom', path: ['entry'], message: 'is required (a relative .ts or .js file), unless the plugin mounts an MCP server (mcp:)' });
  if (!scriptsOnly && m.exports.length === 0) ctx.addIssue({ code: 'custom', path: ['exports'], message: 'must list at least one exported function' });
  if (m.kind !== 'tool' && m.tools !== undefined) ctx.addIssue({ code: 'custom', path: ['tools'], message: `only tool plugins declare tools, not ${m.kind} plugins` });
  for (const [i, tool] of (m.tools ?? []).entries()) {
    if (!m.exports.includes(tool.export)) ctx.addIssue({ code: 'custom', path: ['tools', i, 'export'], message: `"${tool.export}" is not in exports (${m.exports.join(', ')})` });
  }
  checkLoopStep(m, ctx);
  if (m.kind !== 'gate-check') {
    if (m.gate_check !== undefined) ctx.addIssue({ code: 'custom', path: ['gate_check'], message: `only gate-check plugins have a gate_check section, not ${m.kind} plugins` });
    // The prefix is how a gate profile names a check: another kind under it would pass for a missing check.
    if (m.id.startsWith(GATE_CHECK_ID_PREFIX)) ctx.addIssue({ code: 'custom', path: ['id'], message: `ids starting "${GATE_CHECK_ID_PREFIX}" are for gate-check plugins, not ${m.kind} plugins` });
    return;
  }
  if (!m.id.startsWith(GATE_CHECK_ID_PREFIX) || m.id.split('.').length !== 2) ctx.addIssue({ code: 'custom', path: ['id'], message: `a gate-check plugin's id is "${GATE_CHECK_ID_PREFIX}<check name>" (the name profiles list)` });
  if (!m.exports.includes('check')) ctx.addIssue({ code: 'custom', path: ['exports'], message: 'a gate-check plugin exports "check"' });
});

/** A loop-step plugin: its id says it is one (`step.<name>`, what a harness lists), it exports run and has its section. */
function checkLoopStep(m: { id: string; kind: string; exports: string[]; loop_step?: unknown }, ctx: z.RefinementCtx): void {
  if (m.kind !== 'loop-step') {
    if (m.loop_step !== undefined) ctx.addIssue({ code: 'custom', path: ['loop_step'], message: `only loop-step plugins have a loop_step section, not ${m.kind} plugins` });
    // A harness names a step plugin by this prefix: another kind under it would pass for a missing step.
    if (m.id.startsWith(LOOP_STEP_ID_PREFIX)) ctx.addIssue({ code: 'custom', path: ['id'], message: `ids starting "${LOOP_STEP_ID_PREFIX}" are for loop-step plugins, not ${m.kind} plugins` });
    return;
  }
  if (!m.id.startsWith(LOOP_STEP_ID_PREFIX)) ctx.addIssue({ code: 'custom', path: ['id'], message: `a loop-step plugin's id is "${LOOP_STEP_ID_PREFIX}<name>" (what a harness's steps list)` });
  if (m.loop_step === undefined) ctx.addIssue({ code: 'custom', path: ['loop_step'], message: 'a loop-step plugin says which step values it reads and produces (loop_step:)' });
  for (const name of LOOP_STEP_EXPORTS) if (!m.exports.includes(name)) ctx.addIssue({ code: 'custom', path: ['exports'], message: `a loop-step plugin exports "${name}"` });
}

export type PluginManifest = z.infer<typeof pluginManifestSchema>;
