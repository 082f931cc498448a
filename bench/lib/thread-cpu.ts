/**
 * How this process's threads spent a stretch of time, from Linux's scheduler statistics
 * (/proc/self/task/<tid>/schedstat: nanoseconds on a CPU, nanoseconds runnable but waiting
 * for one). A rate that does not grow with threads is explained by these: threads that wait
 * for a CPU as long as they run on one were held back by the host, not by their own work.
 * Elsewhere than Linux the figures are absent (undefined).
 */
import { readdirSync, readFileSync } from 'node:fs';

export type ThreadTimes = Map<string, { runMs: number; waitMs: number }>;

export function threadTimes(): ThreadTimes | undefined {
  let tids: string[];
  try {
    tids = readdirSync('/proc/self/task');
  } catch {
    return undefined;
  }
  const out: ThreadTimes = new Map();
  for (const tid of tids) {
    try {
      const [run, wait] = readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8').trim().split(/\s+/).map(Number);
      out.set(tid, { runMs: run! / 1e6, waitMs: wait! / 1e6 });
    } catch {
      // a thread that ended between the listing and the read
    }
  }
  return out;
}

/** What the threads busy in the stretch did, in CPUs: on one, and waiting for one (each thread busy for ≥ 10% of it). */
export function busyThreads(before: ThreadTimes, after: ThreadTimes, ms: number): { onCpu: number; waiting: number; threads: number } {
  let onCpu = 0;
  let waiting = 0;
  let threads = 0;
  for (const [tid, b] of after) {
    const a = before.get(tid) ?? { runMs: 0, waitMs: 0 };
    const run = (b.runMs - a.runMs) / ms;
    const wait = (b.waitMs - a.waitMs) / ms;
    onCpu += run;
    waiting += wait;
    if (run + wait >= 0.1) threads += 1;
  }
  return { onCpu, waiting, threads };
}

/** Whether the kernel shares CPU time between sessions rather than threads (Linux autogroup). */
export function autogroupEnabled(): boolean | undefined {
  try {
    return readFileSync('/proc/sys/kernel/sched_autogroup_enabled', 'utf8').trim() === '1';
  } catch {
    return undefined;
  }
}
