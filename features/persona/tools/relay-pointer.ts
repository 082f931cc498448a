/**
 * How `mcp serve` and `tools call` find the kernel running a persona on this machine: the
 * variable the bridge reads, and the pointer file the kernel's tool relay writes (tool-relay.ts
 * serves the socket). In a module of their own: `mcp serve` reads them in its first moments,
 * before it loads the rest of the CLI (features/mcp/early-serve.ts), and the relay itself
 * loads the MCP server and the writer lock.
 */
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { processStartTicks, readWriterHolder } from '../../persistence/state/writer-holder.ts';

/** The variable the bridge (and `mcp serve`, `tools call`) finds the kernel's socket in. */
export const TOOLS_SOCKET_ENV = 'RUNTIMECTL_TOOLS_SOCKET';

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

/** Whether the socket takes a connection (a kernel killed before removing its pointer does not). */
export function answers(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(socketPath);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** The running kernel's socket for the persona folder when it also answers now; else undefined. */
export async function liveRelay(personaDir: string): Promise<string | undefined> {
  const socket = runningRelay(personaDir);
  return socket !== undefined && (await answers(socket)) ? socket : undefined;
}
