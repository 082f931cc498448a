/**
 * What a soak sample reads from /proc: the kernel process's resident memory and open file
 * descriptors, and the same summed over the processes it started (sandbox hosts, sessions,
 * MCP servers) that are alive at that moment.
 */
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcessSample {
  rssKb: number;
  fds: number;
}

export interface TreeSample {
  kernel: ProcessSample;
  /** the kernel's descendants, summed */
  children: ProcessSample & { count: number };
}

function rssKb(pid: number): number {
  const line = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return line ? Number(line[1]) : 0;
}

function fdCount(pid: number): number {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return 0;
  }
}

export function sampleProcess(pid: number): ProcessSample {
  return { rssKb: rssKb(pid), fds: fdCount(pid) };
}

/** Every process below `pid`, found by parent links in /proc. */
function descendants(pid: number): number[] {
  const parent = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parent.set(Number(name), Number(fields[1]));
    } catch {
      // gone since the listing
    }
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const [child, ppid] of parent) if (ppid === p) {
      out.push(child);
      walk(child);
    }
  };
  walk(pid);
  return out;
}

export function sampleTree(pid: number): TreeSample {
  const kernel = sampleProcess(pid);
  const children = { rssKb: 0, fds: 0, count: 0 };
  for (const child of descendants(pid)) {
    try {
      const s = sampleProcess(child);
      children.rssKb += s.rssKb;
      children.fds += s.fds;
      children.count += 1;
    } catch {
      // ended while sampled
    }
  }
  return { kernel, children };
}
