/**
 * Timers and microtasks. A timer is an async host op (`timer.sleep`), so a pending timer
 * keeps the run alive exactly as it keeps `deno run` alive, and `clearTimeout` tells the
 * host to drop it so an idle script can end at once. An error thrown by a callback is
 * reported to the host as uncaught, which ends the run with exit status 1, as in Deno.
 */
import { callAsync, callSync } from '../host.ts';

let nextId = 1;
const active = new Map<number, { repeat: boolean }>();

export function reportUncaught(error: unknown): void {
  const name = error instanceof Error ? error.name : typeof error;
  const message = error instanceof Error ? error.message : String(error);
  const stack = error instanceof Error ? (error.stack ?? `${name}: ${message}`) : String(error);
  callSync('process.uncaught', { name, message, stack, isError: error instanceof Error });
}

function schedule(id: number, delay: number, run: () => void): void {
  callAsync<{ cancelled: boolean }>('timer.sleep', { id, ms: delay }).then(
    (result) => {
      if (result.cancelled || !active.has(id)) return;
      try {
        run();
      } catch (error) {
        reportUncaught(error);
      }
    },
    (error: unknown) => reportUncaught(error),
  );
}

function normalizeDelay(ms: unknown): number {
  const n = Number(ms);
  return Number.isFinite(n) && n > 0 ? Math.floor(n) : 0;
}

export function setTimeout(callback: (...args: unknown[]) => void, ms?: number, ...args: unknown[]): number {
  if (typeof callback !== 'function') throw new TypeError('Callback must be a function');
  const id = nextId++;
  active.set(id, { repeat: false });
  schedule(id, normalizeDelay(ms), () => {
    active.delete(id);
    callback(...args);
  });
  return id;
}

export function setInterval(callback: (...args: unknown[]) => void, ms?: number, ...args: unknown[]): number {
  if (typeof callback !== 'function') throw new TypeError('Callback must be a function');
  const id = nextId++;
  const delay = Math.max(1, normalizeDelay(ms));
  active.set(id, { repeat: true });
  const tick = (): void => {
    callback(...args);
    if (active.has(id)) schedule(id, delay, tick);
  };
  schedule(id, delay, tick);
  return id;
}

export function clearTimeout(id?: number): void {
  if (typeof id !== 'number' || !active.has(id)) return;
  active.delete(id);
  callSync('timer.cancel', { id });
}

export const clearInterval = clearTimeout;

export function queueMicrotask(callback: () => void): void {
  if (typeof callback !== 'function') throw new TypeError('Callback must be a function');
  Promise.resolve().then(() => {
    try {
      callback();
    } catch (error) {
      reportUncaught(error);
    }
  });
}
