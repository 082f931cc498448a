/**
 * A bound on the plugin isolates one kernel keeps alive across all its personas. Isolates
 * are session state (rebuilt from the code cache on next use, in ~10 ms), and most personas
 * of a large fleet sit between cycles, so holding two isolates for each of 1,000 personas
 * (3.6 MiB a persona, measured) is memory spent on nothing. After each call, the least
 * recently used isolates beyond the bound are disposed; an isolate in a call is never touched.
 * A plugin whose isolate was released starts fresh on its next call, which the trace records
 * (`fresh`), so replay still rebuilds its state correctly.
 */
import type { PluginInstance } from '../plugin-host/plugin-instance.ts';

/**
 * Three plugins a persona (executor, budget policy, phase selector) for 128 personas: a
 * 100-persona kernel keeps all its isolates (with 256 it rebuilt a third of them every cycle).
 */
export const DEFAULT_MAX_RESIDENT_ISOLATES = 384;

export class ResidentIsolates {
  readonly max: number;
  /** every instance that may hold an isolate, least recently used first; value: calls in flight */
  readonly #order = new Map<PluginInstance, number>();
  released = 0;

  constructor(max = DEFAULT_MAX_RESIDENT_ISOLATES) {
    this.max = Math.max(1, max);
  }

  async use<T>(instance: PluginInstance, call: () => Promise<T>): Promise<T> {
    const busy = this.#order.get(instance) ?? 0;
    this.#order.delete(instance);
    this.#order.set(instance, busy + 1);
    try {
      return await call();
    } finally {
      const left = (this.#order.get(instance) ?? 1) - 1;
      if (this.#order.has(instance)) this.#order.set(instance, left);
      this.#trim();
    }
  }

  /** An instance its persona dropped (disposed): no longer counted. */
  forget(instance: PluginInstance): void {
    this.#order.delete(instance);
  }

  get resident(): number {
    let n = 0;
    for (const instance of this.#order.keys()) if (instance.resident) n++;
    return n;
  }

  #trim(): void {
    // Runs after every plugin call: under the bound by count alone, there is nothing to look at.
    if (this.#order.size <= this.max) return;
    let excess = this.resident - this.max;
    for (const [instance, busy] of this.#order) {
      if (excess <= 0) break;
      if (busy > 0 || !instance.resident) continue;
      instance.dispose();
      this.#order.delete(instance);
      this.released++;
      excess--;
    }
  }
}
