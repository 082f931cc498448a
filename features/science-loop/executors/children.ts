/**
 * Every subprocess the kernel's plugins have running, in one registry per kernel, so that a
 * stop reaches all of them and none is lost across a crash:
 *
 * - `stop()` (SIGTERM, or a second SIGINT): no new child may start; every running one gets
 *   TERM at once and KILL after the operator's kill delay. The sessions they belonged to are
 *   remembered as stopped, so the loop records them `interrupted` (with the usage they
 *   printed so far) and leaves their work pending.
 * - While an executor session's child runs, `process.json` in its session folder names it
 *   (pid, process start time, boot id, process group). A kernel that dies without removing it
 *   (kill -9, a power cut) leaves it behind; the next start finds it (`recoverLeftSessions`),
 *   ends whatever still runs under that identity and records the session as interrupted
 *   before the persona does anything new. With the OS sandbox the child already died with
 *   the kernel (die-with-parent); the record says so.
 */
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ChildHandle, ChildTracker, SandboxRecord } from '../../../sandboxes/subprocess/run-command.ts';
import { bootId, processGroupAlive, processStartTime, signal } from '../../../sandboxes/subprocess/os-sandbox/process-tree.ts';

export const PROCESS_MARKER = 'process.json';
export const SANDBOX_RECORD = 'sandbox.json';

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
  /** what the policy expected the session to cost, charged if it is found interrupted after a crash */
  expectedTokens: number;
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
    if (this.#session && records.length > 0) {
      try {
        writeFileSync(path.join(this.#session.dir, SANDBOX_RECORD), `${JSON.stringify({ format: 'runtimectl.os-sandbox/1', children: records }, null, 2)}\n`);
      } catch {
        // the session folder is gone; the cycle event still carries the summary
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
    if (!session) return;
    const marker = {
      format: 'runtimectl.session-process/1',
      run_id: session.runId,
      command: handle.command,
      pid: handle.pid,
      process_group: handle.pid,
      start_time: processStartTime(handle.pid) ?? null,
      boot_id: bootId(),
      sandboxed: handle.sandboxed,
      expected_tokens: session.expectedTokens,
    };
    try {
      writeFileSync(path.join(session.dir, PROCESS_MARKER), `${JSON.stringify(marker, null, 2)}\n`);
    } catch {
      // without the marker a crash loses only the "interrupted" record, not the session's files
    }
  }

  ended(handle: ChildHandle, record?: SandboxRecord): void {
    const live = this.#registry.remove(handle);
    if (record) this.records.push(record);
    if (live?.session) rmSync(path.join(live.session.dir, PROCESS_MARKER), { force: true });
  }
}

export interface LeftSession {
  run_id: string;
  session_dir: string;
  command: string;
  /** what was found: still running under the recorded identity, or already gone */
  found: 'running' | 'gone';
  /** how it was ended, when it was running */
  ended: 'terminated' | 'killed' | null;
  sandboxed: boolean;
  expected_tokens: number;
}

/** The recorded process, or another of its process group (a child it left behind), still runs in this boot. */
function alive(pid: number, startTime: number | null, boot: string): boolean {
  if (boot !== bootId() || !Number.isInteger(pid) || pid <= 1) return false;
  const now = processStartTime(pid);
  if (now !== undefined && (startTime === null || now === startTime)) return true;
  // The leader is gone (or its pid reused by another program): its group may live on, and a
  // group id is not handed out again while any member of the group is alive.
  return now === undefined && processGroupAlive(pid);
}

/**
 * Sessions a previous kernel left running (their `process.json` is still there): each is ended
 * (TERM to its process group, KILL after `killAfterMs`) and its marker removed. Returns what
 * was found, for the persona's log.
 */
export async function recoverLeftSessions(sessionsDir: string, killAfterMs = 5000): Promise<LeftSession[]> {
  let entries: string[];
  try {
    entries = readdirSync(sessionsDir);
  } catch {
    return [];
  }
  const out: LeftSession[] = [];
  for (const runId of entries.sort()) {
    const dir = path.join(sessionsDir, runId);
    const markerFile = path.join(dir, PROCESS_MARKER);
    let marker: Record<string, unknown>;
    try {
      marker = JSON.parse(readFileSync(markerFile, 'utf8').slice(0, 65_536)) as Record<string, unknown>;
    } catch {
      continue;
    }
    const pid = Number(marker.pid);
    const start = typeof marker.start_time === 'number' ? marker.start_time : null;
    const boot = String(marker.boot_id ?? '');
    let found: LeftSession['found'] = 'gone';
    let ended: LeftSession['ended'] = null;
    if (alive(pid, start, boot)) {
      found = 'running';
      signal(-pid, 'SIGTERM');
      signal(pid, 'SIGTERM');
      const deadline = Date.now() + killAfterMs;
      while (alive(pid, start, boot) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      ended = 'terminated';
      if (alive(pid, start, boot)) {
        signal(-pid, 'SIGKILL');
        signal(pid, 'SIGKILL');
        ended = 'killed';
      }
    }
    rmSync(markerFile, { force: true });
    out.push({
      run_id: runId,
      session_dir: dir,
      command: String(marker.command ?? ''),
      found,
      ended,
      sandboxed: marker.sandboxed === true,
      expected_tokens: typeof marker.expected_tokens === 'number' && marker.expected_tokens > 0 ? marker.expected_tokens : 0,
    });
  }
  return out;
}
