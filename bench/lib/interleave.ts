/**
 * Runs the variants of one case interleaved: every round runs each variant once, starting
 * from a different variant each round, so drift of the machine (frequency, other load, GC
 * pressure) falls on all of them alike. Warm-up rounds run the same way and are discarded.
 */
export interface Variant {
  name: string;
  /** One timed unit of work; a returned promise is awaited inside the timing. */
  run(): unknown;
  /** Run only in every k-th round (an expensive alternative such as one process per call). */
  every?: number;
  /** Untimed work after each run (disposing what the run created). */
  after?(): unknown;
}

export interface InterleaveOptions {
  warmup: number;
  rounds: number;
}

/** Milliseconds per run, per variant name. */
export async function interleave(variants: readonly Variant[], options: InterleaveOptions): Promise<Map<string, number[]>> {
  const samples = new Map<string, number[]>(variants.map((v) => [v.name, []]));
  const total = options.warmup + options.rounds;
  for (let round = 0; round < total; round++) {
    for (let k = 0; k < variants.length; k++) {
      const variant = variants[(round + k) % variants.length]!;
      if (variant.every && round % variant.every !== 0) continue;
      const start = performance.now();
      const result = variant.run();
      if (result instanceof Promise) await result;
      const elapsed = performance.now() - start;
      if (variant.after) {
        const cleanup = variant.after();
        if (cleanup instanceof Promise) await cleanup;
      }
      if (round >= options.warmup) samples.get(variant.name)!.push(elapsed);
    }
  }
  return samples;
}
