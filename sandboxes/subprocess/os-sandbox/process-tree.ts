/**
 * Ending a whole sandbox: every process in its pid namespace, including one that left the
 * process group with setsid(). TERM goes to each of them but the namespace's init (bwrap's,
 * which would ignore it and, dying first, would cut the others' shutdown short); KILL goes to
 * the init, and the kernel then kills everything else in the namespace with it.
 */
import { readdirSync, readlinkSync, readFileSync } from 'node:fs';

/** The pid namespace a host process is in (`pid:[4026532182]` → 4026532182), or undefined. */
export function pidNamespace(pid: number): number | undefined {
  try {
    const m = /^pid:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/ns/pid`));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** Host pids of the processes in pid namespace `ns`. */
export function pidsInNamespace(ns: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pidNamespace(pid) === ns) out.push(pid);
  }
  return out;
}

export function signal(pid: number, sig: NodeJS.Signals): boolean {
  try {
    process.kill(pid, sig);
    return true;
  } catch {
    return false;
  }
}

/** TERM to every process of the namespace except its init; returns how many were signalled. */
export function terminateNamespace(ns: number, initPid: number): number {
  let n = 0;
  for (const pid of pidsInNamespace(ns)) if (pid !== initPid && signal(pid, 'SIGTERM')) n++;
  return n;
}

/** The start time of a process in clock ticks since boot (field 22 of /proc/PID/stat): with the pid, it names one process. */
export function processStartTime(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const value = Number(fields[19]);
    return Number.isFinite(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether `pid` has ended and only waits to be reaped (state `Z`, a zombie, or `X`): it runs
 * nothing, though /proc still shows its start time. A process whose parent died is reaped by
 * init, and an init that reaps late (a container's) leaves it there for a while.
 */
export function processEnded(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
    return state === 'Z' || state === 'X';
  } catch {
    return true;
  }
}

/** This boot's id: a pid and start time from another boot name nothing. */
export function bootId(): string {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return 'unknown';
  }
}

/** Whether any process is in process group `pgid` (field 5 of /proc/PID/stat). */
export function processGroupAlive(pgid: number): boolean {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === pgid && fields[0] !== 'Z') return true;
    } catch {
      // gone meanwhile
    }
  }
  return false;
}

function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}

/**
 * Host pids of the command a sandbox runs: the children of its first program (init.sh, the
 * child of the namespace's init), leaving out the network bridge (`helper` in its command
 * line). Deno's `child.kill(signal)` reaches this process alone, as it would unsandboxed.
 */
export function commandPids(initPid: number, helper: string): number[] {
  const ns = pidNamespace(initPid);
  if (ns === undefined) return [];
  const pids = pidsInNamespace(ns);
  const first = new Set(pids.filter((pid) => parentOf(pid) === initPid));
  return pids.filter((pid) => first.has(parentOf(pid) ?? -1) && !commandLine(pid).includes(helper));
}
