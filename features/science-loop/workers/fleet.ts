/**
 * What `runtimectl run` drives: the personas of one run, in this thread or spread over
 * worker threads (pool.ts), behind one face, so the CLI's signals, lines, --json and exit
 * status are the same code either way.
 */
import type { CycleReport } from '../../persona/persona-runtime.ts';
import { runPersonaLoop, type CycleWait, type OpenedPersonas, type PersonaRun } from '../run-personas.ts';
import type { ChildRegistry } from '../executors/children.ts';
import { SecretValues } from '../../secret-values/secret-values.ts';
import { PersonaWorkers, type WorkerRunOptions } from './pool.ts';

export interface LoopFleet {
  /** runs every persona to its end (its cycles, or finish/stop) and closes it; the runs in the order given */
  run(): Promise<PersonaRun[]>;
  /** SIGINT: end the waits between cycles, let the cycles in progress finish */
  finish(): void;
  /** SIGTERM: as finish, and running subprocesses get TERM, KILL after killAfterMs; resolves with how many were running */
  stop(killAfterMs: number): Promise<number>;
  /** every persona's secret values: what the CLI prints about them is scrubbed of them */
  readonly secrets: SecretValues;
  /** the personas that did not start (start-check.ts), in the order given, with their problem lines */
  readonly refused: OpenedPersonas['refused'];
}

export interface FleetRun {
  cycles?: number;
  everySeconds?: number;
  onCycle: (report: CycleReport) => void;
  /** a persona waits for its next cycle (cadence or --every) */
  onWait?: (wait: CycleWait) => void;
}

/** `--workers 1`: every persona's loop on this thread, in the kernel the CLI opened (its subprocesses in `children`). */
export function inProcessFleet(children: ChildRegistry, { runtimes, refused }: OpenedPersonas, options: FleetRun): LoopFleet {
  const controller = new AbortController();
  return {
    secrets: SecretValues.union(runtimes.map((rt) => rt.secrets)),
    refused,
    async run() {
      try {
        return await Promise.all(
          runtimes.map((rt) =>
            runPersonaLoop(rt, {
              ...(options.cycles !== undefined ? { cycles: options.cycles } : {}),
              ...(options.everySeconds !== undefined ? { everySeconds: options.everySeconds } : {}),
              signal: controller.signal,
              onCycle: options.onCycle,
              ...(options.onWait ? { onWait: options.onWait } : {}),
            }),
          ),
        );
      } finally {
        await Promise.all(runtimes.map((rt) => rt.close()));
      }
    },
    finish: () => controller.abort(),
    stop(killAfterMs) {
      controller.abort();
      const running = children.running;
      void children.stop(killAfterMs);
      return Promise.resolve(running);
    },
  };
}

/** `--workers N` (N > 1): the personas spread over N worker threads; resolves once every worker has opened its share. */
export async function workerFleet(options: Omit<WorkerRunOptions, 'onCycle' | 'onWait'> & FleetRun, secrets: () => SecretValues): Promise<LoopFleet> {
  const pool = await PersonaWorkers.open(options);
  return {
    // once the workers have opened the personas (their folders exist then)
    secrets: secrets(),
    refused: pool.refused,
    run: () => pool.run(),
    finish: () => pool.finish(),
    stop: (killAfterMs) => pool.stop(killAfterMs),
  };
}
