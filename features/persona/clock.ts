/**
 * The loop's one source of time. Everything the loop decides by time (the 24 h usage
 * window, the periodic cadence, the ledger's `now`, the event log's `at`) reads this one
 * function, so tests fix it and two runs with the same clock decide the same things.
 * Wall-clock time never enters a hashed event payload.
 */
export type Clock = () => number;

export const systemClock: Clock = () => Date.now();

export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** Waits `ms`, or less if the signal aborts (a stop request ends the wait, not the cycle). */
export const realSleep: Sleep = (ms, signal) =>
  new Promise((resolve) => {
    if (signal?.aborted || ms <= 0) {
      resolve();
      return;
    }
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
