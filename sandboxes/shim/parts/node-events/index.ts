/**
 * `node:events`: Node's EventEmitter (the same fields and order, `errorMonitor`,
 * `captureRejections`, `once`/`on` with AbortSignal, `getEventListeners`), written after
 * Node's lib/events.js. Pure code; every part that needs an emitter (streams, process,
 * child_process) shares this one class.
 */
import { invalidArgType, nodeError, validateFunction } from '../node-errors/index.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- listeners take whatever the emitter passes
type Listener = ((...args: any[]) => unknown) & { listener?: Listener };
type Events = Record<string | symbol, Listener | Listener[] | undefined>;

const kCapture = Symbol('kCapture');
export const errorMonitor = Symbol('events.errorMonitor');
export const captureRejectionSymbol = Symbol.for('nodejs.rejection');
const kRejection = captureRejectionSymbol;
let defaultMaxListeners = 10;
let captureRejections = false;

interface EmitterFields {
  _events: Events;
  _eventsCount: number;
  _maxListeners: number | undefined;
  [kCapture]: boolean;
}

function checkListener(listener: unknown): asserts listener is Listener {
  validateFunction(listener, 'listener');
}

export interface EventEmitter extends EmitterFields {
  [key: string | symbol]: unknown;
  setMaxListeners(n: number): this;
  getMaxListeners(): number;
  emit(type: string | symbol, ...args: unknown[]): boolean;
  addListener(type: string | symbol, listener: Listener): this;
  on(type: string | symbol, listener: Listener): this;
  prependListener(type: string | symbol, listener: Listener): this;
  once(type: string | symbol, listener: Listener): this;
  prependOnceListener(type: string | symbol, listener: Listener): this;
  removeListener(type: string | symbol, listener: Listener): this;
  off(type: string | symbol, listener: Listener): this;
  removeAllListeners(type?: string | symbol): this;
  listeners(type: string | symbol): Listener[];
  rawListeners(type: string | symbol): Listener[];
  listenerCount(type: string | symbol, listener?: Listener): number;
  eventNames(): (string | symbol)[];
}

interface EventEmitterConstructor {
  new (opts?: { captureRejections?: boolean }): EventEmitter;
  (this: EventEmitter, opts?: { captureRejections?: boolean }): void;
  prototype: EventEmitter;
  init(this: EventEmitter, opts?: { captureRejections?: boolean }): void;
  listenerCount(emitter: EventEmitter, type: string | symbol): number;
  defaultMaxListeners: number;
  captureRejections: boolean;
  errorMonitor: symbol;
  captureRejectionSymbol: symbol;
  EventEmitter: EventEmitterConstructor;
  usingDomains: boolean;
}

/**
 * A function, not a class, as Node's is: streams and old packages call it on their own
 * instances (`EventEmitter.call(this)`).
 */
function EventEmitterFunction(this: EventEmitter, opts?: { captureRejections?: boolean }): void {
  EventEmitter.init.call(this, opts);
}
// the name Node's has (console.log shows `EventEmitter {...}`)
Object.defineProperty(EventEmitterFunction, 'name', { value: 'EventEmitter' });
export const EventEmitter = EventEmitterFunction as unknown as EventEmitterConstructor;

EventEmitter.init = function init(this: EventEmitter, opts?: { captureRejections?: boolean }): void {
  if (this._events === undefined || this._events === (Object.getPrototypeOf(this) as EventEmitter)._events) {
    this._events = Object.create(null) as Events;
    this._eventsCount = 0;
  }
  this._maxListeners = this._maxListeners || undefined;
  if (opts?.captureRejections !== undefined) {
    if (typeof opts.captureRejections !== 'boolean') throw invalidArgType('options.captureRejections', 'of type boolean', opts.captureRejections);
    this[kCapture] = Boolean(opts.captureRejections);
  } else {
    this[kCapture] = EventEmitter.prototype[kCapture];
  }
};

