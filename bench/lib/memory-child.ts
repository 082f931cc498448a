/**
 * The memory cases measure resident memory in a fresh Node process per figure (so one
 * figure's isolates and heap never count toward the next): this runs such a child and
 * returns the JSON report it prints last.
 */
import { spawnSync } from 'node:child_process';
import type { BenchContext } from './setup.ts';

export const MIB = 1024 * 1024;
/** The memory targets' budget: 2 GiB of whole-process RSS. */
export const BUDGET_MIB = 2048;

export function runMemoryChild<T>(ctx: BenchContext, child: string, args: readonly string[], label: string): T {
  const result = spawnSync(process.execPath, ['--no-node-snapshot', '--import', 'tsx', child, ...args], {
    encoding: 'utf8',
    env: { ...process.env, RUNTIMECTL_CACHE_DIR: ctx.cacheDir },
    maxBuffer: 1 << 20,
  });
  if (result.status !== 0) throw new Error(`bench: ${label} failed (${result.status ?? result.signal}): ${result.stderr}`);
  return JSON.parse(result.stdout.trim().split('\n').pop()!) as T;
}
