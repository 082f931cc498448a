/**
 * Shim parts: the larger pieces of the Deno surface (web streams, fetch, events, URL,
 * crypto.subtle, newer built-ins from core-js, FsFile, subprocess pipes, the test runner)
 * are not in the shim's core. Each is its own bundle (sandboxes/shim/parts/), handed to the
 * isolate by the runtime on first use (`shim.part`, answered by the isolate runtime itself,
 * not the broker: it is code, not an effect) and evaluated once. An isolate that never
 * touches a part pays neither its evaluation nor the memory of its source, which keeps
 * cold start and memory per isolate where the benchmarks hold them.
 *
 * A part imports core modules and other parts; its bundle turns those imports into
 * `require("rtc:<path>")` and `require("rtc-part:<name>")` (sandboxes/loader/shim-part-links.ts),
 * answered here from the core's own module instances; an npm polyfill a part bundles that
 * asks for a Node built-in (`require("buffer")`) gets the shim's (`rtc-node:<name>`).
 */
import { callSync } from './host.ts';
import { nodeRequire } from './node-require.ts';

type PartFactory = (require: (id: string) => unknown, module: { exports: unknown }, exports: unknown) => void;

// Captured while the shim installs, before any script runs: a script that replaces
// globalThis.eval later cannot change how parts are evaluated.
const evaluate: (code: string) => unknown = globalThis.eval;
let coreModules: Readonly<Record<string, unknown>> = {};
const parts = new Map<string, { exports: unknown }>();

export function registerCoreModules(modules: Readonly<Record<string, unknown>>): void {
  coreModules = modules;
}

function partRequire(id: string): unknown {
  if (id.startsWith('rtc-part:')) return requirePart(id.slice('rtc-part:'.length));
  // a Node built-in another part implements (`buffer`, `events`, `process`): that part's module
  if (id.startsWith('rtc-node:')) return nodeRequire(id.slice('rtc-node:'.length));
  if (id.startsWith('rtc:')) {
    const found = coreModules[id.slice('rtc:'.length)];
    if (found === undefined) throw new Error(`shim part needs core module ${id.slice(4)}, which sandboxes/shim/core-modules.ts does not list`);
    return found;
  }
  throw new Error(`shim part: cannot require "${id}"`);
}

/**
 * core-js draws Math.random() once while loading (a uid postfix for its internal keys).
 * That draw is the polyfill's, not the script's: it gets a constant, so loading a part is
 * not a broker effect, and a fresh isolate asks for the same effects as a long-lived one
 * (what replay and reboot equivalence rely on).
 */
function withFixedRandom(run: () => void): void {
  const random = Math.random;
  Math.random = () => 0.5;
  try {
    run();
  } finally {
    Math.random = random;
  }
}

let depth = 0;
let hidden: [string, PropertyDescriptor][] = [];

/**
 * While parts evaluate, Node's globals (`process`, `Buffer`) are out of sight: polyfills such
 * as core-js look for `process` to pick Node code paths, and must find the web platform they
 * polyfill; and a part's evaluation never loads the node:process part through the global.
 * The node: parts reach each other through their imports, not through these globals.
 */
function hideNodeGlobals(): void {
  if (depth++ > 0) return;
  hidden = [];
  for (const name of ['process', 'Buffer']) {
    const desc = Object.getOwnPropertyDescriptor(globalThis, name);
    if (desc?.configurable) {
      hidden.push([name, desc]);
      delete (globalThis as Record<string, unknown>)[name];
    }
  }
}

function restoreNodeGlobals(): void {
  if (--depth > 0) return;
  for (const [name, desc] of hidden) if (!Object.prototype.hasOwnProperty.call(globalThis, name)) Object.defineProperty(globalThis, name, desc);
  hidden = [];
}

/** A part's exports if it is loaded already, else undefined (never loads it). */
export function loadedPart<T = Record<string, unknown>>(name: string): T | undefined {
  return parts.get(name)?.exports as T | undefined;
}

export function requirePart<T = Record<string, unknown>>(name: string): T {
  const loaded = parts.get(name);
  if (loaded) return loaded.exports as T;
  const source = callSync<string>('shim.part', { name });
  const factory = evaluate(source) as PartFactory;
  const module = { exports: {} as unknown };
  // Registered before it runs: parts that need each other see partial exports, as in CommonJS.
  parts.set(name, module);
  hideNodeGlobals();
  try {
    withFixedRandom(() => factory(partRequire, module, module.exports));
  } catch (error) {
    parts.delete(name);
    throw error;
  } finally {
    restoreNodeGlobals();
  }
  return module.exports as T;
}

/**
 * Defines `names` on `target` as accessors that load on first touch: `load` runs once,
 * after the accessors are removed (so feature detection in a polyfill sees the names as
 * absent), and must define the real properties. Reading, writing or calling any of the
 * names loads the whole group: names a part installs together load together.
 */
export function defineLazy(target: object, names: readonly PropertyKey[], load: () => void, enumerable = false): void {
  let state: 'idle' | 'loading' | 'done' = 'idle';
  const ensure = (): void => {
    if (state !== 'idle') return;
    state = 'loading';
    const removed: [PropertyKey, PropertyDescriptor][] = [];
    for (const name of names) {
      const desc = Object.getOwnPropertyDescriptor(target, name);
      if (desc?.get && (desc.get as { lazy?: boolean }).lazy) {
        removed.push([name, desc]);
        delete (target as Record<PropertyKey, unknown>)[name];
      }
    }
    try {
      load();
    } catch (error) {
      // a load that failed leaves the names as they were, to be tried again
      for (const [name, desc] of removed) if (!Object.prototype.hasOwnProperty.call(target, name)) Object.defineProperty(target, name, desc);
      state = 'idle';
      throw error;
    }
    state = 'done';
  };
  for (const name of names) {
    const get = function (this: unknown): unknown {
      ensure();
      return Reflect.get(target, name, this);
    };
    (get as { lazy?: boolean }).lazy = true;
    Object.defineProperty(target, name, {
      configurable: true,
      enumerable,
      get,
      set(this: unknown, value: unknown) {
        ensure();
        Object.defineProperty(this === target || this === undefined ? target : (this as object), name, { value, writable: true, configurable: true, enumerable });
      },
    });
  }
}

/** Defines a global value the way the web platform does: writable, configurable, not enumerable. */
export function defineGlobal(name: string, value: unknown): void {
  Object.defineProperty(globalThis, name, { value, writable: true, configurable: true, enumerable: false });
}
