/**
 * The relay between `runtimectl mcp serve` started by an agent's harness and the kernel
 * process running the persona. The harness starts the MCP server as its own child, inside the
 * session's OS sandbox; the tool calls must still run in the kernel that holds the persona
 * (its plugins' isolates, its broker, its cycle's recorder and budget, the one writer of its
 * event log). So the kernel listens on a Unix socket in a folder of its own under the host's
 * /tmp (bound read-only into the sandbox, as the net proxy's is) and the server forwards each
 * `tools/list` and `tools/call` there.
 *
 * The protocol is one JSON object a line: `{id, op: "list"}` or `{id, op: "call", name, args}`
 * from the server; `{id, ok: value}` or `{id, err: {code, message}}` from the kernel. A line
 * that is not such a request is answered with an error and the connection stays open.
 */
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { errorLine, isKernelError, kernelError } from '../../../kernel/errors.ts';
import { processStartTicks, readWriterHolder } from '../../persistence/state/writer-lock.ts';

/** The variable `mcp serve` finds the kernel's socket in. */
export const TOOLS_SOCKET_ENV = 'RUNTIMECTL_TOOLS_SOCKET';

/** Largest request line the kernel reads (a tool's arguments are small; a flood is cut off). */
const MAX_LINE_BYTES = 8 * 1024 * 1024;

export interface RelayHandler {
  list(): Promise<unknown>;
  /** `via`: who the call is from, as the relay's socket allows it (RelayOptions.vias) */
  call(name: string, args: unknown, via: RelayVia): Promise<unknown>;
}

/** Who a relayed call is from: an agent's MCP server (`mcp`), or an operator's `tools call` (`cli`). */
export type RelayVia = 'mcp' | 'cli';

export interface RelayOptions {
  /**
   * What a request may say it is from; the first is the default. The socket handed into an
   * executor's sandbox allows `mcp` alone (an agent cannot label its calls an operator's); the
   * operator's socket, never visible in a sandbox, allows `cli` and `mcp` (mcp serve run by hand).
   */
  vias: readonly [RelayVia, ...RelayVia[]];
}

export interface RelayError {
  code: string | null;
  message: string;
}

function asRelayError(error: unknown): RelayError {
  if (isKernelError(error)) return { code: error.code, message: error.message };
  return { code: null, message: errorLine(error) };
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

  #serve(socket: net.Socket, handler: RelayHandler): void {
    this.#sockets.add(socket);
    socket.on('close', () => this.#sockets.delete(socket));
    socket.on('error', () => undefined);
    let buffer = '';
    const answer = (value: object) => {
      if (!socket.destroyed) socket.write(`${JSON.stringify(value)}\n`);
    };
    const handle = async (line: string) => {
      let request: { id?: unknown; op?: unknown; name?: unknown; args?: unknown; via?: unknown };
      try {
        request = JSON.parse(line) as typeof request;
        if (typeof request !== 'object' || request === null) throw new Error('not an object');
      } catch {
        return answer({ id: null, err: { code: 'RTC_ERR_TOOL_ARGS', message: 'the relay request is not a JSON object' } });
      }
      const id = request.id ?? null;
      try {
        if (request.op === 'list') return answer({ id, ok: await handler.list() });
        if (request.op === 'call' && typeof request.name === 'string') {
          const via = request.via ?? this.#vias[0];
          if (!this.#vias.includes(via as RelayVia)) throw kernelError('RTC_ERR_TOOL_ARGS', `this relay takes calls from ${this.#vias.join(' or ')}, not ${JSON.stringify(via)}`);
          return answer({ id, ok: await handler.call(request.name, request.args, via as RelayVia) });
        }
        throw kernelError('RTC_ERR_TOOL_ARGS', 'the relay request names no op "list" or "call" with a tool name');
      } catch (error) {
        return answer({ id, err: asRelayError(error) });
      }
    };
    socket.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      if (buffer.length > MAX_LINE_BYTES) {
        socket.destroy();
        return;
      }
      for (let at = buffer.indexOf('\n'); at >= 0; at = buffer.indexOf('\n')) {
        const line = buffer.slice(0, at);
        buffer = buffer.slice(at + 1);
        if (line.trim() !== '') void handle(line);
      }
    });
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** The server's end: each request answered in turn (the kernel serves them concurrently). */
export class RelayClient {
  readonly #socket: net.Socket;
  readonly #pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  #next = 1;
  #buffer = '';
  #closed: Error | undefined;

  private constructor(socket: net.Socket) {
    this.#socket = socket;
    socket.on('data', (chunk: Buffer) => this.#onData(chunk));
    socket.on('error', (error) => this.#fail(error));
    socket.on('close', () => this.#fail(new Error('the kernel closed the tool relay')));
  }

  static connect(socketPath: string): Promise<RelayClient> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(socketPath);
      socket.once('connect', () => resolve(new RelayClient(socket)));
      socket.once('error', (error) =>
        reject(kernelError('RTC_ERR_TOOL_RELAY', `cannot reach the kernel's tool relay at ${socketPath} (${TOOLS_SOCKET_ENV}): ${error.message}`, { cause: error })),
      );
    });
  }

  #fail(error: Error): void {
    this.#closed ??= kernelError('RTC_ERR_TOOL_RELAY', `the kernel's tool relay is gone: ${error.message}`);
    for (const p of this.#pending.values()) p.reject(this.#closed);
    this.#pending.clear();
  }

  #onData(chunk: Buffer): void {
    this.#buffer += chunk.toString('utf8');
    for (let at = this.#buffer.indexOf('\n'); at >= 0; at = this.#buffer.indexOf('\n')) {
      const line = this.#buffer.slice(0, at);
      this.#buffer = this.#buffer.slice(at + 1);
      const message = JSON.parse(line) as { id: number; ok?: unknown; err?: RelayError };
      const pending = this.#pending.get(message.id);
      if (!pending) continue;
      this.#pending.delete(message.id);
      if (message.err) pending.reject(relayedError(message.err));
      else pending.resolve(message.ok);
    }
  }

  #request(body: object): Promise<unknown> {
    if (this.#closed) return Promise.reject(this.#closed);
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#socket.write(`${JSON.stringify({ id, ...body })}\n`);
    });
  }

  list(): Promise<unknown> {
    return this.#request({ op: 'list' });
  }

  call(name: string, args: unknown, via?: RelayVia): Promise<unknown> {
    return this.#request({ op: 'call', name, args, ...(via ? { via } : {}) });
  }

  close(): void {
    this.#socket.destroy();
  }
}

