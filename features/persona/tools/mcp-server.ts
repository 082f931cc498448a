/**
 * The persona's tools as an MCP server (the official SDK's Server over a transport): the
 * running kernel's tool relay serves one on each connection to its socket (tool-relay.ts:
 * an agent's session through the bridge, an operator's `mcp serve` and `tools call`), and
 * `mcp serve` with no kernel running serves one over stdio. `tools/list` is the persona's
 * tools with their declared input schemas; `tools/call` goes through the tool source (the
 * kernel's one tool path). Whatever goes wrong in a call (an unknown tool, arguments that fail
 * the schema, a denial, a limit, a tool that throws, a mounted server that crashed) is an MCP
 * tool error (`isError`) with the kernel's one-line message, its code in the result's `_meta`:
 * the agent reads it, and the server serves the next call.
 *
 * runtimectl's own clients (`tools call`) ask for the kernel's values besides the content
 * (`_meta: {"runtimectl/raw": true}` on the request): each listed tool's ToolInfo, the
 * listing's problems, a call's value as the tool source returned it. A request may name who
 * it is from (`_meta: {"runtimectl/via": "cli"}`); the source decides whether it may.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { errorLine, isKernelError } from '../../../kernel/errors.ts';
import { KERNEL_VERSION } from '../../../kernel/version.ts';
import type { ToolInfo, ToolProblem } from './call-tool.ts';
import type { ScriptToolResult } from './script-spec.ts';

/** Where the server's tools come from: a persona opened in this process, or the running kernel's runtime. */
export interface ToolSource {
  list(): Promise<{ tools: ToolInfo[]; problems: ToolProblem[] }>;
  /** `via`: who the request says it is from (`_meta["runtimectl/via"]`), unchecked: the source decides */
  call(name: string, args: unknown, via?: unknown): Promise<unknown>;
  close(): Promise<void>;
  /**
   * A source whose list can change while it is served (`mcp serve` answering from the tool
   * plan until the kernel has started) hands the server a function to call when it did: the
   * client is told (`notifications/tools/list_changed`) and lists again.
   */
  watch?(changed: () => void): void;
}

/** The `_meta` keys runtimectl's own client and server share. */
export const META = {
  /** request: answer with the kernel's values too */
  raw: 'runtimectl/raw',
  /** request: who the call is from (`mcp`, `cli`) */
  via: 'runtimectl/via',
  /** a listed tool: its ToolInfo (raw) */
  tool: 'runtimectl/tool',
  /** tools/list result: the listing's problems (raw) */
  problems: 'runtimectl/problems',
  /** tools/call result: the value the tool source returned (raw) */
  value: 'runtimectl/value',
  /** tools/call error result: `{code, message}` (always) */
  error: 'runtimectl/error',
} as const;

/** An MCP tool's input schema must be an object schema; a declaration without `type` gets it. */
function inputSchema(schema: Record<string, unknown>): Tool['inputSchema'] {
  return (schema.type === 'object' ? schema : { type: 'object', ...schema }) as Tool['inputSchema'];
}

/** A tool plugin's JSON result as MCP content: the JSON text, and the object itself as structured content. */
export function resultContent(value: unknown): CallToolResult {
  const text = value === undefined ? 'null' : JSON.stringify(value);
  const structured = typeof value === 'object' && value !== null && !Array.isArray(value) ? { structuredContent: value as Record<string, unknown> } : {};
  return { content: [{ type: 'text', text }], ...structured };
}

/**
 * A skill script's run as MCP content: its stdout (then its stderr, when it wrote some), the
 * run as structured content, and a tool error when it did not exit 0 (an uncaught error, a
 * denial, a limit: Deno's own stderr line says which).
 */
export function scriptContent(value: unknown): CallToolResult {
  const run = value as ScriptToolResult;
  const parts = [run.stdout, ...(run.stderr ? [`[stderr]\n${run.stderr}`] : []), ...(run.exit_code !== 0 ? [`[exit code ${run.exit_code}]`] : [])];
  return { content: [{ type: 'text', text: parts.filter((p) => p !== '').join('\n') }], structuredContent: { ...run }, ...(run.exit_code !== 0 ? { isError: true } : {}) };
}

