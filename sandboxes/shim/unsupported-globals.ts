/**
 * Globals Deno has that the sandbox does not provide: each is present and, when used,
 * throws RTC_ERR_UNSUPPORTED naming it (unsupported.ts). Constructors and functions throw
 * when called; namespace objects (`localStorage`, `Temporal`, `caches`) throw on the first
 * property a script reads. Node's compatibility globals `process` and `Buffer` stay
 * absent: packages test `typeof process` and take their web path.
 */
import { unsupportedError, unsupportedFunction } from './unsupported.ts';

const FUNCTIONS = [
  'WebSocket', 'WebSocketStream', 'Worker', 'BroadcastChannel', 'MessageChannel', 'MessagePort', 'EventSource', 'URLPattern',
  'Storage', 'Cache', 'CacheStorage', 'Lock', 'LockManager', 'ImageData', 'ImageBitmap', 'OffscreenCanvas',
  'createImageBitmap', 'alert', 'confirm', 'prompt', 'close', 'GPU',
];

const NAMESPACES = ['localStorage', 'sessionStorage', 'caches', 'Temporal'];

function unsupportedNamespace(name: string): object {
  return new Proxy(Object.create(null) as object, {
    get(_target, key) {
      if (typeof key === 'symbol' || key === 'then') return undefined;
      throw unsupportedError(`${name}.${key}`);
    },
    set(_target, key) {
      throw unsupportedError(`${name}.${String(key)}`);
    },
  });
}

export function installUnsupportedGlobals(): void {
  const define = (name: string, value: unknown): void => {
    if (Object.prototype.hasOwnProperty.call(globalThis, name)) return;
    Object.defineProperty(globalThis, name, { value, writable: true, configurable: true, enumerable: false });
  };
  for (const name of FUNCTIONS) define(name, unsupportedFunction(name));
  for (const name of NAMESPACES) define(name, unsupportedNamespace(name));
  define('global', globalThis);
}
