/**
 * Every subprocess the kernel's plugins have running, in one registry per kernel, so that a
 * stop reaches all of them and none is lost across a crash:
 *
 * - `stop()` (SIGTERM, or a second SIGINT): no new child may start; every running one gets
 *   TERM at once and KILL after the operator's kill delay. The sessions they belonged to are
 *   remembered as stopped, so the loop records them `interrupted` (with the usage they
 *   printed so far) and leaves their work pending.
 * - While an executor session's child runs, a process marker names it (pid, process start
 *   time, boot id, process group): `<state>/.runtimectl/processes/<persona>/<run-id>.json`,
 *   under the state directory's own kernel folder, which no OS sandbox shows and no grant
 *   reaches (never in the session folder, which the session's command may write: a marker
 *   there could be forged to name any process of the host). A kernel that dies without
 *   removing it (kill -9, a power cut) leaves it behind; the next start finds it
 *   (`recoverLeftSessions`), ends whatever still runs under exactly that identity (pid, start
 *   time and boot id all match; a missing start time matches nothing) and records the session
 *   as interrupted before the persona does anything new. With the OS sandbox the child
 *   already died with the kernel (die-with-parent); the record says so.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { errorLine } from '../../../kernel/errors.ts';
import { readFileBeneath, removeBeneath, writeFileBeneath } from '../../../sandboxes/fs-safety/no-follow.ts';
import type { ChildHandle, ChildTracker, SandboxRecord } from '../../../sandboxes/subprocess/run-command.ts';
import { bootId, processEnded, processGroupAlive, processStartTime, signal } from '../../../sandboxes/subprocess/os-sandbox/process-tree.ts';

export const SANDBOX_RECORD = 'sandbox.json';
export const PROCESS_MARKER_FORMAT = 'runtimectl.session-process/1';

/** Where a persona's process markers are: the state directory's kernel folder, out of every sandbox's and grant's reach. */
export function processMarkerDir(stateDir: string, personaId: string): string {
  return path.join(stateDir, '.runtimectl', 'processes', personaId);
}

/** A session's run id as allocateRunId makes it (`c000042-codex-2`): safe as a file and folder name. */
const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

const processMarkerSchema = z
  .object({
    format: z.literal(PROCESS_MARKER_FORMAT),
    run_id: z.string().regex(RUN_ID),
    executor: z.string().max(200).optional(),
    command: z.string().max(4096),
    pid: z.number().int().min(2),
    process_group: z.number().int().min(2),
    start_time: z.number().int().min(0).nullable(),
    boot_id: z.string().max(100),
    sandboxed: z.boolean(),
    expected_tokens: z.number().min(0).max(Number.MAX_SAFE_INTEGER),
  })
  .strict();
type ProcessMarker = z.infer<typeof processMarkerSchema>;

/** The error a refused start carries: the op turns it into Deno's `Interrupted`. */
export class StoppingError extends Error {
  readonly code = 'ESTOPPING';
  constructor(command: string) {
    super(`the kernel is stopping: ${command} was not started`);
  }
}

/** The session a persona's children belong to while its executor runs. */
export interface SessionScope {
  runId: string;
  dir: string;
  /** the executor plugin running it */
  executor?: string;
  /** what the policy expected the session to cost, charged if it is found interrupted after a crash */
  expectedTokens: number;
  /**
   * the state directory (no sandboxed code writes it): where the process marker goes
   * (processMarkerDir) and where every walk into the session folder starts
   */
  stateDir?: string;
  personaId?: string;
}

interface Live {
  handle: ChildHandle;
  owner: PersonaChildren;
  session: SessionScope | undefined;
}

export interface StopOutcome {
  /** children that got TERM */
  terminated: number;
  /** of those, the ones still running at the kill delay, which got KILL */
  killed: number;
}

export class ChildRegistry {
  #stopping = false;
  readonly #live = new Set<Live>();
  #stop: Promise<StopOutcome> | undefined;

  get stopping(): boolean {
    return this.#stopping;
  }

  get running(): number {
    return this.#live.size;
  }

  forPersona(personaId: string): PersonaChildren {
    return new PersonaChildren(this, personaId);
  }

  /** @internal */
  add(live: Live): void {
    this.#live.add(live);
  }