/**
 * A kernel tool's answer (review.propose, review.proposals): its JSON as text and structured
 * content; a refused proposal (`status: "refused"`) is a tool error whose first line is the
 * refusal's code and message, so an agent that reads only the text still learns why.
 */
export function kernelContent(value: unknown): CallToolResult {
  const answer = value as { status?: string; code?: string; message?: string };
  if (answer?.status !== 'refused') return resultContent(value);
  return { isError: true, content: [{ type: 'text', text: `${answer.code}: ${answer.message}\n${JSON.stringify(value)}` }], structuredContent: value as Record<string, unknown> };
}

export function errorContent(error: unknown): CallToolResult {
  const line = isKernelError(error) ? error.toBareLine() : errorLine(error);
  const code = isKernelError(error) ? error.code : null;
  return { isError: true, content: [{ type: 'text', text: line }], _meta: { [META.error]: { code, message: isKernelError(error) ? error.message : line } } };
}

export interface ServeOptions {
  source: ToolSource;
  /** told each listing problem and each failed call (the server's stderr) */
  log?: (line: string) => void;
}

export function toolServer(options: ServeOptions): Server {
  const { source } = options;
  const server = new Server({ name: 'runtimectl', version: KERNEL_VERSION }, { capabilities: { tools: source.watch ? { listChanged: true } : {} } });
  // a client gone before the notice is no error of the server's
  source.watch?.(() => void server.sendToolListChanged().catch(() => undefined));
  let known = new Map<string, ToolInfo>();
  let lastProblems: ToolProblem[] = [];
  const unsandboxedSaid = new Set<string>();
  const list = async (): Promise<ToolInfo[]> => {
    const { tools, problems } = await source.list();
    lastProblems = problems;
    for (const p of problems) options.log?.(`tool plugin ${p.plugin}: ${p.error}`);
    // a mounted server outside the OS sandbox is said once per plugin, on the server's stderr
    for (const t of tools) {
      if (!t.os_sandbox || t.os_sandbox === 'bubblewrap' || unsandboxedSaid.has(t.plugin)) continue;
      unsandboxedSaid.add(t.plugin);
      options.log?.(`tool plugin ${t.plugin}: its MCP server runs without the OS sandbox (${t.os_sandbox}): its file and network access are the kernel user's`);
    }
    known = new Map(tools.map((t) => [t.name, t]));
    return tools;
  };
  server.setRequestHandler(ListToolsRequestSchema, async (request) => {
    const raw = request.params?._meta?.[META.raw] === true;
    const tools = await list();
    return {
      tools: tools.map((t) => ({ name: t.name, description: t.description, inputSchema: inputSchema(t.input_schema), ...(raw ? { _meta: { [META.tool]: t } } : {}) })),
      ...(raw ? { _meta: { [META.problems]: lastProblems } } : {}),
    };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const { name } = request.params;
    const meta = request.params._meta;
    try {
      if (!known.has(name)) await list();
      const value = await source.call(name, request.params.arguments ?? {}, meta?.[META.via]);
      // a mounted server's answer is already MCP content; a script's is its run; a plugin's is JSON;
      // the kernel's review.propose answers a refusal as a value, which the agent reads as a tool error
      const kind = known.get(name)?.source;
      const content = kind === 'kernel' ? kernelContent(value) : kind === 'mcp' ? (value as CallToolResult) : kind === 'script' ? scriptContent(value) : resultContent(value);
      return meta?.[META.raw] === true ? { ...content, _meta: { ...(content._meta ?? {}), [META.value]: value } } : content;
    } catch (error) {
      options.log?.(`tool ${name}: ${errorLine(error)}`);
      return errorContent(error);
    }
  });
  return server;
}

/** Serves until the transport closes (the client went away); then closes the source. */
export async function serveTools(options: ServeOptions, transport: Transport): Promise<void> {
  const server = toolServer(options);
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
  });
  await server.connect(transport);
  await closed;
  await options.source.close();
}
