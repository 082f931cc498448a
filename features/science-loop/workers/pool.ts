/**
 * `runtimectl run --workers N`: the personas spread over N worker threads of this process,
 * each worker a LoopKernel of its own hosting its share (assign.ts) with their isolates,
 * writer locks, logs and traces. The main thread only routes: it starts the workers, prints
 * what their cycles report, passes signals on, and restarts a worker that dies.
 *
 * Why node:worker_threads and not tinypool: tinypool is a task pool for short calls. A
 * persona loop is a task that never returns, and tinypool (2.2) fails a task only on its
 * worker's 'error' event: a thread that ends without one (process.exit inside it, a
 * terminate) leaves the task pending for ever, and its API gives no handle on the worker
 * running a task (to end it, to know which personas went down). Restarting only the dead
 * worker's personas needs exactly those, so this file holds its few Workers itself.
 *
 * A worker that dies (an uncaught error in kernel code, its heap exhausted, a terminate)
 * takes only its own personas down: the others keep cycling. Its personas start again in
 * a new worker after a backoff (1 s, doubling to 30 s; reset by a cycle that completes),
 * each with the cycles it still had to run; the death and the restart are a line on
 * stderr (onNotice) and in `<state>/run-workers.json` (status shows it). After
 * MAX_CONSECUTIVE_DEATHS deaths without a completed cycle between them its personas are
 * stopped, as a persona whose state cannot be written is stopped in-process.
 */
import { Worker, type ResourceLimits } from 'node:worker_threads';
import { errorLine, kernelError } from '../../../kernel/errors.ts';
import type { CycleReport } from '../../persona/persona-runtime.ts';
import type { CycleWait, OpenedPersonas, PersonaRun } from '../run-personas.ts';
import type { LoadedPersona } from '../../../kernel/personas/profile-schema.ts';
import type { SubstrateAtStart } from '../../substrate/substrate-at-start.ts';
import { assignShares } from './assign.ts';
import { fromWire, type FromWorker, type ToWorker, type WorkerSetup } from './protocol.ts';
import { WorkerTable } from './worker-table.ts';

const ENTRY = new URL('./worker-entry.mjs', import.meta.url);

/** Deaths in a row (no completed cycle between them) after which a worker's personas stop. */
export const MAX_CONSECUTIVE_DEATHS = 5;

/** How long a worker that said `done` may take to end its thread by itself. */
const DONE_EXIT_GRACE_MS = 5000;

/** 1 s, 2 s, 4 s, ... at most 30 s before the n-th restart in a row. */
export function restartDelayMs(attempt: number): number {
  return Math.min(30_000, 1000 * 2 ** (attempt - 1));
}

export interface WorkerRunOptions {
  workers: number;
  personas: readonly LoadedPersona[];
  loop: WorkerSetup['loop'];
  substrate: SubstrateAtStart;
  /** cycles per persona; undefined: until finish() or stop() */
  cycles?: number;
  everySeconds?: number;
  onCycle?: (report: CycleReport) => void;
  /** a persona waits for its next cycle */
  onWait?: (wait: CycleWait) => void;
  /** one line for the operator (stderr), without the trailing newline */
  onNotice?: (line: string) => void;
  /** the wait before the n-th restart in a row (default restartDelayMs) */
  restartDelay?: (attempt: number) => number;
  /** deaths in a row after which a worker's personas stop (default MAX_CONSECUTIVE_DEATHS) */
  maxConsecutiveDeaths?: number;
  /**
   * Each worker thread's V8 heap limits (default: Node's, sized from the machine's memory).
   * A worker that exhausts its heap dies like any other (ERR_WORKER_OUT_OF_MEMORY) and only
   * its personas restart; the tests set a small limit to make that happen.
   */
  resourceLimits?: ResourceLimits;
  /** each worker hands its personas' harnesses the MCP tool server (WorkerSetup.harnessTools) */
  harnessTools?: boolean;
}

interface Slot {
  id: number;
  personas: LoadedPersona[];
  worker?: Worker;
  /** deaths since the last completed cycle */
  consecutive: number;
  restarts: number;
  /** the worker sent `done`: its exit is the end of its share, not a death */
  done: boolean;
  /** what the current worker's thread last reported as its error */
  lastError?: string;
  onMessage?: (message: FromWorker) => void;
  exited?: Promise<number>;
}

const names = (personas: readonly LoadedPersona[]) => personas.map((p) => p.profile.id).join(', ');

export class PersonaWorkers {
  readonly #options: WorkerRunOptions;
  readonly #slots: Slot[];
  readonly #runs = new Map<string, PersonaRun>();
  /** personas that did not start at the first open, with their problem lines */
  readonly #refused = new Map<string, string[]>();
  readonly #table: WorkerTable;
  /** finish() or stop() was called: no restart, no new cycle waits */
  #ending = false;
  #wake: (() => void)[] = [];

