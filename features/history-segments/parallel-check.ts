/**
 * `verify --full` over many sealed segments uses every core: segments are read here (the
 * storage is the backend's) and checked in worker threads (decompressed, digested, checked
 * line by line), one segment per job; the chain between segments is then stitched in order by
 * features/history-segments/verify.ts, which checks each segment's first record against the end of the
 * one before it. A handful of segments is checked inline: a worker costs more to start.
 */
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import type { CheckResult } from '../../kernel/contracts/history-verify.ts';
import type { HistoryStorage } from '../../kernel/contracts/history-storage.ts';

export interface CheckJob {
  index: number;
  name: string;
  gz: ArrayBuffer;
  depth: 'records' | 'links';
}

export type { CheckResult };

/** Below this many segments the checks run inline. */
export const PARALLEL_FROM = 8;

export function workerCount(): number {
  return Math.max(1, Math.min(4, typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length));
}

/** Checks the stored segments `indices` in worker threads; results by index. */
export async function checkSealedParallel(storage: HistoryStorage, jobs: { index: number; name: string }[], depth: 'records' | 'links', threads = workerCount()): Promise<Map<number, CheckResult>> {
  const results = new Map<number, CheckResult>();
  if (jobs.length === 0) return results;
  const queue = [...jobs];
  const workers = Array.from({ length: Math.min(threads, jobs.length) }, () => new Worker(new URL('./check-worker.mjs', import.meta.url)));
  try {
    await Promise.all(
      workers.map(
        (worker) =>
          new Promise<void>((resolve, reject) => {
            const next = () => {
              const job = queue.shift();
              if (!job) return resolve();
              let gz: Buffer;
              try {
                gz = storage.readSealed(job.index);
              } catch (error) {
                results.set(job.index, { index: job.index, error: (error as Error).message });
                return next();
              }
              // A copy the worker owns (a file read may share a pooled buffer).
              const owned = gz.buffer.slice(gz.byteOffset, gz.byteOffset + gz.byteLength) as ArrayBuffer;
              worker.postMessage({ index: job.index, name: job.name, gz: owned, depth } satisfies CheckJob, [owned]);
            };
            worker.on('message', (result: CheckResult) => {
              results.set(result.index, result);
              next();
            });
            worker.on('error', reject);
            next();
          }),
      ),
    );
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
  return results;
}