Object.defineProperties(EventEmitter, {
  defaultMaxListeners: {
    enumerable: true,
    get: () => defaultMaxListeners,
    set: (n: number) => {
      if (typeof n !== 'number' || n < 0 || Number.isNaN(n)) {
        throw nodeError(RangeError, 'ERR_OUT_OF_RANGE', `The value of "defaultMaxListeners" is out of range. It must be a non-negative number. Received ${String(n)}`);
      }
      defaultMaxListeners = n;
    },
  },
  captureRejections: {
    enumerable: true,
    get: () => captureRejections,
    set: (value: boolean) => {
      if (typeof value !== 'boolean') throw invalidArgType('EventEmitter.captureRejections', 'of type boolean', value);
      captureRejections = value;
      EventEmitter.prototype[kCapture] = value;
    },
  },
  errorMonitor: { value: errorMonitor, enumerable: true, writable: false, configurable: false },
  captureRejectionSymbol: { value: captureRejectionSymbol, enumerable: true, writable: false, configurable: false },
});

EventEmitter.listenerCount = (emitter: EventEmitter, type: string | symbol): number => emitter.listenerCount(type);

const methods: ThisType<EventEmitter> & Record<string, unknown> = {
  setMaxListeners(n: number) {
    if (typeof n !== 'number' || n < 0 || Number.isNaN(n)) {
      throw nodeError(RangeError, 'ERR_OUT_OF_RANGE', `The value of "n" is out of range. It must be a non-negative number. Received ${String(n)}`);
    }
    this._maxListeners = n;
    return this;
  },

  getMaxListeners() {
    return this._maxListeners === undefined ? defaultMaxListeners : this._maxListeners;
  },

  emit(type: string | symbol, ...args: unknown[]) {
    let doError = type === 'error';
    const events = this._events;
    if (events !== undefined) {
      if (doError && events[errorMonitor] !== undefined) this.emit(errorMonitor, ...args);
      doError = doError && events.error === undefined;
    } else if (!doError) return false;
    if (doError) {
      const er = args[0];
      if (er instanceof Error) throw er;
      const error = nodeError(Error, 'ERR_UNHANDLED_ERROR', `Unhandled error. (${inspectForError(er)})`) as Error & { context?: unknown };
      error.context = er;
      throw error;
    }
    const handler = events![type];
    if (handler === undefined) return false;
    if (typeof handler === 'function') {
      const result = handler.apply(this, args);
      if (result !== undefined && result !== null) addCatch(this, result, type, args);
    } else {
      for (const listener of handler.slice()) {
        const result = listener.apply(this, args);
        if (result !== undefined && result !== null) addCatch(this, result, type, args);
      }
    }
    return true;
  },

  addListener(type: string | symbol, listener: Listener) {
    return addListener(this, type, listener, false);
  },

  prependListener(type: string | symbol, listener: Listener) {
    return addListener(this, type, listener, true);
  },

  once(type: string | symbol, listener: Listener) {
    checkListener(listener);
    this.on(type, onceWrap(this, type, listener));
    return this;
  },

  prependOnceListener(type: string | symbol, listener: Listener) {
    checkListener(listener);
    this.prependListener(type, onceWrap(this, type, listener));
    return this;
  },

  removeListener(type: string | symbol, listener: Listener) {
    checkListener(listener);
    const events = this._events;
    if (events === undefined) return this;
    const list = events[type];
    if (list === undefined) return this;
    if (list === listener || (list as Listener).listener === listener) {
      this._eventsCount -= 1;
      if (this[kCapture] === true && this._eventsCount === 0) this._events = Object.create(null) as Events;
      else {
        delete events[type];
        if (events.removeListener) this.emit('removeListener', type, (list as Listener).listener ?? listener);
      }
    } else if (typeof list !== 'function') {
      let position = -1;
      for (let i = list.length - 1; i >= 0; i--) {
        if (list[i] === listener || list[i]!.listener === listener) {
          position = i;
          break;
        }
      }
      if (position < 0) return this;
      if (position === 0) list.shift();
      else list.splice(position, 1);
      if (list.length === 1) events[type] = list[0];
      if (events.removeListener !== undefined) this.emit('removeListener', type, listener);
    }
    return this;
  },

  removeAllListeners(type?: string | symbol) {
    const events = this._events;
    if (events === undefined) return this;
    if (events.removeListener === undefined) {
      if (type === undefined) {
        this._events = Object.create(null) as Events;
        this._eventsCount = 0;
      } else if (events[type] !== undefined) {
        if (--this._eventsCount === 0) this._events = Object.create(null) as Events;
        else delete events[type];
      }
      return this;
    }
    if (type === undefined) {
      for (const key of Reflect.ownKeys(events)) {
        if (key === 'removeListener') continue;
        this.removeAllListeners(key);
      }
      this.removeAllListeners('removeListener');
      this._events = Object.create(null) as Events;
      this._eventsCount = 0;
      return this;
    }
    const listeners = events[type];
    if (typeof listeners === 'function') this.removeListener(type, listeners);
    else if (listeners !== undefined) for (let i = listeners.length - 1; i >= 0; i--) this.removeListener(type, listeners[i]!);
    return this;
  },

  listeners(type: string | symbol) {
    return listenersOf(this, type, true);
  },

  rawListeners(type: string | symbol) {
    return listenersOf(this, type, false);
  },

  listenerCount(type: string | symbol, listener?: Listener) {
    const events = this._events;
    if (events === undefined) return 0;
    const found = events[type];
    if (typeof found === 'function') return listener === undefined || found === listener || found.listener === listener ? 1 : 0;
    if (found === undefined) return 0;
    if (listener === undefined) return found.length;
    return found.filter((l) => l === listener || l.listener === listener).length;
  },

  eventNames() {
    return this._eventsCount > 0 ? Reflect.ownKeys(this._events) : [];
  },
};
methods.on = methods.addListener;
methods.off = methods.removeListener;
for (const [name, fn] of Object.entries(methods)) {
  Object.defineProperty(EventEmitter.prototype, name, { value: fn, writable: true, configurable: true, enumerable: true });
}

