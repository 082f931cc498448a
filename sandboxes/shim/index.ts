/**
 * The sandbox shim: run once in every new isolate, before any plugin or script code.
 * It installs the Deno subset and the web APIs as globals and returns the dispatcher the
 * host uses to call plugin exports. The host's own functions arrive as arguments and stay
 * in closures: nothing here puts a host handle on a global.
 */
import { bindHost, callSync, thenOf } from './host.ts';
import { makeRuntimectl } from './bindings.ts';
import { ExitSignal, makeDeno } from './deno/namespace.ts';
import { installLazyGlobals } from './lazy-globals.ts';
import { registerCoreModules } from './parts-loader.ts';
import { CORE_MODULES } from './core-modules.ts';
import { setShimConfig, type ShimConfig } from './shim-config.ts';
import { requirePart } from './parts-loader.ts';
import { installUnsupportedGlobals } from './unsupported-globals.ts';
import { nodeRequire } from './node-require.ts';
import { runLifecycle } from './lifecycle.ts';
import { installWindow } from './window.ts';
import { installBrokerDate, installBrokerRandom, monotonicNow, reseedBrokerRandom } from './web/clock.ts';
import { atob, btoa } from './web/base64.ts';
import { makeConsole } from './web/console.ts';
import { crypto } from './web/crypto.ts';
import { TextDecoder, TextEncoder } from './web/text-encoding.ts';
import { clearImmediate, clearInterval, clearTimeout, queueMicrotask, reportUncaught, setImmediate, setInterval, setTimeout } from './web/timers.ts';


interface AsyncReference {
  apply(receiver: undefined, args: [string, string], options: { result: { promise: true } }): Promise<string>;
}

interface SyncReference {
  applySyncPromise(receiver: undefined, args: [string, string]): string;
}

type Exports = Record<string, unknown>;

/** A kernel error code a plugin's error carries (its own coded error, or a binding's refusal passed on). */
const ERROR_CODE = /^RTC_ERR_[A-Z0-9_]+$/;

function codeOf(error: Error): { code?: string } {
  try {
    const code = (error as { code?: unknown }).code;
    return typeof code === 'string' && ERROR_CODE.test(code) ? { code } : {};
  } catch {
    return {};
  }
}

/** A thrown value as the host reads it: its code is data (never parsed back out of its message). */
function describeError(error: unknown): { class: string; name: string; message: string; stack: string; code?: string } {
  if (error instanceof ExitSignal) return { class: 'Exit', name: 'Exit', message: `exit ${error.code}`, stack: '' };
  if (error instanceof Error) {
    let stack = '';
    try {
      stack = String(error.stack ?? '');
    } catch {
      stack = '';
    }
    return { class: error.name, name: String(error.name), message: String(error.message), stack, ...codeOf(error) };
  }
  return { class: 'NonError', name: typeof error, message: safeString(error), stack: '' };
}

/** `Promise.resolve(value)` with the engine's own Promise, whatever a script did to the global one. */
const NativePromise = Promise;
const nativeResolve = Promise.resolve;
function resolvedPromise<T>(value: T): Promise<Awaited<T>> {
  return nativeResolve.call(NativePromise, value) as Promise<Awaited<T>>;
}

