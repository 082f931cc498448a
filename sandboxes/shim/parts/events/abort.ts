/**
 * `AbortController` and `AbortSignal` (`abort`, `timeout`, `any`, `throwIfAborted`), with
 * Deno's reasons: `AbortError: The signal has been aborted` and `TimeoutError: The
 * operation was aborted due to timeout`. A timeout's timer keeps the run alive only while
 * someone listens for its abort (on it, or on a signal `AbortSignal.any` made from it), as
 * in Deno: a timeout nobody waits for does not hold the run open.
 */
import { refInternalTimer, setUnrefTimeout } from '../../web/timers.ts';
import { PRIVATE_INSPECT, inspectAs } from '../../web/inspect.ts';
import { DOMException } from '../dom.ts';
import { Event } from './event.ts';
import { EventTarget, defineEventHandler, listenerCount, signals } from './target.ts';

const ILLEGAL = Symbol('internal');

interface SignalState {
  aborted: boolean;
  reason: unknown;
  algorithms: Set<() => void>;
  /** for AbortSignal.any: the signals this one follows aborts with */
  dependents: Set<WeakRef<AbortSignal>>;
  /** AbortSignal.timeout's timer (the shim's internal id) */
  timer: number | null;
  /** for a signal AbortSignal.any made: the signals it follows */
  sources: AbortSignal[] | null;
}

const states = new WeakMap<object, SignalState>();

function stateOf(signal: unknown): SignalState {
  const state = states.get(signal as object);
  if (!state) throw new TypeError('Illegal invocation');
  return state;
}

export class AbortSignal extends EventTarget {
  // Rest parameters keep `AbortSignal.length` 0, as in Deno.
  constructor(...key: [symbol?]) {
    if (key[0] !== ILLEGAL) throw new TypeError('Illegal constructor');
    super();
    states.set(this, { aborted: false, reason: undefined, algorithms: new Set(), dependents: new Set(), timer: null, sources: null });
  }

  static abort(reason?: unknown): AbortSignal {
    const signal = new AbortSignal(ILLEGAL);
    const state = stateOf(signal);
    state.aborted = true;
    state.reason = reason === undefined ? new DOMException('The signal has been aborted', 'AbortError') : reason;
    return signal;
  }

  static timeout(ms: number): AbortSignal {
    if (arguments.length < 1) throw new TypeError("Failed to execute 'timeout' on 'AbortSignal': 1 argument required, but only 0 present");
    const delay = Number(ms);
    if (!Number.isFinite(delay) || delay < 0 || delay > Number.MAX_SAFE_INTEGER) {
      throw new TypeError(`Failed to execute 'AbortSignal.timeout': Argument 1 is not a finite number or is out of range`);
    }
    const signal = new AbortSignal(ILLEGAL);
    const state = stateOf(signal);
    state.timer = setUnrefTimeout(() => {
      state.timer = null;
      abortSignal(signal, new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
    }, Math.trunc(delay));
    return signal;
  }

  static any(signals: Iterable<AbortSignal>): AbortSignal {
    const list = [...signals];
    for (const s of list) if (!(s instanceof AbortSignal)) throw new TypeError("Failed to execute 'AbortSignal.any': Argument 1 can not be converted to a sequence.");
    const result = new AbortSignal(ILLEGAL);
    const aborted = list.find((s) => s.aborted);
    if (aborted) {
      const state = stateOf(result);
      state.aborted = true;
      state.reason = aborted.reason;
      return result;
    }
    for (const source of list) stateOf(source).dependents.add(new WeakRef(result));
    stateOf(result).sources = list;
    return result;
  }

  get aborted(): boolean {
    return stateOf(this).aborted;
  }

  get reason(): unknown {
    return stateOf(this).reason;
  }

  throwIfAborted(): void {
    const state = stateOf(this);
    if (state.aborted) throw state.reason;
  }

  override get [Symbol.toStringTag](): string {
    return 'AbortSignal';
  }

  [PRIVATE_INSPECT](): unknown {
    return inspectAs('AbortSignal', { aborted: this.aborted, reason: this.reason, onabort: (this as unknown as { onabort: unknown }).onabort });
  }
}
defineEventHandler(AbortSignal.prototype, 'abort');

/** Aborts `signal` (a no-op when it already is): algorithms first, then the `abort` event, then dependents. */
export function abortSignal(signal: AbortSignal, reason?: unknown): void {
  const state = stateOf(signal);
  if (state.aborted) return;
  state.aborted = true;
  state.reason = reason === undefined ? new DOMException('The signal has been aborted', 'AbortError') : reason;
  const algorithms = [...state.algorithms];
  state.algorithms.clear();
  for (const run of algorithms) run();
  signal.dispatchEvent(new Event('abort'));
  for (const ref of state.dependents) {
    const dependent = ref.deref();
    if (dependent) abortSignal(dependent, state.reason);
  }
  state.dependents.clear();
}

/** Runs `algorithm` when `signal` aborts (fetch, streams and listeners use this, not the event). */
export function followSignal(signal: AbortSignal, algorithm: () => void): () => void {
  const state = stateOf(signal);
  state.algorithms.add(algorithm);
  return () => state.algorithms.delete(algorithm);
}

/** A signal that only the shim can abort (for Request objects and the like). */
export function newAbortSignal(): AbortSignal {
  return new AbortSignal(ILLEGAL);
}

/** Whether anyone waits for `signal`'s abort: a listener on it, or on a signal AbortSignal.any made from it. */
function awaited(signal: AbortSignal): boolean {
  if (listenerCount(signal, 'abort') > 0) return true;
  for (const ref of stateOf(signal).dependents) {
    const dependent = ref.deref();
    if (dependent && listenerCount(dependent, 'abort') > 0) return true;
  }
  return false;
}

/** A timeout's timer keeps the run alive while its abort is awaited. */
function updateTimerRef(signal: AbortSignal): void {
  const state = stateOf(signal);
  if (state.timer !== null) refInternalTimer(state.timer, awaited(signal));
}

signals.changed = (target, type) => {
  if (type !== 'abort' || !(target instanceof AbortSignal)) return;
  const state = stateOf(target);
  if (state.timer !== null) updateTimerRef(target);
  for (const source of state.sources ?? []) updateTimerRef(source);
};
signals.isSignal = (value) => value instanceof AbortSignal;
signals.aborted = (value) => (value as AbortSignal).aborted;
signals.follow = (value, algorithm) => void followSignal(value as AbortSignal, algorithm);

export class AbortController {
  readonly #signal = new AbortSignal(ILLEGAL);

  get signal(): AbortSignal {
    return this.#signal;
  }

  abort(reason?: unknown): void {
    abortSignal(this.#signal, reason);
  }

  get [Symbol.toStringTag](): string {
    return 'AbortController';
  }

  [PRIVATE_INSPECT](): unknown {
    return inspectAs('AbortController', { signal: this.#signal });
  }
}
