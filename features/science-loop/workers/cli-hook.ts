/**
 * `run --workers N|auto`: the flag, and the step from the run CLI's opened kernel to a
 * fleet of worker threads. The default is 1, the in-process run: a worker costs a thread,
 * a second copy of the kernel's modules and its own shim and isolates (tens of MiB and
 * about a second to start on this machine), which pays only when a run has more personas
 * than one core can cycle (see the `persona workers` bench case); the sources' layout, one
 * persona per container, never has. `auto` is the machine's available parallelism.
 */
import os from 'node:os';
import { kernelError } from '../../../kernel/errors.ts';
import type { LoopKernel } from '../../persona/persona-runtime.ts';
import { DEFAULT_MAX_RESIDENT_ISOLATES } from '../../persona/resident-isolates.ts';
import type { LoadedPersona } from '../../../kernel/personas/profile-schema.ts';
import { personaPaths } from '../../persona-layout/layout.ts';
import { personaSecrets } from '../../persona/plugin-options.ts';
import { SecretValues } from '../../secret-values/secret-values.ts';
import type { WorkerSetup } from './protocol.ts';
import { workerFleet, type FleetRun, type LoopFleet } from './fleet.ts';

export const WORKERS_USAGE = `  --workers N|auto      worker threads to spread the personas over (default 1: all in this
                        thread; auto: one per core); each persona runs in exactly one, and
                        a worker that dies is restarted with only its own personas`;

export function parseWorkers(value: string | undefined): number {
  if (value === undefined) return 1;
  if (value === 'auto') return os.availableParallelism();
  if (!/^[1-9]\d*$/.test(value)) throw kernelError('RTC_ERR_CLI_USAGE', `--workers ${value}: must be a whole number above zero, or auto`);
  return Number(value);
}

export interface WorkerFleetStart extends FleetRun {
  workers: number;
  personas: readonly LoadedPersona[];
  /** the kernel the CLI opened: its checks ran once here, its substrate finding goes to every worker */
  kernel: LoopKernel;
  /** the options the CLI opened it with (plain data): every worker opens its own kernel with them */
  loop: WorkerSetup['loop'];
  /** a line for the operator's stderr (a worker died, restarts) */
  onNotice: (line: string) => void;
}

export function startWorkerFleet(o: WorkerFleetStart): Promise<LoopFleet> {
  const workers = Math.min(o.workers, o.personas.length);
  // The secrets each persona's runtime scrubs with, computed as PersonaRuntime computes them.
  const secrets = () =>
    SecretValues.union(o.personas.map((p) => personaSecrets(o.kernel.env, p.profile, o.kernel.composition.pluginEnv?.(personaPaths(o.kernel.stateDir, p.profile.id), p.profile) ?? {})));
  return workerFleet(
    {
      workers,
      personas: o.personas,
      substrate: o.kernel.substrate,
      loop: {
        ...o.loop,
        // the run's cap on live plugin isolates, shared out among the workers
        maxResidentIsolates: Math.ceil((o.loop.maxResidentIsolates ?? DEFAULT_MAX_RESIDENT_ISOLATES) / workers),
        cacheDir: o.kernel.cacheDir,
      },
      ...(o.cycles !== undefined ? { cycles: o.cycles } : {}),
      ...(o.everySeconds !== undefined ? { everySeconds: o.everySeconds } : {}),
      onCycle: o.onCycle,
      ...(o.onWait ? { onWait: o.onWait } : {}),
      onNotice: o.onNotice,
      // as the CLI's own kernel: the harnesses get the MCP tool server
      harnessTools: true,
    },
    secrets,
  );
}
