/** The soak's parameters (`npm run bench -- --only=soak --minutes=60 ...`). */
export interface SoakOptions {
  /** how long the soak runs (issue 24: at least 60) */
  minutes: number;
  personas: number;
  /** kill -9 the kernel and start it again every this many minutes (0: never) */
  killEvery: number;
  /** the hostile phase selector faults on every this-many-th cycle of each persona */
  faultEvery: number;
  /** seconds between a persona's cycles (--every) */
  cycleSeconds: number;
  /** seconds between two work packets given to a persona: each is worth a session of the fake agent */
  sessionEvery: number;
  /** seconds between two samples of RSS and open descriptors */
  sampleEvery: number;
  /** minutes of each kernel's life left out of the slopes (start-up, caches filling) */
  warmupMinutes: number;
}

export const SOAK_DEFAULTS: SoakOptions = { minutes: 60, personas: 100, killEvery: 15, faultEvery: 25, cycleSeconds: 5, sessionEvery: 600, sampleEvery: 60, warmupMinutes: 5 };

/** The bench's flags for the soak (strings as parseArgs gives them), checked. */
export function soakOptions(flags: Partial<Record<keyof SoakOptions, string | undefined>>): SoakOptions {
  const out: SoakOptions = { ...SOAK_DEFAULTS };
  for (const key of Object.keys(SOAK_DEFAULTS) as (keyof SoakOptions)[]) {
    const value = flags[key];
    if (value === undefined) continue;
    const n = Number(value);
    const zeroOk = key === 'killEvery' || key === 'warmupMinutes';
    if (!Number.isFinite(n) || n < 0 || (!zeroOk && n === 0)) throw new Error(`soak: --${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} ${value}: a number ${zeroOk ? 'of 0 or more' : 'above 0'}`);
    out[key] = n;
  }
  if (!Number.isInteger(out.personas)) throw new Error(`soak: --personas ${out.personas}: a whole number`);
  if (!Number.isInteger(out.faultEvery) || out.faultEvery < 2) throw new Error(`soak: --fault-every ${out.faultEvery}: a whole number of 2 or more`);
  return out;
}
