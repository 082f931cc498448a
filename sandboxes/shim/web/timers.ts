/**
 * Timers and microtasks, with the semantics Deno 2 has (Node's timers): `setTimeout` and
 * `setInterval` return a `Timeout` object (`ref`, `unref`, `hasRef`, `refresh`, `close`, and
 * a number through `Symbol.toPrimitive` that `clearTimeout` also takes); a delay below 1 ms
 * or above 2^31-1 ms becomes 1 ms; `setImmediate` runs before timers due at the same time.
 *
 * A timer is an async host op (`timer.sleep`), so a pending timer keeps the run alive
 * exactly as it keeps `deno run` alive, unless it is unref'd (`timer.ref` tells the host);
 * `clearTimeout` tells the host to drop it so an idle script can end at once. An error
 * thrown by a callback is reported to the host as uncaught, which ends the run with exit
 * status 1, as in Deno.
 */
import { callAsync, callSync } from '../host.ts';

let nextId = 1;
interface Entry {
  repeat: boolean;
  ref: boolean;
  delay: number;
  run: () => void;
  handle: Timeout | Immediate;
}
const active = new Map<number, Entry>();

/** An uncaught error ends the run: no timer fires after it, even one already due (a loaded host may wake both at once). */
let uncaughtReported = false;

export function reportUncaught(error: unknown): void {
  uncaughtReported = true;
  const name = error instanceof Error ? error.name : typeof error;
  const message = error instanceof Error ? error.message : String(error);
  const stack = error instanceof Error ? (error.stack ?? `${name}: ${message}`) : String(error);
  callSync('process.uncaught', { name, message, stack, isError: error instanceof Error });
}

/** Each arm of a timer is one host sleep; `generation` tells a stale wake (after refresh) from the live one. */
const generations = new Map<number, number>();

function arm(id: number, delay: number, immediate = false): void {
  const entry = active.get(id);
  if (!entry) return;
  const generation = (generations.get(id) ?? 0) + 1;
  generations.set(id, generation);
  callAsync<{ cancelled: boolean }>('timer.sleep', { id, ms: delay, unref: !entry.ref, immediate }).then(
    (result) => {
      if (result.cancelled || generations.get(id) !== generation || uncaughtReported) return;
      const live = active.get(id);
      if (!live) return;
      if (!live.repeat) {
        active.delete(id);
        generations.delete(id);
      }
      try {
        live.run();
      } catch (error) {
        reportUncaught(error);
      }
      if (live.repeat && active.has(id)) arm(id, live.delay);
    },
    (error: unknown) => reportUncaught(error),
  );
}

function cancel(id: number): void {
  if (!active.has(id)) return;
  active.delete(id);
  generations.delete(id);
  callSync('timer.cancel', { id });
}

/** Node's rule, which Deno 2 follows: outside 1..2^31-1 (or not a number) the delay is 1 ms. */
function normalizeDelay(ms: unknown): number {
  const n = Number(ms);
  if (!(n >= 1 && n <= 2 ** 31 - 1)) return 1;
  return Math.trunc(n);
}

function checkCallback(callback: unknown): asserts callback is (...args: unknown[]) => void {
  if (typeof callback !== 'function') {
    const shown = typeof callback === 'string' ? `type string ('${callback}')` : callback === null ? 'null' : callback === undefined ? 'undefined' : `type ${typeof callback}`;
    const error = new TypeError(`The "callback" argument must be of type function. Received ${shown}`);
    // shaped as Deno's node: errors (node-errors part, nodeError), without loading that part
    const own = (key: string, value: unknown) => Object.defineProperty(error, key, { value, configurable: true, writable: true, enumerable: true });
    own('code', 'ERR_INVALID_ARG_TYPE');
    own('name', 'TypeError');
    own('toString', [function (this: { name?: unknown; code?: unknown; message?: unknown }) { return `${String(this.name)} [${String(this.code)}]: ${String(this.message)}`; }][0]);
    throw error;
  }
}

const TIMER_ID = Symbol('timerId');

export class Timeout {
  readonly [TIMER_ID]: number;

  constructor(id: number) {
    this[TIMER_ID] = id;
  }

  ref(): this {
    setRef(this[TIMER_ID], true);
    return this;
  }