EventEmitter.EventEmitter = EventEmitter;
EventEmitter.usingDomains = false;
Object.defineProperties(EventEmitter.prototype, {
  _events: { value: undefined, writable: true, configurable: true, enumerable: false },
  _eventsCount: { value: 0, writable: true, configurable: true, enumerable: false },
  _maxListeners: { value: undefined, writable: true, configurable: true, enumerable: false },
  [kCapture]: { value: false, writable: true, configurable: true, enumerable: false },
});

function inspectForError(value: unknown): string {
  try {
    return typeof value === 'string' ? `'${value}'` : (globalThis as unknown as { Deno: { inspect(v: unknown): string } }).Deno.inspect(value);
  } catch {
    return String(value);
  }
}

function addCatch(that: EventEmitter, promise: unknown, type: string | symbol, args: unknown[]): void {
  if (!that[kCapture]) return;
  try {
    const then = (promise as { then?: unknown }).then;
    if (typeof then === 'function') {
      then.call(promise, undefined, (err: unknown) => {
        queueMicrotask(() => emitUnhandledRejectionOrErr(that, err, type, args));
      });
    }
  } catch (err) {
    that.emit('error', err);
  }
}

function emitUnhandledRejectionOrErr(ee: EventEmitter, err: unknown, type: string | symbol, args: unknown[]): void {
  const handler = ee[kRejection];
  if (typeof handler === 'function') {
    (handler as (...a: unknown[]) => void).call(ee, err, type, ...args);
  } else {
    const prev = ee[kCapture];
    try {
      ee[kCapture] = false;
      ee.emit('error', err);
    } finally {
      ee[kCapture] = prev;
    }
  }
}

