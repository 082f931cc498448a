/**
 * `EventTarget` as the DOM standard has it: listener order, `once`, `signal`, `passive`,
 * capture de-duplication, `stopImmediatePropagation`, and a throwing listener reported as
 * an `error` event on the global scope (uncaught, ending the run, unless cancelled).
 */
import { reportUncaught } from '../../web/timers.ts';
import { PRIVATE_INSPECT, inspectAs } from '../../web/inspect.ts';
import { DOMException } from '../dom.ts';
import { ErrorEvent, Event, eventState, requireArgs } from './event.ts';

/** Set by abort.ts (which extends EventTarget, so it cannot be imported here first). */
export const signals = {
  isSignal: (_value: unknown): boolean => false,
  aborted: (_signal: unknown): boolean => false,
  follow: (_signal: unknown, _algorithm: () => void): void => undefined,
  /** A listener of `type` was added to or removed from `target` (an AbortSignal.timeout keeps the run alive while it has abort listeners). */
  changed: (_target: object, _type: string): void => undefined,
};

interface EventListenerOptions {
  capture?: boolean;
}

interface AddEventListenerOptions extends EventListenerOptions {
  once?: boolean;
  passive?: boolean;
  signal?: unknown;
}

type Callback = ((this: unknown, event: Event) => unknown) | { handleEvent(event: Event): unknown };

interface Listener {
  callback: Callback;
  capture: boolean;
  once: boolean;
  passive: boolean;
  removed: boolean;
}

const listenersOf = new WeakMap<object, Map<string, Listener[]>>();

function flatten(options: unknown): { capture: boolean; once: boolean; passive: boolean; signal: unknown } {
  if (typeof options === 'boolean') return { capture: options, once: false, passive: false, signal: undefined };
  if (options === null || typeof options !== 'object') return { capture: false, once: false, passive: false, signal: undefined };
  const o = options as { capture?: unknown; once?: unknown; passive?: unknown; signal?: unknown };
  const signal = o.signal;
  if (signal !== undefined && !signals.isSignal(signal)) {
    throw new TypeError("Failed to execute 'addEventListener' on 'EventTarget': member signal is not of type AbortSignal.");
  }
  return { capture: Boolean(o.capture), once: Boolean(o.once), passive: Boolean(o.passive), signal };
}

/** The exception a listener threw: an `error` event on the global scope, uncaught unless cancelled. */
export function reportException(error: unknown): void {
  const event = new ErrorEvent('error', {
    cancelable: true,
    message: `Uncaught ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`,
    error,
  });
  globalTarget.dispatchEvent(event);
  if (!event.defaultPrevented) reportUncaught(error);
}

export class EventTarget {
  constructor() {
    listenersOf.set(this, new Map());
  }

  addEventListener(type: string, callback: Callback | null, options?: boolean | AddEventListenerOptions): void {
    requireArgs(arguments.length, 2, 'addEventListener', 'EventTarget');
    const self = this ?? globalTarget;
    const map = mapOf(self);
    if (callback === null || callback === undefined) return;
    if (typeof callback !== 'function' && (typeof callback !== 'object')) {
      throw new TypeError("Failed to execute 'addEventListener' on 'EventTarget': parameter 2 is not of type 'Object'.");
    }
    const { capture, once, passive, signal } = flatten(options);
    if (signal !== undefined && signals.aborted(signal)) return;
    const key = String(type);
    const list = map.get(key) ?? [];
    if (list.some((l) => l.callback === callback && l.capture === capture)) return;
    const listener: Listener = { callback, capture, once, passive, removed: false };
    list.push(listener);
    map.set(key, list);
    if (signal !== undefined) signals.follow(signal, () => self.removeEventListener(key, callback, { capture }));
    signals.changed(self, key);
  }

  removeEventListener(type: string, callback: Callback | null, options?: boolean | EventListenerOptions): void {
    requireArgs(arguments.length, 2, 'removeEventListener', 'EventTarget');
    const self = this ?? globalTarget;
    const map = mapOf(self);
    const list = map.get(String(type));
    if (!list || callback === null) return;
    const capture = typeof options === 'boolean' ? options : Boolean((options as EventListenerOptions | undefined)?.capture);
    const at = list.findIndex((l) => l.callback === callback && l.capture === capture);
    if (at === -1) return;
    list[at]!.removed = true;
    list.splice(at, 1);
    signals.changed(self, String(type));
  }