  unref(): this {
    setRef(this[TIMER_ID], false);
    return this;
  }

  hasRef(): boolean {
    return active.get(this[TIMER_ID])?.ref ?? false;
  }

  refresh(): this {
    const entry = active.get(this[TIMER_ID]);
    if (entry) {
      callSync('timer.cancel', { id: this[TIMER_ID] });
      arm(this[TIMER_ID], entry.delay);
    }
    return this;
  }

  close(): this {
    cancel(this[TIMER_ID]);
    return this;
  }

  [Symbol.toPrimitive](): number {
    return this[TIMER_ID];
  }
}

export class Immediate {
  readonly [TIMER_ID]: number;

  constructor(id: number) {
    this[TIMER_ID] = id;
  }

  ref(): this {
    setRef(this[TIMER_ID], true);
    return this;
  }

  unref(): this {
    setRef(this[TIMER_ID], false);
    return this;
  }

  hasRef(): boolean {
    return active.get(this[TIMER_ID])?.ref ?? false;
  }
}

function setRef(id: number, ref: boolean): void {
  const entry = active.get(id);
  if (!entry || entry.ref === ref) return;
  entry.ref = ref;
  callSync('timer.ref', { id, ref });
}

function start(callback: (...args: unknown[]) => void, args: unknown[], delay: number, repeat: boolean): Timeout {
  const id = nextId++;
  const handle = new Timeout(id);
  // Node's (and Deno 2's) `this` in a timer callback is its Timeout; Reflect.apply, as a callback
  // may have no prototype (and so no .apply).
  active.set(id, { repeat, ref: true, delay, run: () => Reflect.apply(callback, handle, args), handle });
  arm(id, delay);
  return handle;
}

export function setTimeout(callback: (...args: unknown[]) => void, ms?: number, ...args: unknown[]): Timeout {
  checkCallback(callback);
  return start(callback, args, normalizeDelay(ms), false);
}

export function setInterval(callback: (...args: unknown[]) => void, ms?: number, ...args: unknown[]): Timeout {
  checkCallback(callback);
  return start(callback, args, normalizeDelay(ms), true);
}

export function setImmediate(callback: (...args: unknown[]) => void, ...args: unknown[]): Immediate {
  checkCallback(callback);
  const id = nextId++;
  const handle = new Immediate(id);
  active.set(id, { repeat: false, ref: true, delay: 0, run: () => Reflect.apply(callback, handle, args), handle });
  arm(id, 0, true);
  return handle;
}

/** A timeout that does not keep the run alive (AbortSignal.timeout), with no 2^31 ms cap. */
export function setUnrefTimeout(callback: () => void, ms: number): number {
  const id = nextId++;
  const handle = new Timeout(id);
  active.set(id, { repeat: false, ref: false, delay: ms, run: callback, handle });
  arm(id, Math.max(0, ms));
  return id;
}

function idOf(value: unknown): number | undefined {
  if (value instanceof Timeout || value instanceof Immediate) return value[TIMER_ID];
  if (typeof value === 'number' || typeof value === 'string') return Number(value);
  return undefined;
}

// Two functions, as in Deno (`clearTimeout !== clearInterval`), that clear either kind.
export function clearTimeout(timer?: unknown): void {
  const id = idOf(timer);
  if (id !== undefined) cancel(id);
}

export function clearInterval(timer?: unknown): void {
  const id = idOf(timer);
  if (id !== undefined) cancel(id);
}

export function clearImmediate(immediate?: unknown): void {
  const id = idOf(immediate);
  if (id !== undefined) cancel(id);
}

/**
 * `Deno.refTimer` / `Deno.unrefTimer` name Deno's own timer ids, which setTimeout no longer
 * hands out in Deno 2 (its timers are Node's `Timeout` objects): for a script's timers
 * they change nothing there, and so here. `timeout.unref()` is the way that works.
 */
export function refTimer(_id: unknown): void {}

export function unrefTimer(_id: unknown): void {}

export function queueMicrotask(callback: () => void): void {
  if (typeof callback !== 'function') throw new TypeError("Failed to execute 'queueMicrotask' on 'Window': Argument 1 is not a function");
  Promise.resolve().then(() => {
    try {
      callback();
    } catch (error) {
      reportUncaught(error);
    }
  });
}
