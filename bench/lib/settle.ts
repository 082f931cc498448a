import { spawnSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Between cases: flush the page cache's dirty data and pause, so a case is not charged for the
 * writeback of the one before it (the 1,000-persona cases leave hundreds of MB of dirty pages
 * and deleted trees; the fsync-bound cases after them measured 3x slower without this).
 * `sync` is one process spawn per case, never inside a timed loop.
 */
export async function settleBetweenCases(pauseMs = 1000): Promise<void> {
  spawnSync('sync', { stdio: 'ignore' });
  await sleep(pauseMs);
}
