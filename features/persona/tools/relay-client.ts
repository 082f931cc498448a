/**
 * runtimectl's own MCP client of a running kernel's tool relay (tool-relay.ts): what an
 * operator's `tools call` (and `tools list` given RUNTIMECTL_TOOLS_SOCKET) talks, the same
 * protocol an agent's session talks. It asks for the kernel's values besides the MCP content
 * (`_meta["runtimectl/raw"]`), so a call answers the tool's value as a call in this process
 * would, and a kernel error comes back as that error, with its code.
 */
import net from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { errorLine, kernelError } from '../../../kernel/errors.ts';
import { KERNEL_VERSION } from '../../../kernel/version.ts';
import type { ToolInfo, ToolProblem } from './call-tool.ts';
import { META } from './mcp-server.ts';
import { SocketTransport } from './socket-transport.ts';
import { TOOLS_SOCKET_ENV, type RelayVia } from './tool-relay.ts';

export class RelayClient {
  readonly #client: Client;

  private constructor(client: Client) {
    this.#client = client;
  }

  static async connect(socketPath: string): Promise<RelayClient> {
    const socket = await new Promise<net.Socket>((resolve, reject) => {
      const s = net.connect(socketPath);
      s.once('connect', () => resolve(s));
      s.once('error', (error) => reject(kernelError('RTC_ERR_TOOL_RELAY', `cannot reach the kernel's tool relay at ${socketPath} (${TOOLS_SOCKET_ENV}): ${error.message}`, { cause: error })));
    });
    const client = new Client({ name: 'runtimectl', version: KERNEL_VERSION });
    try {
      await client.connect(new SocketTransport(socket, { answerGarbage: false }));
    } catch (error) {
      socket.destroy();
      throw kernelError('RTC_ERR_TOOL_RELAY', `the kernel's tool relay at ${socketPath} did not answer MCP's initialize: ${errorLine(error)}`, { cause: error });
    }
    return new RelayClient(client);
  }

  async list(): Promise<{ tools: ToolInfo[]; problems: ToolProblem[] }> {
    const answer = await this.#client.listTools({ _meta: { [META.raw]: true } });
    return {
      tools: answer.tools.map((t) => (t._meta?.[META.tool] as ToolInfo | undefined) ?? { name: t.name, plugin: '', export: t.name, source: 'plugin', description: t.description ?? '', input_schema: t.inputSchema }),
      problems: (answer._meta?.[META.problems] as ToolProblem[] | undefined) ?? [],
    };
  }

  /** The tool's value; a kernel error is thrown again here with its code. */
  async call(name: string, args: unknown, via?: RelayVia): Promise<unknown> {
    const meta = { [META.raw]: true, ...(via ? { [META.via]: via } : {}) };
    const answer = await this.#client.callTool({ name, arguments: args as Record<string, unknown>, _meta: meta }, undefined, { timeout: 2 ** 31 - 1 });
    const error = answer._meta?.[META.error] as { code: string | null; message: string } | undefined;
    if (error) throw error.code && /^RTC_ERR_[A-Z_]+$/.test(error.code) ? kernelError(error.code as 'RTC_ERR_TOOL_RELAY', error.message) : new Error(error.message);
    return answer._meta?.[META.value];
  }

  async close(): Promise<void> {
    await this.#client.close();
  }
}
