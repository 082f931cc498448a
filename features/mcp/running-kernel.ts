/**
 * `mcp serve`'s fast path: the socket of a kernel that serves the persona's tools now, so the
 * command pipes to it (bridge.mjs) instead of opening the persona (start checks, its log, its
 * writer lock, which that kernel holds anyway). Given RUNTIMECTL_TOOLS_SOCKET, that socket;
 * else the operator's relay a `run` of the persona on this machine names
 * (`<persona>/tools-relay.json`), when it answers a connection.
 */
import path from 'node:path';
import type { CliIo } from '../command/command.ts';
import { resolvePersona } from '../profiles/load.ts';
import { liveRelay, TOOLS_SOCKET_ENV } from '../persona/tools/relay-pointer.ts';
import { resolveStateDir } from '../persistence/state-dir.ts';

export async function runningKernelSocket(persona: string, stateDirFlag: string | undefined, io: CliIo): Promise<string | undefined> {
  const given = io.env[TOOLS_SOCKET_ENV];
  // given explicitly: the bridge says in one line when it cannot be reached
  if (given) return given;
  const id = resolvePersona(persona, { cwd: io.cwd }).profile.id;
  return liveRelay(path.join(resolveStateDir(stateDirFlag, io), id));
}
