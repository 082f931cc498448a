/**
 * What a run (a `sandbox run`, or one call into a plugin) has in flight on the host: its
 * asynchronous ops (fetches, subprocesses) and the bytes their answers hold. Without this,
 * a script starting hundreds of fetches had every body buffered in the kernel at once
 * (1.6 GiB RSS for one run) and its connections outlived the run.
 *
 *  - at most `maxOps` ops run at once; later ones wait in order (up to `maxQueued`, past
 *    that an op is refused at once): waiting ops hold no buffers;
 *  - the bytes the running ops hold are counted against `maxBytes` for the whole run; an op
 *    that would pass it fails (RangeError in the script), the others go on;
 *  - `end()` closes the scope when the run (or call) ends: every op in flight is aborted
 *    (sockets destroyed, subprocess groups killed), waiting ones are refused, the run's
 *    shared resources (the fetch ops' connection pool) are closed, and a fresh scope begins
 *    for the next call.
 */
import { DenoOpError } from './deno-error.ts';
import type { WriteQuota } from './write-quota.ts';

export interface ScopeLimits {
  maxOps: number;
  maxQueued: number;
  maxBytes: number;
}

/** What the ops of one run share while it lasts (a connection pool), closed when the run ends. */
export interface Shared<T> {
  readonly value: T;
  close(): void;
}

/** One op's place in the scope: its abort signal, its byte account, what the run's ops share. */
export interface OpTicket {
  readonly signal: AbortSignal;
  /** counts `bytes` more against the run; throws (and counts nothing) past the run's cap */
  hold(bytes: number): void;
  /**
   * What the run's ops share under `key` (the fetch ops' connection pool:
   * sandboxes/deno/ops/net.ts), made by `make` on the first use in this run and closed when
   * the run ends; the scope knows nothing of what it is.
   */
  shared<T>(key: string, make: () => Shared<T>): T;
  /** gives the slot and every byte held back; idempotent */
  done(): void;
  /**
   * Takes the slot and the bytes over from the broker, for what outlives the op's answer
   * (a streaming response body: sandboxes/deno/ops/net-body.ts): the broker's `done` then
   * does nothing, and the returned ticket gives them back.
   */
  keep(): KeptTicket;
}

/** A ticket kept past its op's answer: it gives its slot back and its bytes back separately. */
export interface KeptTicket {
  readonly signal: AbortSignal;
  hold(bytes: number): void;
  /** gives `bytes` of what was held back (delivered to the script) */
  release(bytes: number): void;
  /** gives the slot back (the next waiting op starts); the bytes stay held until released or `done` */
  freeSlot(): void;
  done(): void;
}

class Generation {
  readonly controller = new AbortController();
  running = 0;
  bytes = 0;
  readonly waiting: { start(): void; refuse(error: Error): void }[] = [];
  readonly shared = new Map<string, Shared<unknown>>();
}

export class RunScope {
  readonly limits: ScopeLimits;
  /** what the run may add to the disk, for the whole run (it outlives generations: files stay); null: no quota */
  readonly writes: WriteQuota | null;
  #gen = new Generation();
  /** ops started and bytes refused so far, for tests and status */
  readonly stats = { ops: 0, aborted: 0, overCap: 0 };

  constructor(limits: ScopeLimits, writes: WriteQuota | null = null) {
    this.limits = limits;
    this.writes = writes;
  }

  get inFlight(): number {
    return this.#gen.running;
  }

  get heldBytes(): number {
    return this.#gen.bytes;
  }

  /** Waits for a slot (in call order) and returns the op's ticket. */
  async enter(what: string): Promise<OpTicket> {
    const gen = this.#gen;
    if (gen.running >= this.limits.maxOps) {
      if (gen.waiting.length >= this.limits.maxQueued) {
        throw new DenoOpError('Busy', `${what}: the run already has ${gen.running} operations running and ${gen.waiting.length} waiting (the sandbox cap)`);
      }
      await new Promise<void>((start, refuse) => gen.waiting.push({ start, refuse }));
    }
    gen.running++;
    this.stats.ops++;
    let held = 0;
    let slot = true;
    let kept = false;
    const hold = (bytes: number): void => {
      if (gen.bytes + bytes > this.limits.maxBytes) {
        this.stats.overCap++;
        throw new DenoOpError('RangeError', `${what}: the run's operations in flight would hold more than ${this.limits.maxBytes} bytes (the sandbox cap)`);
      }
      gen.bytes += bytes;
      held += bytes;
    };
    const release = (bytes: number): void => {
      const n = Math.min(bytes, held);
      held -= n;
      gen.bytes -= n;
    };
    const freeSlot = (): void => {
      if (!slot) return;
      slot = false;
      gen.running--;
      gen.waiting.shift()?.start();
    };
    const finish = (): void => {
      release(held);
      freeSlot();
    };
    return {
      signal: gen.controller.signal,
      hold,
      shared<T>(key: string, make: () => Shared<T>): T {
        let entry = gen.shared.get(key);
        if (!entry) gen.shared.set(key, (entry = make()));
        return entry.value as T;
      },
      done: () => {
        if (!kept) finish();
      },
      keep: () => {
        kept = true;
        return { signal: gen.controller.signal, hold, release, freeSlot, done: finish };
      },
    };
  }

  /** Ends the run: aborts what is in flight, refuses what waits, closes its connections; the scope starts afresh. */
  end(): void {
    const gen = this.#gen;
    this.#gen = new Generation();
    if (gen.running > 0) this.stats.aborted += gen.running;
    gen.controller.abort(new DenoOpError('Interrupted', 'the run ended while this operation was in flight'));
    for (const waiter of gen.waiting.splice(0)) waiter.refuse(new DenoOpError('Interrupted', 'the run ended before this operation started'));
    for (const entry of gen.shared.values()) entry.close();
  }
}

/** The limits a run gets from its profile: a few ops at once, their bytes within four transfer caps. */
export function scopeLimits(transferBytes: number): ScopeLimits {
  return { maxOps: 8, maxQueued: 4096, maxBytes: 4 * transferBytes };
}
