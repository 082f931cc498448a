/** `node:timers` (the global timers, which are Node's Timeout objects in Deno 2) and `node:timers/promises`. */
import { clearImmediate, clearInterval, clearTimeout, setImmediate, setInterval, setTimeout } from '../../web/timers.ts';
import { nodeError, validateObject } from '../node-errors/index.ts';

interface Options {
  signal?: AbortSignal;
  ref?: boolean;
}

function abortError(signal: AbortSignal): Error {
  const error = nodeError(Error, 'ABORT_ERR', 'The operation was aborted') as Error & { cause?: unknown };
  error.name = 'AbortError';
  error.cause = signal.reason;
  return error;
}

function checkOptions(options: Options | undefined): Options {
  if (options === undefined) return {};
  validateObject(options, 'options');
  return options;
}

function delayed<T>(schedule: (done: () => void) => { clear(): void; unref?: () => void }, value: T, options?: Options): Promise<T> {
  const { signal, ref } = checkOptions(options);
  if (signal?.aborted) return Promise.reject(abortError(signal));
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      handle.clear();
      reject(abortError(signal!));
    };
    const handle = schedule(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(value);
    });
    if (ref === false) handle.unref?.();
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

const promises = {
  setTimeout: <T>(ms?: number, value?: T, options?: Options) =>
    delayed((done) => {
      const t = setTimeout(done, ms);
      return { clear: () => clearTimeout(t), unref: () => void (t as unknown as { unref(): void }).unref() };
    }, value as T, options),
  setImmediate: <T>(value?: T, options?: Options) =>
    delayed((done) => {
      const i = setImmediate(done);
      return { clear: () => clearImmediate(i) };
    }, value as T, options),
  async *setInterval<T>(ms?: number, value?: T, options?: Options): AsyncGenerator<T> {
    const { signal } = checkOptions(options);
    if (signal?.aborted) throw abortError(signal);
    let pending = 0;
    let wake: (() => void) | undefined;
    const id = setInterval(() => {
      pending++;
      wake?.();
    }, ms);
    try {
      for (;;) {
        if (pending === 0) {
          await new Promise<void>((resolve, reject) => {
            wake = resolve;
            signal?.addEventListener('abort', () => reject(abortError(signal)), { once: true });
          });
        }
        if (signal?.aborted) throw abortError(signal);
        pending = Math.max(0, pending - 1);
        yield value as T;
      }
    } finally {
      clearInterval(id);
    }
  },
  scheduler: {
    wait: (ms: number, options?: Options) => promises.setTimeout(ms, undefined, options),
    yield: () => promises.setImmediate(),
  },
};

const timers = { setTimeout, clearTimeout, setInterval, clearInterval, setImmediate, clearImmediate, promises };
Object.defineProperty(timers, 'default', { value: timers, enumerable: false });
Object.defineProperty(promises, 'default', { value: promises, enumerable: false });

export const modules = { timers, 'timers/promises': promises };