  /** @internal */
  remove(handle: ChildHandle): Live | undefined {
    for (const live of this.#live) {
      if (live.handle === handle) {
        this.#live.delete(live);
        return live;
      }
    }
    return undefined;
  }

  /** Refuses new children, TERMs every running one, KILLs those left after `killAfterMs`. */
  stop(killAfterMs: number): Promise<StopOutcome> {
    this.#stopping = true;
    this.#stop ??= (async () => {
      const targets = [...this.#live];
      for (const live of targets) {
        if (live.session) live.owner.stopped.set(live.session.runId, 'terminated');
        live.handle.terminate();
      }
      const deadline = Date.now() + killAfterMs;
      while (targets.some((t) => this.#live.has(t)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      const left = targets.filter((t) => this.#live.has(t));
      for (const live of left) {
        if (live.session) live.owner.stopped.set(live.session.runId, 'killed');
        live.handle.kill();
      }
      return { terminated: targets.length, killed: left.length };
    })();
    return this.#stop;
  }
}

/** One persona's view of the registry: the tracker its plugins' subprocesses report to. */
export class PersonaChildren implements ChildTracker {
  readonly personaId: string;
  /** sessions the kernel stopped, by run id: ended on TERM, or forced with KILL after the delay */
  readonly stopped = new Map<string, 'terminated' | 'killed'>();
  /** the sandbox records of the current session's children, in order */
  records: SandboxRecord[] = [];
  #registry: ChildRegistry;
  #session: SessionScope | undefined;

  constructor(registry: ChildRegistry, personaId: string) {
    this.#registry = registry;
    this.personaId = personaId;
  }

  get registry(): ChildRegistry {
    return this.#registry;
  }

  /** Attributes the children started until `endSession` to this session. */
  beginSession(scope: SessionScope): void {
    this.#session = scope;
    this.records = [];
  }

  endSession(): SandboxRecord[] {
    const records = this.records;
    const session = this.#session;
    if (session?.stateDir && records.length > 0) {
      try {
        // The session's command could write this folder: never through a link it left (no-follow.ts).
        writeFileBeneath(path.join(session.dir, SANDBOX_RECORD), `${JSON.stringify({ format: 'runtimectl.os-sandbox/1', children: records }, null, 2)}\n`, { anchor: session.stateDir });
      } catch {
        // the session folder is gone or a link stands on its path; the cycle event still carries the summary
      }
    }
    this.#session = undefined;
    this.records = [];
    return records;
  }