function safeString(value: unknown): string {
  try {
    return typeof value === 'string' ? value : JSON.stringify(value) ?? String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

export function install(
  hostSync: ((op: string, json: string) => string) | SyncReference,
  hostAsync: AsyncReference,
  configJson: string,
): { call: (name: string, argsJson: string) => string; boot: (main: () => Promise<Exports>) => string; settle: (id: number) => Promise<string>; ping: () => number } {
  const config = JSON.parse(configJson) as ShimConfig;
  setShimConfig(config);
  const sync =
    config.syncMode === 'reference'
      ? (op: string, json: string) => (hostSync as SyncReference).applySyncPromise(undefined, [op, json])
      : (hostSync as (op: string, json: string) => string);
  bindHost({ sync, async: (op, json) => hostAsync.apply(undefined, [op, json], { result: { promise: true } }) }, config.transferBytes, config.syncMode === 'reference');

  const now = monotonicNow;
  const g = globalThis as Record<string, unknown>;
  const define = (name: string, value: unknown): void => {
    Object.defineProperty(g, name, { value, writable: true, configurable: true, enumerable: false });
  };
  registerCoreModules(CORE_MODULES);
  define('Deno', makeDeno(config.args, config.build));
  define('console', makeConsole(now));
  define('TextEncoder', TextEncoder);
  define('TextDecoder', TextDecoder);
  define('crypto', crypto);
  define('setTimeout', setTimeout);
  define('clearTimeout', clearTimeout);
  define('setInterval', setInterval);
  define('clearInterval', clearInterval);
  define('setImmediate', setImmediate);
  define('clearImmediate', clearImmediate);
  define('queueMicrotask', queueMicrotask);
  define('atob', atob);
  define('btoa', btoa);
  define('self', globalThis);
  // kernel bindings for plugins; a script (`sandbox run`/`test`) sees Deno's globals and nothing more
  if (config.surface !== 'script') define('Runtimectl', makeRuntimectl());
  installWindow();
  installLazyGlobals();
  installUnsupportedGlobals();
  installBrokerDate();
  installBrokerRandom();

  let exportsObject: Exports = {};
  const internalCall = (name: string, argsJson: string): string => {
    try {
      if (name === '\u0000rtc.lifecycle') return ok(runLifecycle((JSON.parse(argsJson) as ['beforeExit' | 'exit'])[0]));
      const testing = requirePart<{ list: () => unknown; run: (index: number) => Promise<unknown> }>('testing');
      if (name === '\u0000rtc.tests') return ok(testing.list());
      if (name === '\u0000rtc.runTest') return track(thenOf(testing.run((JSON.parse(argsJson) as [number])[0]), ok, err));
      return err(new Error(`no internal call ${name}`));
    } catch (error) {
      return err(error);
    }
  };
  const pending = new Map<number, Promise<string>>();
  let nextPending = 1;
  const ok = (value: unknown): string => JSON.stringify({ ok: value === undefined ? null : value });
  const err = (error: unknown): string => JSON.stringify({ err: describeError(error) });

  const track = (promise: Promise<string>): string => {
    const id = nextPending++;
    pending.set(id, promise);
    return JSON.stringify({ pending: id });
  };

  return {
    /** Runs the module body (the bundle's async wrapper); its exports become callable. */
    boot(main: (node: typeof nodeRequire) => Promise<Exports>): string {
      let started: Promise<Exports>;
      try {
        // the body's `node:` imports load through this (sandboxes/loader/node-builtins.ts)
        started = main(nodeRequire);
      } catch (error) {
        return err(error);
      }
      return track(
        // The host hears that the body settled in the same microtask (a sync op), before any
        // later round trip through the task queue: that is how it tells "idle, body done"
        // from "idle, top-level await never resolves" without guessing from timing.
        thenOf(
          started,
          (ns) => {
            exportsObject = ns;
            callSync('main.settled', {});
            // The callable exports: what a manifest's `exports` is checked against.
            return ok(Object.keys(ns).filter((k) => typeof ns[k] === 'function').sort());
          },
          (error: unknown) => {
            callSync('main.settled', {});
            return err(error);
          },
        ),
      );
    },
    call(name: string, argsJson: string): string {
      // The test runner's calls (features/sandbox-run/runner/test-runner.ts); no export can have this name.
      if (name.startsWith('\u0000rtc.')) return internalCall(name, argsJson);
      const fn = exportsObject[name];
      if (typeof fn !== 'function') return JSON.stringify({ err: { class: 'NoExport', name: 'NoExport', message: `the plugin does not export a function "${name}"`, stack: '' } });
      reseedBrokerRandom();
      let result: unknown;
      try {
        result = (fn as (...a: unknown[]) => unknown)(...(JSON.parse(argsJson) as unknown[]));
      } catch (error) {
        return err(error);
      }
      if (result !== null && typeof result === 'object' && typeof (result as { then?: unknown }).then === 'function') {
        return track(thenOf(resolvedPromise(result), ok, err));
      }
      return ok(result);
    },
    settle(id: number): Promise<string> {
      const promise = pending.get(id) ?? Promise.resolve(JSON.stringify({ err: { class: 'Error', name: 'Error', message: `no pending call ${id}`, stack: '' } }));
      pending.delete(id);
      return promise;
    },
    ping: () => 0,
  };
}

export { reportUncaught, describeError };
