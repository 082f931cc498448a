/**
 * undici, loaded on the first fetch: most commands never make one, and it is slow to load.
 * `net.fetch` awaits `loadUndici()` before anything else of undici is touched, so the run
 * scope's connection pool (built on demand, synchronously) finds it loaded.
 */
type Undici = typeof import('undici');

let loading: Promise<Undici> | undefined;
let loaded: Undici | undefined;

export function loadUndici(): Promise<Undici> {
  loading ??= import('undici').then((mod) => (loaded = mod));
  return loading;
}

/** undici after loadUndici() resolved; a call before is a kernel bug. */
export function undiciLoaded(): Undici {
  if (!loaded) throw new Error('undici is used before loadUndici() resolved');
  return loaded;
}