function addListener(target: EventEmitter, type: string | symbol, listener: Listener, prepend: boolean): EventEmitter {
  checkListener(listener);
  let events = target._events;
  let existing: Listener | Listener[] | undefined;
  if (events === undefined) {
    events = target._events = Object.create(null) as Events;
    target._eventsCount = 0;
  } else {
    if (events.newListener !== undefined) {
      target.emit('newListener', type, listener.listener ?? listener);
      events = target._events;
    }
    existing = events[type];
  }
  if (existing === undefined) {
    events[type] = listener;
    ++target._eventsCount;
  } else {
    if (typeof existing === 'function') existing = events[type] = prepend ? [listener, existing] : [existing, listener];
    else if (prepend) existing.unshift(listener);
    else existing.push(listener);
    const max = target.getMaxListeners();
    const list = existing as Listener[] & { warned?: boolean };
    if (max > 0 && list.length > max && !list.warned) {
      list.warned = true;
      const name = typeof type === 'symbol' ? type.toString() : type;
      const warning = `Possible EventEmitter memory leak detected. ${list.length} ${name} listeners added to ${describeTarget(target)}. MaxListeners is ${max}. Use emitter.setMaxListeners() to increase limit`;
      const w = Object.assign(new Error(warning), { name: 'MaxListenersExceededWarning', emitter: target, type, count: list.length });
      emitWarning(w);
    }
  }
  return target;
}

function describeTarget(target: EventEmitter): string {
  const name = (target.constructor as { name?: string } | undefined)?.name;
  return name ? `[${name}]` : 'EventEmitter';
}

let warn: ((warning: Error) => void) | undefined;

/** process.emitWarning, once the process module is loaded; until then the warning is printed. */
export function setWarningSink(sink: (warning: Error) => void): void {
  warn = sink;
}

function emitWarning(warning: Error): void {
  if (warn) warn(warning);
  else console.error(`(node) ${warning.name}: ${warning.message}`);
}

function onceWrap(target: EventEmitter, type: string | symbol, listener: Listener): Listener {
  const state = { fired: false, wrapFn: undefined as unknown as Listener, target, type, listener };
  const wrapped = function (this: unknown, ...args: unknown[]): unknown {
    if (!state.fired) {
      state.target.removeListener(state.type, state.wrapFn);
      state.fired = true;
      return state.listener.apply(state.target, args);
    }
    return undefined;
  } as Listener;
  wrapped.listener = listener;
  state.wrapFn = wrapped;
  return wrapped;
}

function listenersOf(target: EventEmitter, type: string | symbol, unwrap: boolean): Listener[] {
  const events = target._events;
  if (events === undefined) return [];
  const found = events[type];
  if (found === undefined) return [];
  if (typeof found === 'function') return unwrap ? [found.listener ?? found] : [found];
  return unwrap ? found.map((l) => l.listener ?? l) : found.slice();
}

// ---- statics over emitters and EventTargets --------------------------------------------

interface EventTargetLike {
  addEventListener(type: string, listener: (e: unknown) => void, options?: unknown): void;
  removeEventListener(type: string, listener: (e: unknown) => void, options?: unknown): void;
}

interface AbortSignalLike {
  aborted: boolean;
  reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: unknown): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

function abortError(signal?: AbortSignalLike): Error {
  const error = nodeError(Error, 'ABORT_ERR', 'The operation was aborted') as Error & { cause?: unknown };
  error.name = 'AbortError';
  if (signal) error.cause = signal.reason;
  return error;
}

function isEventTarget(value: unknown): value is EventTargetLike {
  return typeof (value as EventTargetLike)?.addEventListener === 'function' && !(value instanceof EventEmitter);
}