  dispatchEvent(event: Event): boolean {
    requireArgs(arguments.length, 1, 'dispatchEvent', 'EventTarget');
    const self = this ?? globalTarget;
    mapOf(self);
    // Deno's own words for a non-Event (it fails setting the target on it)
    if (!(event instanceof Event)) throw new TypeError("Cannot set properties of undefined (setting 'target')");
    const state = eventState(event);
    if (state.dispatching || !state.initialized) throw new DOMException('Invalid event state', 'InvalidStateError');
    state.dispatching = true;
    state.target = self;
    state.currentTarget = self;
    state.phase = 2;
    try {
      const list = mapOf(self).get(event.type);
      if (list) {
        for (const listener of [...list]) {
          if (listener.removed) continue;
          if (state.stopImmediate) break;
          if (listener.once) self.removeEventListener(event.type, listener.callback, { capture: listener.capture });
          state.inPassive = listener.passive;
          try {
            if (typeof listener.callback === 'function') listener.callback.call(self, event);
            else {
              const handle = (listener.callback as { handleEvent?: unknown }).handleEvent;
              if (typeof handle !== 'function') throw new TypeError("'handleEvent' property of event listener should be a function");
              handle.call(listener.callback, event);
            }
          } catch (error) {
            reportException(error);
          } finally {
            state.inPassive = false;
          }
        }
      }
    } finally {
      state.dispatching = false;
      state.phase = 0;
      state.currentTarget = null;
      state.stopPropagation = false;
      state.stopImmediate = false;
    }
    return !event.defaultPrevented;
  }

  get [Symbol.toStringTag](): string {
    return 'EventTarget';
  }
}

/** How many listeners `target` has for `type` (an `on<type>` handler that was ever set counts, as in Deno). */
export function listenerCount(target: object, type: string): number {
  return listenersOf.get(target)?.get(type)?.length ?? 0;
}

/** The listeners of an EventTarget; anything else (not made by the constructor, not the global scope) is refused as Deno refuses it. */
function mapOf(target: object): Map<string, Listener[]> {
  let map = listenersOf.get(target);
  if (!map) {
    if (target !== (globalTarget as object)) throw new TypeError('Illegal invocation');
    map = new Map();
    listenersOf.set(target, map);
  }
  return map;
}

/** `on<type>` attributes (`signal.onabort`, `globalThis.onerror`): one listener slot each. */
export function defineEventHandler(proto: object, type: string): void {
  const slots = new WeakMap<object, { handler: ((e: Event) => unknown) | null; listener: (e: Event) => void }>();
  Object.defineProperty(proto, `on${type}`, {
    configurable: true,
    enumerable: true,
    get(this: object) {
      return slots.get(this ?? globalThis)?.handler ?? null;
    },
    set(this: object, value: unknown) {
      const self = (this ?? globalThis) as EventTarget;
      let slot = slots.get(self);
      // As Deno's: the listener is added by the first handler set (null adds none), and stays
      if (!slot && (typeof value === 'function' || (typeof value === 'object' && value !== null))) {
        const created: { handler: ((e: Event) => unknown) | null; listener: (e: Event) => void } = {
          handler: null,
          listener: (event) => {
            const result = created.handler?.call(self, event);
            if (result === false) event.preventDefault();
          },
        };
        slot = created;
        slots.set(self, slot);
        EventTarget.prototype.addEventListener.call(self, type, slot.listener);
      }
      if (slot) slot.handler = typeof value === 'function' ? (value as (e: Event) => unknown) : null;
    },
  });
}

Object.defineProperty(EventTarget.prototype, PRIVATE_INSPECT, {
  value(this: EventTarget) {
    return inspectAs(this.constructor === EventTarget ? 'EventTarget' : (this.constructor as { name: string }).name, {});
  },
});

// The global scope is an event target in Deno (it is the `Window`).
const globalTarget = globalThis as unknown as EventTarget;
listenersOf.set(globalThis, new Map());
