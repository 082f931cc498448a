/**
 * A CPU profile of this process's main thread over some untimed rounds (node:inspector's
 * sampling profiler, in process), reduced to what the notes need: the kernel functions that
 * took the most time, inclusive of what they call, each not mostly inside another listed one.
 * Wrappers that contain most of the work (the cycle itself) are left out, so the list names
 * the components: opening the ledger, saving brain.json, the trace, isolate rebuilds, …
 */
import { Session } from 'node:inspector/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PROJECT_ROOT } from '../../kernel/version.ts';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Where the project's own code is (the bench's files are not components). */
const OWN = /^(kernel|sandboxes|plugins)\//;

/** The loop's functions that span several components (every step of a cycle, or all of step 7). */
const WRAPPERS = new Set(['cycle (features/persona/persona-runtime.ts)', '#cycleSteps (features/persona/persona-runtime.ts)', 'act (features/science-loop/decide.ts)']);

export class CpuProfile {
  #session = new Session();

  async start(intervalUs = 200): Promise<void> {
    this.#session.connect();
    await this.#session.post('Profiler.enable');
    await this.#session.post('Profiler.setSamplingInterval', { interval: intervalUs });
    await this.#session.post('Profiler.start');
  }

  /**
   * Stops and returns the top `count` components as [label, total ms], largest first: kernel
   * functions by inclusive time, leaving out the loop's wrappers (WRAPPERS, and anything
   * over `wrapperShare` of all the kernel's time) and those spent mostly (80%) inside a
   * component already listed.
   */
  async stop(count = 6, wrapperShare = 0.7): Promise<[string, number][]> {
    const { profile } = (await this.#session.post('Profiler.stop')) as { profile: Profile };
    await this.#session.post('Profiler.disable');
    this.#session.disconnect();
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    const parent = new Map<number, number>();
    for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
    const label = (n: ProfileNode): string | undefined => {
      const url = n.callFrame.url;
      if (!url.startsWith('file://')) return undefined;
      const rel = path.relative(PROJECT_ROOT, fileURLToPath(url)).split(path.sep).join('/');
      if (!OWN.test(rel)) return undefined;
      return `${n.callFrame.functionName || "an anonymous function"} (${rel})`;
    };
    // Each sample's stack, as the set of own functions on it, with the sample's time.
    const stacks = new Map<number, Set<string>>();
    const stackOf = (id: number): Set<string> => {
      let set = stacks.get(id);
      if (set) return set;
      set = new Set();
      for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
        const l = label(byId.get(cur)!);
        if (l) set.add(l);
      }
      stacks.set(id, set);
      return set;
    };
    const samples: { stack: Set<string>; us: number }[] = [];
    let ownUs = 0;
    for (let i = 0; i < profile.samples.length; i++) {
      const stack = stackOf(profile.samples[i]!);
      const us = profile.timeDeltas[i] ?? 0;
      if (stack.size === 0) continue;
      samples.push({ stack, us });
      ownUs += us;
    }
    const inclusive = new Map<string, number>();
    for (const s of samples) for (const l of s.stack) inclusive.set(l, (inclusive.get(l) ?? 0) + s.us);
    const chosen: [string, number][] = [];
    for (const [l, us] of [...inclusive].sort((a, b) => b[1] - a[1])) {
      if (chosen.length >= count) break;
      if (WRAPPERS.has(l) || us > wrapperShare * ownUs) continue;
      const inside = chosen.some(([c]) => {
        let both = 0;
        for (const s of samples) if (s.stack.has(l) && s.stack.has(c)) both += s.us;
        return both > 0.8 * us;
      });
      if (!inside) chosen.push([l, us / 1000]);
    }
    return chosen;
  }
}
