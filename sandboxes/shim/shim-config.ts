/** The configuration the runtime installed the shim with (args, tier, mode), for parts. */
export interface ShimConfig {
  args: string[];
  transferBytes: number;
  /** `reference`: hostSync is an ivm Reference called with applySyncPromise (process tier). */
  syncMode: 'callback' | 'reference';
  build: { os: string; arch: string };
  /** `test`: the run is `sandbox test`, so Deno.test registers tests */
  mode?: 'run' | 'test';
  /** `script`: `sandbox run`/`sandbox test` of a script, whose globals are Deno's alone (no `Runtimectl`) */
  surface?: 'plugin' | 'script';
}

let config: ShimConfig | undefined;

export function setShimConfig(value: ShimConfig): void {
  config = value;
}

export function shimConfig(): ShimConfig {
  if (!config) throw new Error('the shim is not installed');
  return config;
}