export function once(emitter: EventEmitter | EventTargetLike, name: string | symbol, options: { signal?: AbortSignalLike } = {}): Promise<unknown[]> {
  const signal = options?.signal;
  if (signal?.aborted) return Promise.reject(abortError(signal));
  return new Promise((resolve, reject) => {
    const cleanup: (() => void)[] = [];
    const done = () => cleanup.forEach((f) => f());
    if (isEventTarget(emitter)) {
      const listener = (event: unknown) => {
        done();
        resolve([event]);
      };
      emitter.addEventListener(String(name), listener, { once: true });
      cleanup.push(() => emitter.removeEventListener(String(name), listener));
    } else {
      const resolver = (...args: unknown[]) => {
        done();
        resolve(args);
      };
      const errorListener = (err: unknown) => {
        done();
        reject(err);
      };
      emitter.once(name, resolver);
      cleanup.push(() => emitter.removeListener(name, resolver));
      if (name !== 'error') {
        emitter.once('error', errorListener);
        cleanup.push(() => emitter.removeListener('error', errorListener));
      }
    }
    if (signal) {
      const onAbort = () => {
        done();
        reject(abortError(signal));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      cleanup.push(() => signal.removeEventListener('abort', onAbort));
    }
  });
}

/** `events.on`: an async iterator of the emitter's `name` events (each an array of args). */
export function on(emitter: EventEmitter, name: string | symbol, options: { signal?: AbortSignalLike } = {}): AsyncIterableIterator<unknown[]> {
  const signal = options?.signal;
  if (signal?.aborted) throw abortError(signal);
  const unconsumed: unknown[][] = [];
  const waiting: { resolve: (r: IteratorResult<unknown[]>) => void; reject: (e: unknown) => void }[] = [];
  let error: unknown = null;
  let finished = false;
  const handler = (...args: unknown[]) => {
    const next = waiting.shift();
    if (next) next.resolve({ value: args, done: false });
    else unconsumed.push(args);
  };
  const errorHandler = (err: unknown) => {
    finished = true;
    const next = waiting.shift();
    if (next) next.reject(err);
    else error = err;
    void iterator.return!();
  };
  const onAbort = () => errorHandler(abortError(signal));
  emitter.on(name, handler);
  if (name !== 'error') emitter.on('error', errorHandler);
  signal?.addEventListener('abort', onAbort, { once: true });
  const iterator: AsyncIterableIterator<unknown[]> = {
    next() {
      const value = unconsumed.shift();
      if (value) return Promise.resolve({ value, done: false });
      if (error) {
        const p = Promise.reject(error);
        error = null;
        return p;
      }
      if (finished) return Promise.resolve({ value: undefined, done: true });
      return new Promise((resolve, reject) => waiting.push({ resolve, reject }));
    },
    return() {
      emitter.removeListener(name, handler);
      emitter.removeListener('error', errorHandler);
      signal?.removeEventListener('abort', onAbort);
      finished = true;
      for (const w of waiting.splice(0)) w.resolve({ value: undefined, done: true });
      return Promise.resolve({ value: undefined, done: true });
    },
    throw(err: unknown) {
      errorHandler(err);
      return Promise.reject(err);
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}

export function getEventListeners(target: EventEmitter | EventTargetLike, name: string | symbol): unknown[] {
  if (target instanceof EventEmitter || typeof (target as unknown as EventEmitter).listeners === 'function') return (target as unknown as EventEmitter).listeners(name);
  return [];
}

export function getMaxListeners(target: EventEmitter): number {
  return typeof target?.getMaxListeners === 'function' ? target.getMaxListeners() : defaultMaxListeners;
}

export function setMaxListeners(n = defaultMaxListeners, ...targets: EventEmitter[]): void {
  if (typeof n !== 'number' || n < 0 || Number.isNaN(n)) {
    throw nodeError(RangeError, 'ERR_OUT_OF_RANGE', `The value of "n" is out of range. It must be a non-negative number. Received ${String(n)}`);
  }
  if (targets.length === 0) defaultMaxListeners = n;
  else for (const t of targets) if (typeof t?.setMaxListeners === 'function') t.setMaxListeners(n);
}

export function addAbortListener(signal: AbortSignalLike, listener: () => void): { [Symbol.dispose](): void } {
  if (signal === undefined) throw invalidArgType('signal', 'an instance of AbortSignal', signal);
  validateFunction(listener, 'listener');
  let removed = false;
  const remove = () => {
    if (!removed) signal.removeEventListener('abort', listener);
    removed = true;
  };
  if (signal.aborted) queueMicrotask(listener);
  else signal.addEventListener('abort', listener, { once: true });
  return { [Symbol.dispose ?? Symbol.for('Symbol.dispose')]: remove } as { [Symbol.dispose](): void };
}

const events = EventEmitter as unknown as Record<string, unknown>;
Object.assign(events, { once, on, getEventListeners, getMaxListeners, setMaxListeners, addAbortListener });
Object.defineProperty(events, 'default', { value: EventEmitter, enumerable: false, configurable: true, writable: true });

export const modules = { events: EventEmitter };
