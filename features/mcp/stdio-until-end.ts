/**
 * `mcp serve`'s stdio transport, ended by the end of its input. The SDK's stdio server
 * transport does not watch for the end of stdin: a client that closes it (or `printf … |
 * runtimectl mcp serve`) would leave the server waiting on nothing, and Node would end the
 * process with status 13 (a top-level await never settled). Here the end of input is the
 * client going away: once every request read has been answered (or cancelled), the
 * transport closes, the server ends and the command exits 0. Answers in flight are not lost.
 */
import type { Readable, Writable } from 'node:stream';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { isJSONRPCError, isJSONRPCNotification, isJSONRPCRequest, isJSONRPCResponse, type JSONRPCMessage, type MessageExtraInfo, type RequestId } from '@modelcontextprotocol/sdk/types.js';

export class StdioUntilEnd implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;
  readonly #inner: StdioServerTransport;
  readonly #input: Readable;
  /** the requests read and not yet answered */
  readonly #open = new Set<RequestId>();
  #ended = false;

  constructor(input: Readable = process.stdin, output: Writable = process.stdout) {
    this.#input = input;
    this.#inner = new StdioServerTransport(input, output);
  }

  async start(): Promise<void> {
    this.#inner.onclose = () => this.onclose?.();
    this.#inner.onerror = (error) => this.onerror?.(error);
    this.#inner.onmessage = (message: JSONRPCMessage) => {
      if (isJSONRPCRequest(message)) this.#open.add(message.id);
      // a cancelled request is answered with nothing (the SDK drops its answer)
      else if (isJSONRPCNotification(message) && message.method === 'notifications/cancelled') this.#settle((message.params as { requestId?: RequestId } | undefined)?.requestId);
      this.onmessage?.(message);
    };
    this.#input.once('end', () => {
      this.#ended = true;
      this.#closeIfDone();
    });
    await this.#inner.start();
  }

  async send(message: JSONRPCMessage, _options?: TransportSendOptions): Promise<void> {
    try {
      await this.#inner.send(message);
    } finally {
      if (isJSONRPCResponse(message) || isJSONRPCError(message)) this.#settle(message.id);
    }
  }

  close(): Promise<void> {
    return this.#inner.close();
  }

  #settle(id: RequestId | undefined): void {
    if (id === undefined) return;
    this.#open.delete(id);
    this.#closeIfDone();
  }

  #closeIfDone(): void {
    if (this.#ended && this.#open.size === 0) void this.#inner.close();
  }
}
