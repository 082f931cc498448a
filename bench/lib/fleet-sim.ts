/**
 * Issue 18's fleet simulation: K kernel processes × P personas each (executor none), all on
 * one Postgres, each persona running a fixed number of cycles. What it measures and checks:
 *
 *   - total cycles per second of the fleet: every kernel's cycles over the fleet's wall time
 *     (first kernel spawned to last exited, start-up included) and over its steady part (the
 *     first cycle reported to the last);
 *   - no chain fork: every persona's chain verifies, read back by the kernel from Postgres,
 *     and holds exactly the cycles its kernel reported;
 *   - the lease: while the fleet runs, a second-writer kernel tries a sample of the personas
 *     (spread over every kernel); each attempt must be refused (RTC_ERR_PERSONA_LOCKED, naming
 *     the holder), and none of its appends may reach a chain.
 *
 * Each kernel is the real CLI (`runtimectl run --json`), a process of its own.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startPostgres } from '../../test/support/postgres.ts';
import { closeBridges } from '../../features/persistence/storage/postgres/pg-bridge.ts';
import { openShared } from '../../features/persistence/fleet.ts';
import { CYCLE_EVENT } from '../../kernel/loop/cycle-event.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIN = path.join(ROOT, 'bin', 'runtimectl.js');

export interface FleetOptions {
  kernels: number;
  personasPerKernel: number;
  cycles: number;
  /** personas per kernel the second writer tries */
  attemptsPerKernel: number;
  dir: string;
  log(line: string): void;
}

export interface FleetResult {
  kernels: number;
  personas: number;
  cyclesPerPersona: number;
  totalCycles: number;
  wallSeconds: number;
  steadySeconds: number;
  cyclesPerSecond: number;
  steadyCyclesPerSecond: number;
  verified: number;
  verifyFailures: string[];
  attempts: number;
  refusedAttempts: number;
  attemptFailures: string[];
  kernelFailures: string[];
}

/** An idle persona kept in Postgres: executor none, every other slot its default. */
function profileText(id: string): string {
  return `id: ${id}\nruntime: agent-${id}\npersistence: persistence.postgres\nexecutor: { plugin: executor.none }\n`;
}

interface KernelRun {
  code: number | null;
  cycles: Map<string, number>;
  refused: Map<string, string[]>;
  err: string;
  firstCycleAt?: number;
  lastCycleAt?: number;
}

function runKernel(files: string[], stateDir: string, cycles: number, env: NodeJS.ProcessEnv, onFirstCycle?: () => void): Promise<KernelRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--no-node-snapshot', BIN, 'run', '--json', '--persona', ...files, '--state-dir', stateDir, '--cycles', String(cycles), '--every', '0', '--no-spend'], { cwd: ROOT, env });
    const run: KernelRun = { code: null, cycles: new Map(), refused: new Map(), err: '' };
    let buffer = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        if (line.trim() === '') continue;
        const o = JSON.parse(line) as { type: string; persona_id?: string; personas?: { persona_id: string; refused: string[] | null; cycles: number }[] };
        if (o.type === 'cycle' && o.persona_id) {
          const now = Date.now();
          if (run.firstCycleAt === undefined) {
            run.firstCycleAt = now;
            onFirstCycle?.();
          }
          run.lastCycleAt = now;
          run.cycles.set(o.persona_id, (run.cycles.get(o.persona_id) ?? 0) + 1);
        } else if (o.type === 'run_end') {
          for (const p of o.personas ?? []) if (p.refused) run.refused.set(p.persona_id, p.refused);
        }
      }
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (run.err.length < 20_000) run.err += chunk.toString('utf8');
    });
    child.on('exit', (code) => {
      run.code = code;
      resolve(run);
    });
  });
}