/**
 * `<persona>/tools-relay.json`: where an operator's `tools call` (or `mcp serve` run by hand)
 * reaches the kernel running the persona, so the call is made there, under its writer lock
 * and in its log, instead of being refused or forking the log. Written once the operator's
 * socket listens, removed at close; a record left by a killed kernel names a process that is
 * gone, and is ignored. A kernel file: no plugin binding may write it (storage-session.ts).
 */
export const RELAY_POINTER_FILE = 'tools-relay.json';

interface RelayPointer {
  socket: string;
  pid: number;
  start_ticks: number | null;
}

export function writeRelayPointer(personaDir: string, socketPath: string): void {
  const pointer: RelayPointer = { socket: socketPath, pid: process.pid, start_ticks: processStartTicks(process.pid) };
  const file = path.join(personaDir, RELAY_POINTER_FILE);
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(pointer)}\n`, { mode: 0o600 });
  renameSync(temp, file);
}

export function removeRelayPointer(personaDir: string, socketPath: string): void {
  const file = path.join(personaDir, RELAY_POINTER_FILE);
  // Only this kernel's own record: a newer kernel's is left alone.
  if (readPointer(file)?.socket === socketPath) rmSync(file, { force: true });
}

function readPointer(file: string): RelayPointer | undefined {
  try {
    const value = JSON.parse(readFileSync(file, 'utf8')) as Partial<RelayPointer>;
    if (typeof value.socket !== 'string' || typeof value.pid !== 'number') return undefined;
    return { socket: value.socket, pid: value.pid, start_ticks: typeof value.start_ticks === 'number' ? value.start_ticks : null };
  } catch {
    return undefined;
  }
}

/**
 * The socket of the kernel running this persona on this machine, or undefined: the record must
 * name a running process (pid and start time), which holds the persona's writer lock, and a
 * relay folder of this kernel's own kind (`runtimectl-tools-*` under the temp folder).
 */
export function runningRelay(personaDir: string): string | undefined {
  const pointer = readPointer(path.join(personaDir, RELAY_POINTER_FILE));
  if (!pointer) return undefined;
  const ticks = processStartTicks(pointer.pid);
  if (ticks === null || (pointer.start_ticks !== null && ticks !== pointer.start_ticks)) return undefined;
  const holder = readWriterHolder(personaDir);
  if (holder !== undefined && holder.pid !== pointer.pid) return undefined;
  const dir = path.dirname(pointer.socket);
  if (path.dirname(dir) !== os.tmpdir() || !path.basename(dir).startsWith('runtimectl-tools-') || path.basename(pointer.socket) !== 'tools.sock') return undefined;
  return pointer.socket;
}

/** The kernel's error again on the server's side, with its code. */
function relayedError(err: RelayError): Error {
  if (err.code && /^RTC_ERR_[A-Z_]+$/.test(err.code)) return kernelError(err.code as 'RTC_ERR_TOOL_RELAY', err.message);
  return new Error(err.message);
}
