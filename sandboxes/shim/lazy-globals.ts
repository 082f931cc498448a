/**
 * Which names load which shim part (parts-loader.ts). Every name is present from the start
 * (`typeof ReadableStream` is "function", `"fetch" in globalThis` is true), but the part
 * behind it is evaluated only when a script first touches one of its names.
 */
import { defineGlobal, defineLazy, requirePart } from './parts-loader.ts';
import { nodeRequire } from './node-require.ts';

/** `on<type>` handler attributes of the global scope (the events part defines them). */
export const EVENT_HANDLER_TYPES = ['error', 'load', 'beforeunload', 'unload', 'unhandledrejection'] as const;

const GLOBAL_PARTS: Record<string, readonly string[]> = {
  url: ['URL', 'URLSearchParams'],
  dom: ['DOMException', 'QuotaExceededError', 'structuredClone'],
  // addEventListener & co are inherited through Window.prototype (window.ts), not own globals
  events: [
    'Event', 'EventTarget', 'CustomEvent', 'ErrorEvent', 'MessageEvent', 'CloseEvent', 'ProgressEvent',
    'PromiseRejectionEvent', 'AbortController', 'AbortSignal', 'reportError', ...EVENT_HANDLER_TYPES.map((t) => `on${t}`),
  ],
  streams: [
    'ReadableStream', 'ReadableStreamDefaultReader', 'ReadableStreamBYOBReader', 'ReadableStreamBYOBRequest',
    'ReadableByteStreamController', 'ReadableStreamDefaultController', 'WritableStream', 'WritableStreamDefaultWriter',
    'WritableStreamDefaultController', 'TransformStream', 'TransformStreamDefaultController', 'ByteLengthQueuingStrategy',
    'CountQueuingStrategy', 'TextEncoderStream', 'TextDecoderStream',
  ],
  compression: ['CompressionStream', 'DecompressionStream'],
  fetch: ['fetch', 'Headers', 'Request', 'Response', 'Blob', 'File', 'FormData', 'FileReader'],
  performance: ['performance', 'Performance', 'PerformanceEntry', 'PerformanceMark', 'PerformanceMeasure', 'PerformanceObserver', 'PerformanceObserverEntryList'],
  subtle: ['CryptoKey', 'SubtleCrypto', 'Crypto'],
};

/** Built-ins newer than the V8 of Node 20 (11.3) that Deno has, from core-js: [owner, names]. */
function esNextTargets(): [object, PropertyKey[]][] {
  const iteratorPrototype = Object.getPrototypeOf(Object.getPrototypeOf([][Symbol.iterator]())) as object;
  const asyncIteratorPrototype = Object.getPrototypeOf(Object.getPrototypeOf((async function* () {})()).constructor.prototype) as object;
  const targets: [object, PropertyKey[]][] = [
    [Promise, ['withResolvers', 'try']],
    [Object, ['groupBy']],
    [Map, ['groupBy']],
    [Array, ['fromAsync']],
    [ArrayBuffer.prototype, ['transfer', 'transferToFixedLength', 'detached']],
    [Set.prototype, ['union', 'intersection', 'difference', 'symmetricDifference', 'isSubsetOf', 'isSupersetOf', 'isDisjointFrom']],
    [globalThis, ['Iterator', 'DisposableStack', 'AsyncDisposableStack', 'SuppressedError']],
    [iteratorPrototype, ['map', 'filter', 'take', 'drop', 'flatMap', 'reduce', 'toArray', 'forEach', 'some', 'every', 'find']],
    [RegExp, ['escape']],
    [Math, ['sumPrecise', 'f16round']],
    [Error, ['isError']],
    [Uint8Array, ['fromBase64', 'fromHex']],
    [Uint8Array.prototype, ['toBase64', 'toHex', 'setFromBase64', 'setFromHex']],
    [Symbol, ['dispose', 'asyncDispose']],
    [JSON, ['rawJSON', 'isRawJSON']],
    [Map.prototype, ['getOrInsert', 'getOrInsertComputed']],
    [WeakMap.prototype, ['getOrInsert', 'getOrInsertComputed']],
    [DataView.prototype, ['getFloat16', 'setFloat16']],
  ];
  void asyncIteratorPrototype;
  // Only what this V8 lacks: a newer engine keeps its own.
  return targets
    .map(([owner, names]) => [owner, names.filter((n) => !Object.prototype.hasOwnProperty.call(owner, n))] as [object, PropertyKey[]])
    .filter(([, names]) => names.length > 0);
}

/**
 * Symbol.dispose and Symbol.asyncDispose are plain symbols, defined at once rather than with
 * core-js: polyfills (readable-stream) read them while they load, and that read would load all
 * of es-next. core-js adopts a well-known symbol that already exists, so they stay one symbol.
 */
function defineWellKnownSymbols(): void {
  for (const name of ['dispose', 'asyncDispose']) {
    if (!Object.prototype.hasOwnProperty.call(Symbol, name)) Object.defineProperty(Symbol, name, { value: Symbol(`Symbol.${name}`) });
  }
}

export function installLazyGlobals(): void {
  for (const [part, names] of Object.entries(GLOBAL_PARTS)) {
    defineLazy(globalThis, names, () => void requirePart(part));
  }
  // Node's globals Deno 2.9 has in every script: the node: modules' own instances.
  defineLazy(globalThis, ['Buffer'], () => defineGlobal('Buffer', (nodeRequire('buffer') as { Buffer: unknown }).Buffer));
  defineLazy(globalThis, ['process'], () => defineGlobal('process', nodeRequire('process')));
  defineWellKnownSymbols();
  // One group: touching any of them loads the part, which defines them all.
  const targets = esNextTargets();
  let loaded = false;
  const load = (): void => {
    if (loaded) return;
    loaded = true;
    for (const [owner, names] of targets) {
      for (const name of names) {
        const desc = Object.getOwnPropertyDescriptor(owner, name);
        if (desc?.get && (desc.get as { lazy?: boolean }).lazy) delete (owner as Record<PropertyKey, unknown>)[name];
      }
    }
    requirePart('es-next');
  };
  for (const [owner, names] of targets) defineLazy(owner, names, load);
}