  admit(command: string): void {
    if (this.#registry.stopping) throw new StoppingError(command);
  }

  started(handle: ChildHandle): void {
    const session = this.#session;
    this.#registry.add({ handle, owner: this, session });
    const file = markerFile(session);
    if (!session || !file) return;
    const marker: ProcessMarker = {
      format: PROCESS_MARKER_FORMAT,
      run_id: session.runId,
      ...(session.executor ? { executor: session.executor } : {}),
      command: handle.command.slice(0, 4096),
      pid: handle.pid,
      process_group: handle.pid,
      start_time: processStartTime(handle.pid) ?? null,
      boot_id: bootId(),
      sandboxed: handle.sandboxed,
      expected_tokens: Math.max(0, session.expectedTokens),
    };
    try {
      writeFileBeneath(file, `${JSON.stringify(marker, null, 2)}\n`, { anchor: session.stateDir!, mkdir: true, durable: true });
    } catch {
      // without the marker a crash loses only the "interrupted" record, not the session's files
    }
  }

  ended(handle: ChildHandle, record?: SandboxRecord): void {
    const live = this.#registry.remove(handle);
    if (record) this.records.push(record);
    const file = markerFile(live?.session);
    if (file) {
      try {
        removeBeneath(file, { anchor: live!.session!.stateDir! });
      } catch {
        // a marker left behind is found at the next start, and matches no process
      }
    }
  }
}

/** The marker file of a session, when the session says where the state directory is. */
function markerFile(session: SessionScope | undefined): string | undefined {
  if (!session?.stateDir || !session.personaId || !RUN_ID.test(session.runId)) return undefined;
  return path.join(processMarkerDir(session.stateDir, session.personaId), `${session.runId}.json`);
}

export interface LeftSession {
  run_id: string;
  session_dir: string;
  executor: string | null;
  command: string;
  /** what was found: still running under the recorded identity, already gone, or a marker that does not parse (nothing was signalled) */
  found: 'running' | 'gone' | 'invalid';
  /** how it was ended, when it was running */
  ended: 'terminated' | 'killed' | null;
  sandboxed: boolean;
  expected_tokens: number;
  /** for an invalid marker: what is wrong with it */
  problem?: string;
}

/**
 * The recorded process, or another of its process group (a child it left behind), still runs
 * in this boot. A start time that is missing, or that differs, never matches: the pid names
 * another process now. A sandboxed session's processes died with their sandbox's init.
 */
function alive(marker: ProcessMarker): boolean {
  const { pid, start_time: startTime, boot_id: boot } = marker;
  if (startTime === null || boot !== bootId() || !Number.isInteger(pid) || pid <= 1) return false;
  const now = processStartTime(pid);
  // the pid names another process now
  if (now !== undefined && now !== startTime) return false;
  if (now !== undefined && !processEnded(pid)) return true;
  // The leader is gone (or a zombie init has not reaped yet: the kernel that was its parent
  // died): its group may live on (a group id is not handed out again while any member of the
  // group is alive), unless the OS sandbox ended every process with it.
  return !marker.sandboxed && processGroupAlive(pid);
}

/**
 * Sessions a previous kernel left running (their process marker is still there): each is ended
 * (TERM to its process group, KILL after `killAfterMs`) and its marker removed. Returns what
 * was found, for the persona's log. Markers are read from processMarkerDir only, through
 * no-follow.ts, each parsed with its schema; one that does not parse signals nothing.
 */
export async function recoverLeftSessions(stateDir: string, personaId: string, sessionsDir: string, killAfterMs = 5000): Promise<LeftSession[]> {
  const dir = processMarkerDir(stateDir, personaId);
  let entries: string[];
  try {
    entries = readdirSync(dir).filter((name) => name.endsWith('.json'));
  } catch {
    return [];
  }
  const out: LeftSession[] = [];
  for (const name of entries.sort()) {
    const file = path.join(dir, name);
    const named = name.slice(0, -'.json'.length);
    let marker: ProcessMarker;
    try {
      const bytes = readFileBeneath(file, { anchor: stateDir, maxBytes: 65_536, shown: `process marker ${name}` });
      if (bytes === undefined) continue;
      const parsed = processMarkerSchema.safeParse(JSON.parse(bytes.toString('utf8')));
      if (!parsed.success) throw new Error(`process marker ${name} does not match its schema (${parsed.error.issues[0]?.path.join('.') || 'root'}: ${parsed.error.issues[0]?.message})`);
      if (parsed.data.run_id !== named) throw new Error(`process marker ${name} names run ${parsed.data.run_id}, not ${named}`);
      marker = parsed.data;
    } catch (error) {
      removeQuietly(file, stateDir);
      out.push({ run_id: RUN_ID.test(named) ? named : '?', session_dir: RUN_ID.test(named) ? path.join(sessionsDir, named) : sessionsDir, executor: null, command: '', found: 'invalid', ended: null, sandboxed: false, expected_tokens: 0, problem: `${errorLine(error)}; nothing was signalled` });
      continue;
    }
    const pid = marker.pid;
    let found: LeftSession['found'] = 'gone';
    let ended: LeftSession['ended'] = null;
    if (alive(marker)) {
      found = 'running';
      signal(-pid, 'SIGTERM');
      signal(pid, 'SIGTERM');
      const deadline = Date.now() + killAfterMs;
      while (alive(marker) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      ended = 'terminated';
      if (alive(marker)) {
        signal(-pid, 'SIGKILL');
        signal(pid, 'SIGKILL');
        ended = 'killed';
      }
    }
    removeQuietly(file, stateDir);
    out.push({
      run_id: marker.run_id,
      session_dir: path.join(sessionsDir, marker.run_id),
      executor: marker.executor ?? null,
      command: marker.command,
      found,
      ended,
      sandboxed: marker.sandboxed,
      expected_tokens: marker.expected_tokens,
    });
  }
  return out;
}

function removeQuietly(file: string, anchor: string): void {
  try {
    removeBeneath(file, { anchor });
  } catch {
    // reported by the next start again; it matches no process
  }
}
