/**
 * Many personas for the persona benchmarks: N profiles written programmatically (ids p0000,
 * p0001, …), each shaped like the shipped canonical profile policies/personas/jerome.yaml
 * (agent-* runtime, shared skills, the voi-tiers budget policy with a daily budget, three
 * phases, the same allow list and bindings), only the executor chosen by the bench and the
 * periodic slot set to its maximum (one day) so that cycles without a packet are truly idle.
 * All open in one LoopKernel with its own state directory and a fake clock the bench advances
 * by the profile's cadence after every round, so each cycle is a real, later cycle.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PersonaRuntime, type CycleReport, type LoopKernel } from '../../features/persona/persona-runtime.ts';
import { openLoopKernel } from '../../features/science-loop/preset.ts';
import { readPersonaFile } from '../../features/profiles/load.ts';
import type { LoadedPersona } from '../../kernel/personas/profile-schema.ts';

export type BenchExecutor = 'none' | 'orchestra';

export const CYCLE_SECONDS = 300;
/** Plugin isolates a bench persona with executor `none` runs: the executor and the budget policy. */
export const PLUGINS_PER_PERSONA = 2;
const OPEN_BATCH = 50;
const T0 = Date.parse('2026-03-01T08:00:00.000Z');

export function personaId(i: number): string {
  return `p${String(i).padStart(4, '0')}`;
}

function profileText(id: string, executor: BenchExecutor): string {
  return `id: ${id}
description: Bench persona ${id}, shaped like jerome.yaml.
runtime: agent-${id}
skills: [shared/*]
executor:
  plugin: executor.${executor}
budget:
  policy: budget.voi-tiers
  daily_tokens: 400000
  max_tokens_per_session: 60000
  min_tokens_remaining_for_executor: 20000
  max_autonomous_sessions_per_day: 6
  cpu_seconds_per_cycle: 2
  wall_seconds_per_cycle: 900
wallet:
  monthly_token_budget: 9000000
phases: [science_patrol, science_compute_patrol, governance_patrol]
cadence:
  cycle_seconds: ${CYCLE_SECONDS}
  periodic_seconds: 86400
allow:
  read: ["\${state}"]
  write: ["\${state}"]
  env: [ORCHESTRA_DB, ORCHESTRA_DB_PATH]
bindings: [ledger, events, memory]
`;
}

/** Writes `count` profiles into `dir` and loads them (validated like any profile). */
export function writeProfiles(dir: string, count: number, executor: BenchExecutor): LoadedPersona[] {
  mkdirSync(dir, { recursive: true });
  const out: LoadedPersona[] = [];
  for (let i = 0; i < count; i++) {
    const id = personaId(i);
    const file = path.join(dir, `${id}.yaml`);
    writeFileSync(file, profileText(id, executor));
    out.push(readPersonaFile(file, dir));
  }
  return out;
}

/** A LoopKernel over root/state with a fake clock the bench advances. */
export interface BenchKernel {
  kernel: LoopKernel;
  root: string;
  stateDir: string;
  /** advances the fake clock by one cadence step */
  tick(): void;
}

export interface BenchFleet extends BenchKernel {
  runtimes: PersonaRuntime[];
  /** one work packet with new bytes in every inbox (a new packet for the probe, by digest) */
  packets(round: number): void;
  /** one cycle of every persona, side by side (as run-personas.ts runs them) */
  cycle(): Promise<CycleReport[]>;
  close(): Promise<void>;
}

const PACKET = (id: string, round: number) => `# Question ${round} for ${id}: which assay best separates hypothesis A from hypothesis B?

A bench work packet. Two explanations fit the pilot data equally well; say which single
measurement would most change our belief, what it costs, and when to stop.
`;

export async function openBenchKernel(root: string, cacheDir: string): Promise<BenchKernel> {
  let now = T0;
  const stateDir = path.join(root, 'state');
  const kernel = await openLoopKernel({
    stateDir,
    // Only PATH and HOME: no SCIDEX_AGENT_* override of the host may change the profiles.
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: root },
    clock: () => now,
    cacheDir,
    spendTokens: false,
  });
  return { kernel, root, stateDir, tick: () => void (now += CYCLE_SECONDS * 1000) };
}

/** `count` personas (profiles in root/profiles) opened in one bench kernel. */
export async function openFleet(bench: BenchKernel, count: number, executor: BenchExecutor): Promise<BenchFleet> {
  const personas = writeProfiles(path.join(bench.root, 'profiles'), count, executor);
  const runtimes: PersonaRuntime[] = [];
  try {
    // Opened OPEN_BATCH at a time (run-personas.ts opens one by one): each open waits for its
    // persona_start event's fdatasync, and overlapping them only shortens the untimed set-up.
    for (let i = 0; i < personas.length; i += OPEN_BATCH) {
      const batch = await Promise.allSettled(personas.slice(i, i + OPEN_BATCH).map((persona) => PersonaRuntime.open(bench.kernel, persona)));
      for (const result of batch) if (result.status === 'fulfilled') runtimes.push(result.value);
      const failed = batch.find((result) => result.status === 'rejected');
      if (failed) throw failed.reason;
    }
  } catch (error) {
    await Promise.all(runtimes.map((rt) => rt.close()));
    throw error;
  }
  return {
    ...bench,
    runtimes,
    packets: (round) => {
      for (const rt of runtimes) {
        mkdirSync(rt.paths.inboxDir, { recursive: true });
        writeFileSync(path.join(rt.paths.inboxDir, 'packet.md'), PACKET(rt.profile.id, round));
      }
    },
    cycle: () => Promise.all(runtimes.map((rt) => rt.cycle())),
    close: async () => {
      await Promise.all(runtimes.map((rt) => rt.close()));
    },
  };
}
