/**
 * Issue 18's fleet simulation (bench/lib/fleet-sim.ts): 4 kernel processes × 250 personas
 * (executor none) on one Postgres, a fixed number of cycles each: the fleet's total cycles per
 * second, every one of the 1,000 chains verified (no fork), and the lease refusing every
 * attempt of a second writer. `--quick` runs it scaled down (4 × 25, 10 cycles: the kernels outlast the second writer's start) and says so. The scale can
 * be set with RUNTIMECTL_BENCH_FLEET=KERNELSxPERSONASxCYCLES (e.g. 4x250x3).
 */
import { simulateFleet } from '../lib/fleet-sim.ts';
import { verdict, type ResultRow } from '../lib/result-row.ts';
import type { BenchContext } from '../lib/setup.ts';
import { postgresSkipReason } from '../../test/support/postgres.ts';

const CASE = 'fleet simulation: kernel processes on one Postgres';

function scale(ctx: BenchContext): { kernels: number; personasPerKernel: number; cycles: number } {
  const given = process.env.RUNTIMECTL_BENCH_FLEET?.match(/^(\d+)x(\d+)x(\d+)$/);
  if (given) return { kernels: Number(given[1]), personasPerKernel: Number(given[2]), cycles: Number(given[3]) };
  return ctx.quick ? { kernels: 4, personasPerKernel: 25, cycles: 10 } : { kernels: 4, personasPerKernel: 250, cycles: 3 };
}

export async function fleet(ctx: BenchContext): Promise<ResultRow[]> {
  const skip = postgresSkipReason();
  if (skip) return [{ case: CASE, variant: 'persistence.postgres', role: 'project', unit: 'cycles/s', note: `not measured: ${skip}` }];
  const s = scale(ctx);
  const r = await simulateFleet({ ...s, attemptsPerKernel: Math.max(1, Math.round(s.personasPerKernel / 10)), dir: ctx.tmp, log: ctx.log });
  const full = r.kernels === 4 && r.personas === 1000;
  const ok = r.verifyFailures.length === 0 && r.attemptFailures.length === 0 && r.kernelFailures.length === 0;
  const problems = [...r.kernelFailures, ...r.verifyFailures.slice(0, 3), ...r.attemptFailures.slice(0, 3)];
  return [
    {
      case: CASE,
      variant: `${r.kernels} kernels × ${r.personas / r.kernels} personas (executor none), ${r.cyclesPerPersona} cycles each, --every 0${full ? '' : ` (scaled down from 4 × 250)`}`,
      role: 'project',
      unit: 'cycles/s',
      median: r.cyclesPerSecond,
      samples: r.totalCycles,
      target: 'every chain verifies; the lease refuses every second-writer attempt',
      verdict: verdict(ok),
      note: `${r.totalCycles} cycles in ${r.wallSeconds} s from the first spawn to the last exit (start-up of every persona included); ${r.steadyCyclesPerSecond} cycles/s between the first and the last cycle (${r.steadySeconds} s). Verify passed for ${r.verified} of ${r.personas} chains, each with exactly the cycles its kernel reported; a second writer tried ${r.attempts} personas (spread over every kernel) while they ran: ${r.refusedAttempts} refused naming the holder.${problems.length ? ` Problems: ${problems.join('; ')}` : ''}`,
      whyMissed: problems.join('; '),
    },
  ];
}
