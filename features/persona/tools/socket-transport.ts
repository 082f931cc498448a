/**
 * An MCP transport over a connected stream socket, framed as MCP's stdio transport is: one
 * JSON-RPC message a line. The tool relay serves each connection to its socket with one
 * (tool-relay.ts), and runtimectl's own client talks to the relay with one (relay-client.ts).
 *
 * Unlike the SDK's stdio transport, the serving end answers a line that is not a JSON-RPC
 * message with a JSON-RPC error (id null: parse error or invalid request) and keeps the
 * connection: an agent that sent garbage learns so, and its session goes on. A line longer than
 * the cap ends the connection (a flood is cut off).
 */
import type net from 'node:net';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** Largest message line read (a tool's arguments or answer are small; a flood is cut off). */
const MAX_LINE_BYTES = 8 * 1024 * 1024;

/** JSON-RPC's codes for a line that is not JSON, and for JSON that is not a message. */
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;

export class SocketTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly #socket: net.Socket;
  /** the serving end: answer garbage with a JSON-RPC error */
  readonly #answerGarbage: boolean;
  #buffer = '';
  #closed = false;

  constructor(socket: net.Socket, options: { answerGarbage: boolean }) {
    this.#socket = socket;
    this.#answerGarbage = options.answerGarbage;
  }

  async start(): Promise<void> {
    const socket = this.#socket;
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => this.#onData(chunk));
    socket.on('error', (error) => this.onerror?.(error));
    socket.on('close', () => this.#onClose());
  }

  #onData(chunk: string): void {
    this.#buffer += chunk;
    for (let at = this.#buffer.indexOf('\n'); at >= 0; at = this.#buffer.indexOf('\n')) {
      const line = this.#buffer.slice(0, at).replace(/\r$/, '');
      this.#buffer = this.#buffer.slice(at + 1);
      if (line.trim() !== '') this.#onLine(line);
    }
    if (this.#buffer.length > MAX_LINE_BYTES) this.#socket.destroy();
  }

  #onLine(line: string): void {
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      return this.#garbage(PARSE_ERROR, 'Parse error: the line is not JSON');
    }
    const message = JSONRPCMessageSchema.safeParse(json);
    if (!message.success) return this.#garbage(INVALID_REQUEST, 'Invalid Request: the line is not a JSON-RPC 2.0 message');
    this.onmessage?.(message.data);
  }

  #garbage(code: number, message: string): void {
    if (this.#answerGarbage) void this.#write({ jsonrpc: '2.0', id: null, error: { code, message } });
    else this.onerror?.(new Error(message));
  }

  #write(value: object): Promise<void> {
    const socket = this.#socket;
    if (socket.destroyed || !socket.writable) return Promise.resolve();
    return new Promise((resolve) => {
      if (socket.write(`${JSON.stringify(value)}\n`)) resolve();
      else socket.once('drain', resolve);
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.#write(message);
  }

  async close(): Promise<void> {
    this.#socket.destroy();
    this.#onClose();
  }

  #onClose(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.onclose?.();
  }
}
