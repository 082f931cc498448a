/**
 * `<state>/run-workers.json`: while `run --workers N` runs, which worker thread hosts which
 * personas, how often each was restarted and why it last died, so `runtimectl status` can
 * show an operator a worker that keeps dying. Written on start and on every death and
 * restart (replaced whole, by rename); removed when the run ends. Information only: the
 * personas' writer locks decide who writes, never this file.
 */
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { processStartTicks } from '../../persistence/state/writer-lock.ts';

export const RUN_WORKERS_FILE = 'run-workers.json';

export const RunWorkersSchema = z.object({
  pid: z.number().int(),
  /** the process's start time in clock ticks after boot (/proc/<pid>/stat), so a reused pid is not taken for it */
  start_ticks: z.number().int().nullable(),
  started_at: z.string(),
  updated_at: z.string(),
  workers: z.array(
    z.object({
      worker: z.number().int(),
      thread_id: z.number().int().nullable(),
      personas: z.array(z.string()),
      restarts: z.number().int(),
      last_death: z.object({ at: z.string(), reason: z.string() }).nullable(),
    }),
  ),
});
export type RunWorkers = z.infer<typeof RunWorkersSchema>;

interface SlotView {
  id: number;
  personas: { profile: { id: string } }[];
  worker?: { threadId: number };
  restarts: number;
}

export class WorkerTable {
  readonly #file: string;
  readonly #startedAt = new Date().toISOString();
  readonly #deaths = new Map<number, { at: string; reason: string }>();

  constructor(stateDir: string) {
    this.#file = path.join(stateDir, RUN_WORKERS_FILE);
  }

  died(worker: number, reason: string): void {
    this.#deaths.set(worker, { at: new Date().toISOString(), reason });
  }

  write(slots: readonly SlotView[]): void {
    const table: RunWorkers = {
      pid: process.pid,
      start_ticks: processStartTicks(process.pid),
      started_at: this.#startedAt,
      updated_at: new Date().toISOString(),
      workers: slots.map((s) => ({ worker: s.id, thread_id: s.worker?.threadId ?? null, personas: s.personas.map((p) => p.profile.id), restarts: s.restarts, last_death: this.#deaths.get(s.id) ?? null })),
    };
    try {
      writeFileSync(`${this.#file}.tmp`, `${JSON.stringify(table, null, 2)}\n`);
      renameSync(`${this.#file}.tmp`, this.#file);
    } catch {
      // The table is for the operator's eyes; a state directory that cannot take it fails elsewhere, loudly.
    }
  }

  remove(): void {
    rmSync(this.#file, { force: true });
  }
}

/** The table of the run now going on in `stateDir`, or undefined (none, or its process is gone, or unreadable). */
export function readRunWorkers(stateDir: string): RunWorkers | undefined {
  try {
    const table = RunWorkersSchema.parse(JSON.parse(readFileSync(path.join(stateDir, RUN_WORKERS_FILE), 'utf8')));
    // The pid and its start time name one process (a reused pid is another one).
    const ticks = processStartTicks(table.pid);
    return ticks !== null && ticks === table.start_ticks ? table : undefined;
  } catch {
    return undefined;
  }
}

/** The table as status prints it: a heading line, then one line per worker. */
export function workerLines(table: RunWorkers): string[] {
  return [
    `run pid ${table.pid} (since ${table.started_at}) spreads its personas over ${table.workers.length} worker thread(s):`,
    ...table.workers.map((w) => {
      const death = w.last_death ? `; last died ${w.last_death.at}: ${w.last_death.reason}` : '';
      return `  worker ${w.worker} (thread ${w.thread_id ?? '-'}): ${w.personas.join(', ')}; restarts ${w.restarts}${death}`;
    }),
  ];
}
