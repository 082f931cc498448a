/**
 * A persona with a long history, for the history bench case: a few real cycles of the real
 * loop (jerome's profile, executor none, a pinned clock), then as many idle cycle events as
 * asked appended through the real appender (the persona's persistence backend, redaction,
 * canonical JSON, the hash chain, group commit) at one a minute of simulated time ending now,
 * sealed by the real sealer when a UTC day is over (LoopHistory: segments, index, rollups,
 * a checkpoint at each seal) and closed with a shutdown checkpoint, as the loop does. Each
 * appended payload is the last real cycle's, with its cycle number, phase and trace hash
 * advanced, so the bytes are what an idle persona writes.
 *
 * Building a million events takes a while; the built persona is kept under bench/out/ and
 * reused while BUILD_FORMAT and the event count match.
 */
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { openBackend } from '../../features/persistence/open.ts';
import { LoopHistory } from '../../features/history/loop-history.ts';
import { readHistoryConfig } from '../../features/history/policy.ts';
import { readPersonaFile } from '../../features/profiles/load.ts';
import { runPersonas } from '../../features/science-loop/preset.ts';
import { PROJECT_ROOT } from '../../kernel/version.ts';

/** Bump when the stored format changes: a cached persona of another format is rebuilt. */
export const BUILD_FORMAT = 'history-bench/4';
export const PERSONA_ID = 'jerome';
export const MINUTE = 60_000;

export interface BuiltPersona {
  stateDir: string;
  profile: string;
  events: number;
  cycles: number;
  /** how long building took (0 when reused) */
  buildSeconds: number;
  reused: boolean;
}

/** The environment a bench run of the persona gets: executor none, as in the measurement. */
export function benchEnv(home: string): Record<string, string> {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, SCIDEX_AGENT_CONTINUOUS_EXECUTOR: 'none' };
}

export function profileFile(): string {
  return path.join(PROJECT_ROOT, 'policies', 'personas', 'jerome.yaml');
}

/** A fresh persona: the same profile, a few real cycles, in its own state directory. */
export async function freshPersona(stateDir: string, cacheDir: string): Promise<void> {
  const persona = readPersonaFile(profileFile(), PROJECT_ROOT);
  await runPersonas([persona], { stateDir, env: benchEnv(path.dirname(stateDir)), cacheDir, cycles: 3, everySeconds: 60, spendTokens: false });
}

export async function historyPersona(options: { outDir: string; events: number; cacheDir: string; log: (line: string) => void }): Promise<BuiltPersona> {
  const root = path.join(options.outDir, `history-${options.events}`);
  const stateDir = path.join(root, 'state');
  const marker = path.join(root, 'built.json');
  if (existsSync(marker)) {
    const built = JSON.parse(readFileSync(marker, 'utf8')) as BuiltPersona & { format: string };
    if (built.format === BUILD_FORMAT) return { ...built, stateDir, buildSeconds: 0, reused: true };
  }
  rmSync(root, { recursive: true, force: true });
  mkdirSync(stateDir, { recursive: true });
  const started = performance.now();
  const endMs = Date.now();
  const startMs = endMs - options.events * MINUTE;
  let now = startMs;
  const persona = readPersonaFile(profileFile(), PROJECT_ROOT);
  // A few real cycles first: the real loop writes the brain, the ledger and the first events.
  await runPersonas([persona], { stateDir, env: benchEnv(root), cacheDir: options.cacheDir, cycles: 3, everySeconds: 60, spendTokens: false, clock: () => now, sleep: async (ms) => void (now += ms) });
  const personaDir = path.join(stateDir, PERSONA_ID);
  const backend = await openBackend(personaDir, undefined, { personaId: PERSONA_ID, now: () => new Date(now) });
  const history = await LoopHistory.open(backend, { persona: PERSONA_ID, config: readHistoryConfig(personaDir), nowMs: now });
  const template = [...backend.events.readOpen()].filter((e) => e.type === 'continuous_loop_cycle').at(-1)!.payload;
  const phases = ['science_patrol', 'science_compute_patrol', 'governance_patrol'];
  let cycle = history.fold.cycles;
  let appended = backend.events.openSegment().firstSeq + backend.events.openSegment().records - 1;
  let pending: Promise<unknown>[] = [];
  const target = options.events;
  let lastLog = performance.now();
  while (appended < target) {
    now += MINUTE;
    if (history.sealDue(now)) {
      await Promise.all(pending);
      pending = [];
      await history.seal(now, {});
      appended += 1;
    }
    cycle += 1;
    const payload = structuredClone(template);
    payload.cycle = cycle;
    payload.phase = phases[(cycle - 1) % phases.length];
    (payload.trace as Record<string, unknown>).hash = createHash('sha256').update(`trace ${cycle}`).digest('hex');
    pending.push(backend.events.append('continuous_loop_cycle', payload));
    appended += 1;
    if (pending.length >= 2048) {
      await Promise.all(pending);
      pending = [];
    }
    if (performance.now() - lastLog > 15_000) {
      options.log(`    built ${appended.toLocaleString('en-US')} of ${target.toLocaleString('en-US')} events`);
      lastLog = performance.now();
    }
  }
  await Promise.all(pending);
  history.writeCheckpoint('shutdown', now, {});
  await backend.close();
  const built: BuiltPersona & { format: string } = { format: BUILD_FORMAT, stateDir, profile: profileFile(), events: appended, cycles: cycle, buildSeconds: (performance.now() - started) / 1000, reused: false };
  writeFileSync(marker, `${JSON.stringify(built, null, 2)}\n`);
  // A pristine copy: every bench run starts from the same history, whatever earlier runs appended.
  cpSync(stateDir, path.join(root, 'pristine'), { recursive: true });
  return { ...built, stateDir };
}

/** Puts the built persona back as it was built (the measured `run` appends to it). */
export function resetHistoryPersona(built: BuiltPersona): void {
  const root = path.dirname(built.stateDir);
  rmSync(built.stateDir, { recursive: true, force: true });
  cpSync(path.join(root, 'pristine'), built.stateDir, { recursive: true });
}
