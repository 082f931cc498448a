/**
 * The messages between `runtimectl run --workers N`'s main thread and its worker threads.
 * Every message is structured-cloned, so it carries plain data only: cycle reports as the
 * loop made them, errors as {code, message, details} (rebuilt as KernelErrors on the other
 * side, so a user sees the same one line as in-process).
 */
import type { LoadedPersona } from '../../../kernel/personas/profile-schema.ts';
import type { CycleReport } from '../../persona/persona-runtime.ts';
import type { CycleWait, OpenedPersonas } from '../run-personas.ts';
import type { DefaultLoopOptions } from '../preset.ts';
import type { SubstrateAtStart } from '../../substrate/substrate-at-start.ts';
import { isKernelError, kernelError, type ErrorCode } from '../../../kernel/errors.ts';

/** The cloneable part of the default composition's loop options; each worker makes its own ChildRegistry. */
export type WorkerLoopOptions = Pick<DefaultLoopOptions, 'stateDir' | 'stateDirShown' | 'spendTokens' | 'maxResidentIsolates' | 'pluginsDir' | 'pluginPath' | 'cacheDir' | 'skillsDirs' | 'harnessesDir'> & {
  env: Record<string, string | undefined>;
};

/** What a worker needs to open its share of the personas: all of it cloneable. */
export interface WorkerSetup {
  /** 1-based, as the operator sees it in lines and status */
  workerId: number;
  personas: LoadedPersona[];
  /** cycles still to run per persona id; absent: until stopped */
  cycles?: Record<string, number>;
  everySeconds?: number;
  /** the options the run CLI opened its kernel with: plain data (no registry, clock or callbacks) */
  loop: WorkerLoopOptions;
  /** the start's substrate check, done once by the main thread for every worker */
  substrate: SubstrateAtStart;
  /** hand each executor's harness this install's MCP tool server (features/mcp/harness-server.ts), as `run` does in-process */
  harnessTools?: boolean;
}

export interface WireError {
  code?: string;
  message: string;
  details?: Record<string, unknown>;
  internal?: boolean;
}

/** main → worker */
export type ToWorker =
  | { type: 'start' }
  /** SIGINT: end the waits, let each cycle in progress finish */
  | { type: 'finish' }
  /** SIGTERM or a second SIGINT: as finish, and every running subprocess gets TERM, KILL after killAfterMs */
  | { type: 'stop'; killAfterMs: number }
  /** another worker failed to open: close what this one opened, run nothing */
  | { type: 'close' }
  /**
   * The tests' crash: the thread ends at once with this code, its personas mid-cycle. It exits
   * from its own JavaScript (process.exit in a worker ends only that thread): a terminate()
   * from outside can land while the thread is inside isolated-vm's native code, and then
   * isolated-vm aborts the whole process (seen: "terminate called after throwing an instance
   * of 'ivm::RuntimeError'").
   */
  | { type: 'crash'; code: number };

/** worker → main */
export type FromWorker =
  /** the kernel and every persona that can start are open; `refused` did not start (start-check.ts) */
  | { type: 'opened'; personas: string[]; refused: OpenedPersonas['refused'] }
  | { type: 'open-failed'; error: WireError }
  | { type: 'cycle'; report: CycleReport }
  /** a persona waits for its next cycle (run-personas.ts CycleWait) */
  | { type: 'wait'; wait: CycleWait }
  | { type: 'stopping'; running: number }
  /** the loops ended and every persona was closed; `stopped` by persona id, as PersonaRun.stopped */
  | { type: 'done'; stopped: Record<string, string> };

export function toWire(error: unknown): WireError {
  if (isKernelError(error)) return { code: error.code, message: error.message, details: error.details, internal: error.internal };
  return { message: error instanceof Error ? error.message : String(error) };
}

export function fromWire(wire: WireError): Error {
  if (wire.code) return kernelError(wire.code as ErrorCode, wire.message, { ...(wire.details ? { details: wire.details } : {}), ...(wire.internal ? { internal: true } : {}) });
  return new Error(wire.message);
}