  private constructor(options: WorkerRunOptions) {
    this.#options = options;
    this.#slots = assignShares(options.personas, options.workers).map((personas, i) => ({ id: i + 1, personas, consecutive: 0, restarts: 0, done: false }));
    for (const p of options.personas) this.#runs.set(p.profile.id, { persona_id: p.profile.id, reports: [] });
    this.#table = new WorkerTable(options.loop.stateDir);
  }

  /**
   * Starts every worker and waits until each has opened its personas (all or none: when one
   * fails, the others close theirs and its error is thrown, as openPersonas throws in-process).
   */
  static async open(options: WorkerRunOptions): Promise<PersonaWorkers> {
    const pool = new PersonaWorkers(options);
    const opened = await Promise.allSettled(pool.#slots.map((slot) => pool.#spawn(slot)));
    const failed = opened.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) {
      await Promise.all(pool.#slots.map((slot) => pool.#closeUnstarted(slot)));
      throw failed.reason;
    }
    for (const r of opened) if (r.status === 'fulfilled') for (const refusal of r.value) pool.#refused.set(refusal.persona_id, refusal.problems);
    pool.#table.write(pool.#slots);
    return pool;
  }

  /** The personas that did not start (start-check.ts), in the order given. */
  get refused(): OpenedPersonas['refused'] {
    return this.#options.personas.filter((p) => this.#refused.has(p.profile.id)).map((p) => ({ persona_id: p.profile.id, problems: this.#refused.get(p.profile.id)! }));
  }

  /** Which worker hosts which personas (thread ids change when a worker restarts). */
  get shares(): { worker: number; threadId: number | null; personas: string[]; restarts: number }[] {
    return this.#slots.map((s) => ({ worker: s.id, threadId: s.worker?.threadId ?? null, personas: s.personas.map((p) => p.profile.id), restarts: s.restarts }));
  }

  /** Runs every share to its end (the cycles done, or finish/stop), restarting dead workers; the runs in the order given. */
  async run(): Promise<PersonaRun[]> {
    await Promise.all(this.#slots.map((slot) => this.#runSlot(slot)));
    this.#table.remove();
    return [...this.#runs.values()].filter((r) => !this.#refused.has(r.persona_id));
  }

  /** SIGINT: every worker ends its waits and lets its cycles in progress finish. */
  finish(): void {
    this.#ending = true;
    this.#wakeAll();
    for (const slot of this.#slots) this.#post(slot, { type: 'finish' });
  }

  /**
   * SIGTERM: as finish(), and each worker's running subprocesses get TERM, KILL after
   * killAfterMs. Resolves with how many were running (as the workers answered, within 1 s).
   */
  async stop(killAfterMs: number): Promise<number> {
    this.#ending = true;
    this.#wakeAll();
    const answers = this.#slots.map((slot) => {
      if (!slot.worker || slot.done) return Promise.resolve(0);
      return new Promise<number>((resolve) => {
        const timer = setTimeout(() => resolve(0), 1000);
        const previous = slot.onMessage;
        slot.onMessage = (message) => {
          if (message.type === 'stopping') {
            clearTimeout(timer);
            resolve(message.running);
          }
          previous?.(message);
        };
        this.#post(slot, { type: 'stop', killAfterMs });
      });
    });
    return (await Promise.all(answers)).reduce((a, b) => a + b, 0);
  }

  /**
   * Ends worker `id`'s thread the way a crash does (no goodbye, its personas mid-cycle, exit
   * code 1): what the tests use to show that only its personas go down and come back. The
   * thread exits from its own JavaScript (protocol.ts, `crash`), never by terminate() landing
   * inside an isolate's native call.
   */
  async terminateWorker(id: number): Promise<void> {
    const slot = this.#slots.find((s) => s.id === id);
    if (!slot?.worker) return;
    const exited = slot.exited;
    this.#post(slot, { type: 'crash', code: 1 });
    await exited;
  }

  #wakeAll(): void {
    for (const wake of this.#wake.splice(0)) wake();
  }

  #post(slot: Slot, message: ToWorker): void {
    try {
      slot.worker?.postMessage(message);
    } catch {
      // a worker that already ended has nothing to be told
    }
  }

  /** Cycles each persona of the slot still has to run (undefined: no --cycles). */
  #remaining(slot: Slot): Record<string, number> | undefined {
    if (this.#options.cycles === undefined) return undefined;
    const out: Record<string, number> = {};
    for (const p of slot.personas) out[p.profile.id] = Math.max(0, this.#options.cycles - this.#runs.get(p.profile.id)!.reports.length);
    return out;
  }

  /** A new worker for the slot; resolves once it has opened its personas, rejects with its open error. */
  #spawn(slot: Slot): Promise<OpenedPersonas['refused']> {
    const o = this.#options;
    const cycles = this.#remaining(slot);
    const setup: WorkerSetup = {
      workerId: slot.id,
      // A restart leaves out the personas that did not start at all or stopped on their own.
      personas: slot.personas.filter((p) => !this.#refused.has(p.profile.id) && this.#runs.get(p.profile.id)!.stopped === undefined),
      ...(cycles ? { cycles } : {}),
      ...(o.everySeconds !== undefined ? { everySeconds: o.everySeconds } : {}),
      loop: o.loop,
      substrate: o.substrate,
      ...(o.harnessTools ? { harnessTools: true } : {}),
    };
    const worker = new Worker(ENTRY, { workerData: setup, name: `runtimectl-worker-${slot.id}`, ...(o.resourceLimits ? { resourceLimits: o.resourceLimits } : {}) });
    slot.worker = worker;
    slot.done = false;
    slot.lastError = undefined;
    slot.exited = new Promise((resolve) => worker.once('exit', resolve));
    worker.on('error', (error) => {
      slot.lastError = error.message.split('\n')[0];
    });
    return new Promise<OpenedPersonas['refused']>((resolve, reject) => {
      slot.onMessage = (message) => {
        if (message.type === 'opened') resolve(message.refused);
        else if (message.type === 'open-failed') reject(fromWire(message.error));
        else if (message.type === 'cycle') {
          slot.consecutive = 0;
          this.#runs.get(message.report.persona_id)?.reports.push(message.report);
          o.onCycle?.(message.report);
        } else if (message.type === 'wait') {
          o.onWait?.(message.wait);
        } else if (message.type === 'done') {
          slot.done = true;
          for (const [id, why] of Object.entries(message.stopped)) this.#runs.get(id)!.stopped = why;
          // Its personas are closed and their logs flushed: a thread something still keeps alive is ended.
          setTimeout(() => void worker.terminate(), DONE_EXIT_GRACE_MS).unref();
        }
      };
      worker.on('message', (message: FromWorker) => slot.onMessage?.(message));
      void slot.exited!.then((code) =>
        reject(kernelError('RTC_ERR_WORKER_FAILED', `worker ${slot.id} (personas ${names(slot.personas)}) ended while opening them (exit code ${code}${slot.lastError ? `: ${slot.lastError}` : ''})`)),
      );
    });
  }

  async #closeUnstarted(slot: Slot): Promise<void> {
    this.#post(slot, { type: 'close' });
    await slot.exited;
  }

  /** Runs the slot's worker until its share is done, restarting it while it dies. */
  async #runSlot(slot: Slot): Promise<void> {
    for (;;) {
      this.#post(slot, { type: 'start' });
      // An ending requested while this worker was starting still reaches it.
      if (this.#ending) this.#post(slot, { type: 'finish' });
      const code = await slot.exited!;
      if (slot.done) return;
      let why = `exit code ${code}${slot.lastError ? `: ${slot.lastError}` : ''}`;
      this.#table.died(slot.id, why);
      // Restart until a new worker has opened the personas again (or the deaths in a row run out).
      for (;;) {
        slot.consecutive += 1;
        if (this.#ending || slot.consecutive > (this.#options.maxConsecutiveDeaths ?? MAX_CONSECUTIVE_DEATHS)) return this.#giveUp(slot, why);
        slot.restarts += 1;
        const delay = (this.#options.restartDelay ?? restartDelayMs)(slot.consecutive);
        this.#options.onNotice?.(`runtimectl: worker ${slot.id} (personas ${names(slot.personas)}) died (${why}); restarting them in ${delay / 1000} s (restart ${slot.restarts})`);
        this.#table.write(this.#slots);
        await this.#pause(delay);
        if (this.#ending) return this.#giveUp(slot, why);
        try {
          // A persona its restart refuses (its state now fails the start checks) stops; the others run on.
          for (const r of await this.#spawn(slot)) {
            const run = this.#runs.get(r.persona_id)!;
            run.stopped ??= `RTC_ERR_WORKER_FAILED: its worker ${slot.id} was restarted and it could not start again: ${r.problems.join('; ')}`;
          }
          this.#table.write(this.#slots);
          break;
        } catch (error) {
          why = `its restart could not open them: ${errorLine(error)}`;
          this.#table.died(slot.id, why);
          await slot.exited;
        }
      }
    }
  }

  /** Waits ms, or less when finish() or stop() is called meanwhile. */
  #pause(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.#wake.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  #giveUp(slot: Slot, why: string): void {
    const reason = this.#ending
      ? `its worker ${slot.id} died while the run was stopping (${why})`
      : `its worker ${slot.id} died ${slot.consecutive} time(s) in a row without completing a cycle between (last: ${why})`;
    for (const p of slot.personas) {
      const run = this.#runs.get(p.profile.id)!;
      run.stopped ??= `RTC_ERR_WORKER_FAILED: ${reason}`;
    }
  }
}
