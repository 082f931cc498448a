/**
 * Time and randomness inside the isolate come from the broker, so a plugin cannot read the
 * world behind its back and a replay can answer them from the record:
 * - `Date.now()` and `new Date()` read the broker's wall clock (`clock.now`);
 * - `performance.now()` reads its monotonic clock (`clock.monotonic`);
 * - `Math.random()` runs sfc32, a small deterministic generator, seeded by the broker
 *   (`random.seed`) on its first use in each host call: one recorded effect per call that
 *   uses it, not one per number, and a call's numbers depend only on that call's own
 *   effects (so one call replays alone, and a rebooted kernel draws as a running one would).
 */
import { callSync } from '../host.ts';

export function brokerNow(): number {
  return callSync<number>('clock.now', {});
}

export function monotonicNow(): number {
  return callSync<number>('clock.monotonic', {});
}

export function installBrokerDate(): void {
  const NativeDate = Date;
  function BrokerDate(this: unknown, ...args: unknown[]): unknown {
    if (new.target === undefined) return new NativeDate(brokerNow()).toString();
    return args.length === 0 ? Reflect.construct(NativeDate, [brokerNow()], new.target) : Reflect.construct(NativeDate, args, new.target);
  }
  Object.setPrototypeOf(BrokerDate, NativeDate);
  BrokerDate.prototype = NativeDate.prototype;
  Object.defineProperty(BrokerDate, 'name', { value: 'Date' });
  Object.defineProperty(BrokerDate, 'length', { value: 7 });
  (BrokerDate as unknown as { now: () => number }).now = brokerNow;
  Object.defineProperty(NativeDate.prototype, 'constructor', { value: BrokerDate, writable: true, configurable: true, enumerable: false });
  Object.defineProperty(globalThis, 'Date', { value: BrokerDate, writable: true, configurable: true, enumerable: false });
}

let state: Uint32Array | undefined;

/** A new host call starts: the next Math.random() asks the broker for a fresh seed. */
export function reseedBrokerRandom(): void {
  state = undefined;
}

export function installBrokerRandom(): void {
  const next = (): number => {
    if (!state) state = Uint32Array.from(callSync<number[]>('random.seed', {}));
    // sfc32 (Chris Doty-Humphrey's small fast counting generator)
    const s = state;
    const t = (((s[0]! + s[1]!) | 0) + s[3]!) | 0;
    s[3] = (s[3]! + 1) | 0;
    s[0] = s[1]! ^ (s[1]! >>> 9);
    s[1] = (s[2]! + (s[2]! << 3)) | 0;
    s[2] = (s[2]! << 21) | (s[2]! >>> 11);
    s[2] = (s[2]! + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  Object.defineProperty(Math, 'random', { value: next, writable: true, configurable: true, enumerable: false });
}
