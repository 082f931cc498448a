/**
 * The kernel's tool relay: the running persona's tools over MCP on a Unix socket. An agent's
 * harness starts its MCP server as its own child, inside the session's OS sandbox; the tool
 * calls must still run in the kernel that holds the persona (its plugins' isolates, its
 * broker, its cycle's recorder and budget, the one writer of its event log). So the kernel
 * listens on a Unix socket in a folder of its own under the host's /tmp (bound read-only into
 * the sandbox, as the net proxy's is), and each connection is an MCP session served by the
 * SDK's Server (mcp-server.ts) over the persona's runtime: the harness's server is a bridge
 * that only pipes bytes (features/mcp/bridge.mjs), so no second runtimectl runs in the session.
 *
 * Framing is MCP's stdio framing (one JSON-RPC message a line, socket-transport.ts); a line
 * that is not a message is answered with a JSON-RPC error and the connection stays open.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { kernelError } from '../../../kernel/errors.ts';
import type { ToolInfo, ToolProblem } from './call-tool.ts';
import { toolServer } from './mcp-server.ts';
import { SocketTransport } from './socket-transport.ts';

export { removeRelayPointer, RELAY_POINTER_FILE, runningRelay, TOOLS_SOCKET_ENV, writeRelayPointer } from './relay-pointer.ts';

export interface RelayHandler {
  list(): Promise<{ tools: ToolInfo[]; problems: ToolProblem[] }>;
  /** `via`: who the call is from, as the relay's socket allows it (RelayOptions.vias) */
  call(name: string, args: unknown, via: RelayVia): Promise<unknown>;
}

/** Who a relayed call is from: an agent's MCP client (`mcp`), or an operator's `tools call` (`cli`). */
export type RelayVia = 'mcp' | 'cli';

export interface RelayOptions {
  /**
   * What a request may say it is from (`_meta["runtimectl/via"]`); the first is the default.
   * The socket handed into an executor's sandbox allows `mcp` alone (an agent cannot label its
   * calls an operator's); the operator's socket, never visible in a sandbox, allows `mcp` (an
   * operator's MCP client through `mcp serve`) and `cli` (`tools call`).
   */
  vias: readonly [RelayVia, ...RelayVia[]];
}

export class ToolRelay {
  readonly dir: string;
  readonly socketPath: string;
  readonly #server: net.Server;
  readonly #sockets = new Set<net.Socket>();
  readonly listening: Promise<void>;
  readonly #vias: RelayOptions['vias'];

  constructor(handler: RelayHandler, options: RelayOptions = { vias: ['mcp'] }) {
    this.#vias = options.vias;
    this.dir = mkdtempSync(path.join(os.tmpdir(), 'runtimectl-tools-'));
    this.socketPath = path.join(this.dir, 'tools.sock');
    this.#server = net.createServer((socket) => this.#serve(socket, handler));
    this.listening = new Promise((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(this.socketPath, () => resolve());
    });
    this.listening.catch(() => undefined);
  }

  /** One MCP session: the SDK's Server over this connection, calling the runtime directly. */
  #serve(socket: net.Socket, handler: RelayHandler): void {
    this.#sockets.add(socket);
    socket.on('close', () => this.#sockets.delete(socket));
    const vias = this.#vias;
    const server = toolServer({
      source: {
        list: () => handler.list(),
        call: (name, args, asked) => {
          const via = asked ?? vias[0];
          if (!vias.includes(via as RelayVia)) throw kernelError('RTC_ERR_TOOL_ARGS', `this relay takes calls from ${vias.join(' or ')}, not ${JSON.stringify(via)}`);
          return handler.call(name, args, via as RelayVia);
        },
        // the runtime outlives the session: closing a connection closes nothing of it
        close: async () => undefined,
      },
    });
    server.connect(new SocketTransport(socket, { answerGarbage: true })).catch(() => socket.destroy());
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
    rmSync(this.dir, { recursive: true, force: true });
  }
}