export async function simulateFleet(options: FleetOptions): Promise<FleetResult> {
  const pg = await startPostgres();
  try {
    const stateDirs: string[] = [];
    const groups: { ids: string[]; files: string[] }[] = [];
    for (let k = 0; k < options.kernels; k++) {
      const dir = path.join(options.dir, `kernel-${k}`);
      const profiles = path.join(dir, 'profiles');
      mkdirSync(profiles, { recursive: true });
      stateDirs.push(path.join(dir, 'state'));
      const ids: string[] = [];
      const files: string[] = [];
      for (let i = 0; i < options.personasPerKernel; i++) {
        const id = `k${k}-p${String(i).padStart(4, '0')}`;
        const file = path.join(profiles, `${id}.yaml`);
        writeFileSync(file, profileText(id));
        ids.push(id);
        files.push(file);
      }
      groups.push({ ids, files });
    }
    const env = { ...process.env, RUNTIMECTL_POSTGRES_DSN: pg.dsn };
    // Every kernel's first cycle means all of its personas are open (they open before any cycle) and hold their leases.
    let started = 0;
    let allStarted!: () => void;
    const fleetRunning = new Promise<void>((resolve) => (allStarted = resolve));
    const t0 = Date.now();
    options.log(`  fleet: ${options.kernels} kernels × ${options.personasPerKernel} personas × ${options.cycles} cycles on one Postgres`);
    const runs = groups.map((g, k) => runKernel(g.files, stateDirs[k]!, options.cycles, env, () => {
      started += 1;
      options.log(`  fleet: kernel ${k} runs cycles (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
      if (started === options.kernels) allStarted();
    }));
    // The second writer: another kernel (its own state directory, as on another machine) tries a sample of every kernel's personas.
    const attempts = groups.flatMap((g) => g.files.slice(0, options.attemptsPerKernel));
    const attemptIds = groups.flatMap((g) => g.ids.slice(0, options.attemptsPerKernel));
    const second = fleetRunning.then(() => {
      options.log(`  fleet: a second writer tries ${attempts.length} personas while their kernels run`);
      return runKernel(attempts, path.join(options.dir, 'second-writer', 'state'), 1, env);
    });
    const [done, intruder] = await Promise.all([Promise.all(runs), second]);
    const t1 = Date.now();
    const kernelFailures = done.flatMap((r, k) => (r.code === 0 ? [] : [`kernel ${k} exited ${r.code}: ${r.err.split('\n').find((l) => l.trim() !== '') ?? ''}`]));
    const totalCycles = done.reduce((s, r) => s + [...r.cycles.values()].reduce((a, b) => a + b, 0), 0);
    const firstCycle = Math.min(...done.map((r) => r.firstCycleAt ?? t1));
    const lastCycle = Math.max(...done.map((r) => r.lastCycleAt ?? t1));

    // The lease refused every attempt, naming the holder; the intruder ran no cycle.
    const attemptFailures: string[] = [];
    let refusedAttempts = 0;
    for (const id of attemptIds) {
      const lines = intruder.refused.get(id) ?? [];
      if (lines.some((l) => l.includes('RTC_ERR_PERSONA_LOCKED') && l.includes('already has a writer') && /kernel pid \d+ on /.test(l))) refusedAttempts += 1;
      else attemptFailures.push(`${id}: ${lines.join(' | ') || `not refused (${intruder.cycles.get(id) ?? 0} cycles)`}`);
    }

    // No fork: every chain verifies, and holds exactly the cycles its kernel reported.
    options.log(`  fleet: verifying ${options.kernels * options.personasPerKernel} chains`);
    const verifyFailures: string[] = [];
    let verified = 0;
    for (const [k, g] of groups.entries()) {
      for (const id of g.ids) {
        const backend = await openShared(pg.dsn, id);
        try {
          const report = backend.events.verify();
          const cycles = [...backend.events.read()].filter((e) => e.type === CYCLE_EVENT).length;
          const reported = done[k]!.cycles.get(id) ?? 0;
          if (!report.ok) verifyFailures.push(`${id}: ${report.problems[0]?.what ?? 'does not verify'}`);
          else if (cycles !== reported || cycles !== options.cycles) verifyFailures.push(`${id}: ${cycles} cycle events, ${reported} reported, ${options.cycles} asked`);
          else verified += 1;
        } finally {
          await backend.close();
        }
      }
    }
    const wallSeconds = (t1 - t0) / 1000;
    const steadySeconds = Math.max(0.001, (lastCycle - firstCycle) / 1000);
    return {
      kernels: options.kernels,
      personas: options.kernels * options.personasPerKernel,
      cyclesPerPersona: options.cycles,
      totalCycles,
      wallSeconds: Math.round(wallSeconds * 10) / 10,
      steadySeconds: Math.round(steadySeconds * 10) / 10,
      cyclesPerSecond: Math.round((totalCycles / wallSeconds) * 10) / 10,
      steadyCyclesPerSecond: Math.round((totalCycles / steadySeconds) * 10) / 10,
      verified,
      verifyFailures,
      attempts: attemptIds.length,
      refusedAttempts,
      attemptFailures,
      kernelFailures,
    };
  } finally {
    await closeBridges();
    pg.stop();
  }
}
