/**
 * The global scope as Deno shapes it: `globalThis` is a `Window` whose prototype chain
 * reaches `EventTarget.prototype` (so `addEventListener` is inherited, not an own global),
 * with `navigator`, `location` (undefined without --location), `name` and `closed`. The
 * events part is loaded only when a script first touches an event method through the chain.
 */
import { callSync } from './host.ts';
import { requirePart } from './parts-loader.ts';
import { DENO_VERSION } from './deno/namespace.ts';
import { unsupportedError } from './unsupported.ts';

const EVENT_METHODS = ['addEventListener', 'removeEventListener', 'dispatchEvent'] as const;

function illegalConstructor(name: string): Function {
  const ctor = function (): never {
    throw new TypeError('Illegal constructor');
  };
  Object.defineProperty(ctor, 'name', { value: name });
  return ctor;
}

function defineValue(target: object, name: PropertyKey, value: unknown, enumerable = false): void {
  Object.defineProperty(target, name, { value, writable: true, configurable: true, enumerable });
}

export function installWindow(): void {
  const g = globalThis as Record<string, unknown>;
  const Window = illegalConstructor('Window');
  const windowProto = Object.create(null) as object;
  defineValue(windowProto, 'constructor', Window);
  Object.defineProperty(windowProto, Symbol.toStringTag, { value: 'Window', configurable: true });
  (Window as { prototype: object }).prototype = windowProto;

  // Until the events part loads, the event methods sit on a stand-in for EventTarget.prototype;
  // once loaded, Window.prototype inherits from the real one and the stand-in drops out.
  const standIn = Object.create(Object.prototype) as object;
  let loaded = false;
  const load = (): void => {
    if (loaded) return;
    loaded = true;
    const { EventTarget } = requirePart<{ EventTarget: { prototype: object } }>('events');
    Object.setPrototypeOf(windowProto, EventTarget.prototype);
  };
  for (const name of EVENT_METHODS) {
    Object.defineProperty(standIn, name, {
      configurable: true,
      get(this: unknown) {
        load();
        return Reflect.get(EventTargetPrototype(), name, this);
      },
    });
  }
  Object.setPrototypeOf(windowProto, standIn);
  Object.setPrototypeOf(globalThis, windowProto);
  defineValue(globalThis, 'Window', Window);

  const Location = illegalConstructor('Location');
  defineValue(globalThis, 'Location', Location);
  defineValue(globalThis, 'location', undefined);
  defineValue(globalThis, 'name', '', true);
  Object.defineProperty(globalThis, 'closed', { get: () => false, configurable: true, enumerable: true });

  const Navigator = illegalConstructor('Navigator');
  const NavigatorUAData = illegalConstructor('NavigatorUAData');
  defineValue(globalThis, 'Navigator', Navigator);
  defineValue(globalThis, 'NavigatorUAData', NavigatorUAData);
  const navigator = Object.create(Navigator.prototype as object) as object;
  const getters: Record<string, () => unknown> = {
    hardwareConcurrency: () => callSync<number>('sys.parallelism', {}),
    userAgent: () => `Deno/${DENO_VERSION.deno}`,
    language: () => 'en-US',
    languages: () => ['en-US'],
    platform: () => 'Linux x86_64',
    userAgentData: () => Object.freeze(Object.assign(Object.create(NavigatorUAData.prototype as object) as object, { brands: [{ brand: 'Deno', version: DENO_VERSION.deno.split('.')[0] }], mobile: false, platform: 'Linux' })),
    gpu: () => {
      throw unsupportedError('navigator.gpu');
    },
    locks: () => {
      throw unsupportedError('navigator.locks');
    },
  };
  for (const [name, get] of Object.entries(getters)) Object.defineProperty(Navigator.prototype, name, { get, configurable: true, enumerable: true });
  Object.defineProperty(globalThis, 'navigator', { get: () => navigator, configurable: true, enumerable: true });
  void g;
}

function EventTargetPrototype(): object {
  return (requirePart<{ EventTarget: { prototype: object } }>('events').EventTarget).prototype;
}
