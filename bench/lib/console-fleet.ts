/**
 * A fleet for the console bench (issue 17): N personas, each with a year of history written
 * by the real appender (the persona's backend: redaction, canonical JSON, the hash chain,
 * group commit) and sealed by the real sealer (LoopHistory: a daily segment, its index and
 * rollup lines, a checkpoint at each seal), ending now, after one real cycle of the real loop
 * each (the brain, the ledger, the first events).
 *
 * A year at one cycle a minute is 525,600 events a persona, 52.6 million for a hundred:
 * days to build here. What the console reads of a persona does not depend on how many
 * events an older sealed segment holds (its index line and rollup line, 24 hourly buckets,
 * are what is read), only on the open segment and the one sealed segment the 24-hour
 * window straddles, which are read event by event. So each persona has 365 daily sealed
 * segments at one cycle an hour, and its last 48 hours (yesterday's sealed segment and
 * today's open one) at one cycle a minute: exactly what a persona cycling every minute
 * gives the read path to read. Every 30th cycle executed and spent tokens (1,500), so the
 * charts have bars.
 *
 * Kept under bench/out/ and reused while BUILD_FORMAT, N and the build day match (the
 * history must end near now for the 24-hour figures to mean anything).
 */
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { openBackend } from '../../features/persistence/open.ts';
import { LoopHistory } from '../../features/history/loop-history.ts';
import { readHistoryConfig } from '../../features/history/policy.ts';
import { readPersonaFile } from '../../features/profiles/load.ts';
import { runPersonas } from '../../features/science-loop/preset.ts';
import { PROJECT_ROOT } from '../../kernel/version.ts';
import { benchEnv } from './history-persona.ts';

export const BUILD_FORMAT = 'console-fleet/1';
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export interface BuiltFleet {
  stateDir: string;
  personas: string[];
  /** events in each persona's history (all the same) */
  eventsPerPersona: number;
  sealedSegmentsPerPersona: number;
  bytesOnDisk: number;
  buildSeconds: number;
  reused: boolean;
}

function profileFor(dir: string, id: string): string {
  const text = readFileSync(path.join(PROJECT_ROOT, 'policies', 'personas', 'jerome.yaml'), 'utf8').replace(/^id: jerome$/m, `id: ${id}`).replace(/^runtime: agent-jerome$/m, `runtime: agent-${id}`);
  const file = path.join(dir, `${id}.yaml`);
  writeFileSync(file, text);
  return file;
}

function du(dir: string): number {
  let total = 0;
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    const st = statSync(path.join(dir, name));
    if (st.isFile()) total += st.size;
  }
  return total;
}

export async function consoleFleet(options: { outDir: string; personas: number; cacheDir: string; log: (line: string) => void }): Promise<BuiltFleet> {
  const endMs = Date.now();
  const day = new Date(endMs).toISOString().slice(0, 10);
  const root = path.join(options.outDir, `console-fleet-${options.personas}`);
  const stateDir = path.join(root, 'state');
  const marker = path.join(root, 'built.json');
  if (existsSync(marker)) {
    const built = JSON.parse(readFileSync(marker, 'utf8')) as BuiltFleet & { format: string; day: string };
    if (built.format === BUILD_FORMAT && built.day === day) return { ...built, stateDir, buildSeconds: 0, reused: true };
  }
  rmSync(root, { recursive: true, force: true });
  const profiles = path.join(root, 'profiles');
  mkdirSync(profiles, { recursive: true });
  mkdirSync(stateDir, { recursive: true });
  const started = performance.now();
  const ids = Array.from({ length: options.personas }, (_, i) => `p${String(i).padStart(3, '0')}`);
  const startMs = endMs - 365 * DAY;
  let now = startMs;
  const loaded = ids.map((id) => readPersonaFile(profileFor(profiles, id), profiles));
  // One real cycle of the real loop for every persona (one kernel for all of them).
  await runPersonas(loaded, { stateDir, env: benchEnv(root), cacheDir: options.cacheDir, cycles: 1, everySeconds: 60, spendTokens: false, clock: () => now, sleep: async (ms) => void (now += ms) });
  const phases = ['science_patrol', 'science_compute_patrol', 'governance_patrol'];
  let events = 0;
  let sealed = 0;
  let done = 0;
  const buildOne = async (id: string) => {
    let t = startMs + MINUTE;
    const personaDir = path.join(stateDir, id);
    const backend = await openBackend(personaDir, undefined, { personaId: id, now: () => new Date(t) });
    const history = await LoopHistory.open(backend, { persona: id, config: readHistoryConfig(personaDir), nowMs: t });
    const template = [...backend.events.readOpen()].filter((e) => e.type === 'continuous_loop_cycle').at(-1)!.payload;
    let cycle = history.fold.cycles;
    let pending: Promise<unknown>[] = [];
    while (t < endMs - MINUTE) {
      // one an hour for the first 363 days, one a minute for the last 48 hours
      t += t < endMs - 2 * DAY ? HOUR : MINUTE;
      if (history.sealDue(t)) {
        await Promise.all(pending);
        pending = [];
        await history.seal(t, {});
      }
      cycle += 1;
      const payload = structuredClone(template) as Record<string, any>;
      payload.cycle = cycle;
      payload.phase = phases[(cycle - 1) % phases.length];
      payload.trace = { ...payload.trace, hash: createHash('sha256').update(`${id} trace ${cycle}`).digest('hex') };
      if (cycle % 30 === 0) {
        payload.outcome = 'executed';
        payload.defer_reason = null;
        payload.provider_usage = { input_tokens: 1200, cached_input_tokens: 800, output_tokens: 300, reasoning_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, total_tokens: 1500, source: 'codex-json' };
      }
      pending.push(backend.events.append('continuous_loop_cycle', payload));
      if (pending.length >= 2048) {
        await Promise.all(pending);
        pending = [];
      }
    }
    await Promise.all(pending);
    history.writeCheckpoint('shutdown', t, {});
    const open = backend.events.openSegment();
    events = open.firstSeq + open.records - 1;
    sealed = backend.events.history.list().segments.length;
    await backend.close();
    done += 1;
    if (done % 10 === 0 || done === ids.length) options.log(`    console fleet: ${done} of ${ids.length} personas built (${events.toLocaleString('en-US')} events, ${sealed} sealed segments each)`);
  };
  // Several at once: a seal waits on fsync far more than on the CPU.
  const queue = [...ids];
  await Promise.all(Array.from({ length: Math.min(8, ids.length) }, async () => {
    for (let id = queue.shift(); id !== undefined; id = queue.shift()) await buildOne(id);
  }));
  const built = { format: BUILD_FORMAT, day, stateDir, personas: ids, eventsPerPersona: events, sealedSegmentsPerPersona: sealed, bytesOnDisk: du(stateDir), buildSeconds: (performance.now() - started) / 1000, reused: false };
  writeFileSync(marker, `${JSON.stringify(built, null, 2)}\n`);
  cpSync(stateDir, path.join(root, 'pristine'), { recursive: true });
  return built;
}

/** Puts the fleet back as it was built (the latency measurement appends to it). */
export function resetConsoleFleet(built: BuiltFleet): void {
  const root = path.dirname(built.stateDir);
  rmSync(built.stateDir, { recursive: true, force: true });
  cpSync(path.join(root, 'pristine'), built.stateDir, { recursive: true });
}
