/**
 * Timers and microtasks, with the semantics Deno 2 has (Node's timers): `setTimeout` and
 * `setInterval` return a `Timeout` object (`ref`, `unref`, `hasRef`, `refresh`, `close`, and
 * a number through `Symbol.toPrimitive` that `clearTimeout` also takes); a delay below 1 ms
 * or above 2^31-1 ms becomes 1 ms (with Node's process warning); `setImmediate` runs before
 * timers due at the same time.
 *
 * Order, as Node's timer lists keep it: when a timer fires, every timer due no later than it
 * fires first, by due time and then by creation, with the microtask queue drained between
 * two of them; a timer created by a callback waits for the next turn; an interval's next
 * due time counts from when its callback started, so a callback slower than its interval
 * is followed at once by the next. The host only wakes the shim (`timer.sleep`, one per
 * armed timer, so a pending timer keeps the run alive exactly as it keeps `deno run`
 * alive, unless it is unref'd: `timer.ref` tells the host); which timers run on a wake,
 * and in what order, is decided here. `clearTimeout` tells the host to drop a sleep so an
 * idle script can end at once. An error thrown by a callback is reported to the host as
 * uncaught, which ends the run with exit status 1, as in Deno.
 */
import { callAsync, callSync, thenOf } from '../host.ts';
import { requirePart } from '../parts-loader.ts';

/**
 * The engine's own clock, captured before the shim replaces `Date`: it only orders timers
 * against each other (when each fires is the host's sleep, in real time either way), so it
 * is never an input the script sees. Kept monotonic against a clock step back.
 */
const engineNow = Date.now;
let lastNow = 0;
/** Now, as Node reads it when a timer is set (fresh each time: a timer never fires sooner than its delay after it was set). */
function freshNow(): number {
  const now = engineNow();
  if (now > lastNow) lastNow = now;
  return lastNow;
}

/** An uncaught error ends the run: no timer fires after it, even one already due (a loaded host may wake both at once). */
let uncaughtReported = false;

export function reportUncaught(error: unknown): void {
  uncaughtReported = true;
  const name = error instanceof Error ? error.name : typeof error;
  const message = error instanceof Error ? error.message : String(error);
  const stack = error instanceof Error ? (error.stack ?? `${name}: ${message}`) : String(error);
  callSync('process.uncaught', { name, message, stack, isError: error instanceof Error });
}

// ---- the host's sleeps ---------------------------------------------------------------------

/** Ids of host sleeps, apart from the script's timer ids (a Timeout's number is Deno's: 1, 2, 3 ...). */
let nextHostId = 1;

function hostSleep(ms: number, ref: boolean, immediate: boolean, onWake: (hostId: number) => void): number {
  const hostId = nextHostId++;
  thenOf(
    callAsync<{ cancelled: boolean }>('timer.sleep', { id: hostId, ms, unref: !ref, immediate }),
    (result) => {
      if (!result.cancelled) onWake(hostId);
    },
    (error: unknown) => reportUncaught(error),
  );
  return hostId;
}

function hostCancel(hostId: number): void {
  callSync('timer.cancel', { id: hostId });
}

function hostRef(hostId: number, ref: boolean): void {
  callSync('timer.ref', { id: hostId, ref });
}

// ---- timers --------------------------------------------------------------------------------

interface TimerEntry {
  /** the Timeout's number (internal timers, such as AbortSignal.timeout's, count down from -1) */
  readonly id: number;
  /** when it is due (engineNow's milliseconds) and its place among timers due at that time */
  due: number;
  seq: number;
  delay: number;
  readonly repeat: boolean;
  ref: boolean;
  readonly run: () => void;
  /** the host sleep armed for it, 0 when none */
  hostId: number;
}

/** Scheduled timers by id: what clearTimeout finds and the heap's entries are checked against. */
const scheduled = new Map<number, TimerEntry>();
const byHostId = new Map<number, TimerEntry>();
let nextTimerId = 1;
let nextInternalId = -1;
let nextSeq = 1;

/** A min-heap of (due, seq); a node is stale once its entry was cleared or re-armed (its seq moved on). */
interface HeapNode {
  due: number;
  seq: number;
  entry: TimerEntry;
}
const heap: HeapNode[] = [];
let staleNodes = 0;

function before(a: HeapNode, b: HeapNode): boolean {
  return a.due < b.due || (a.due === b.due && a.seq < b.seq);
}

function heapPush(node: HeapNode): void {
  heap.push(node);
  let i = heap.length - 1;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (!before(heap[i]!, heap[parent]!)) break;
    [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
    i = parent;
  }
}

function heapPop(): void {
  const last = heap.pop()!;
  if (heap.length === 0) return;
  heap[0] = last;
  let i = 0;
  for (;;) {
    const l = 2 * i + 1;
    const r = l + 1;
    let least = i;
    if (l < heap.length && before(heap[l]!, heap[least]!)) least = l;
    if (r < heap.length && before(heap[r]!, heap[least]!)) least = r;
    if (least === i) return;
    [heap[i], heap[least]] = [heap[least]!, heap[i]!];
    i = least;
  }
}

function isLive(node: HeapNode): boolean {
  return node.entry.seq === node.seq && scheduled.get(node.entry.id) === node.entry;
}

/** Rebuilt from the live entries when cleared timers would otherwise pile up until their due time. */
function compactHeap(): void {
  // (a node whose entry moved on has seq !== the entry's, 0 included)
  const live = heap.filter(isLive);
  heap.length = 0;
  staleNodes = 0;
  for (const node of live) heapPush(node);
}

/** The entry's node in the heap (if it has one: seq 0 means none) no longer counts. */
function dropNode(entry: TimerEntry): void {
  if (entry.seq === 0) return;
  entry.seq = 0;
  staleNodes++;
  if (staleNodes > 64 && staleNodes > scheduled.size * 2) compactHeap();
}

/** The live timer that fires first, if it is due no later than `limit`. */
function firstDue(limit: HeapNode | null): HeapNode | undefined {
  while (heap.length > 0 && !isLive(heap[0]!)) {
    heapPop();
    staleNodes = Math.max(0, staleNodes - 1);
  }
  const top = heap[0];
  return top !== undefined && limit !== null && !before(limit, top) ? top : undefined;
}

/** Schedules `entry` `ms` from now: a place in the order and a host sleep to wake the shim. */
function schedule(entry: TimerEntry, due: number, ms: number): void {
  if (entry.hostId !== 0) disarm(entry);
  dropNode(entry);
  entry.due = due;
  entry.seq = nextSeq++;
  scheduled.set(entry.id, entry);
  heapPush({ due: entry.due, seq: entry.seq, entry });
  entry.hostId = hostSleep(Math.max(0, ms), entry.ref, false, onTimerWake);
  byHostId.set(entry.hostId, entry);
}

function disarm(entry: TimerEntry): void {
  byHostId.delete(entry.hostId);
  hostCancel(entry.hostId);
  entry.hostId = 0;
}

function unschedule(entry: TimerEntry): void {
  if (scheduled.get(entry.id) !== entry) return;
  scheduled.delete(entry.id);
  dropNode(entry);
  if (entry.hostId !== 0) disarm(entry);
}

/** The latest due time among the timers whose host sleep woke: every timer due by then is due now, whatever the clocks say. */
let wokenDue = -Infinity;
/** While timers run ('timers'), the immediates they set are held for the check phase that follows ('check'), as in Node's loop. */
let phase: 'idle' | 'timers' | 'check' = 'idle';
let wokeWhileDraining = false;
let heldImmediates: ImmediateEntry[] = [];

function onTimerWake(hostId: number): void {
  const entry = byHostId.get(hostId);
  byHostId.delete(hostId);
  if (!entry || entry.hostId !== hostId) return;
  entry.hostId = 0;
  if (scheduled.get(entry.id) !== entry) return;
  if (entry.due > wokenDue) wokenDue = entry.due;
  if (phase !== 'idle') wokeWhileDraining = true;
  else void drain();
}

/** A turn of the host's loop between two callbacks: the microtasks the first left run to the end first, as Node's do. */
function turn(): Promise<void> {
  return new Promise((resolve) => {
    hostSleep(0, true, true, () => resolve());
  });
}

/**
 * One turn of Node's loop from its timers phase: the timers armed before it started and due by
 * then, in order (timers armed meanwhile, by a callback or an interval's next tick, wait for
 * the next turn, even if already due); then the immediates those callbacks set.
 */
async function drain(): Promise<void> {
  phase = 'timers';
  wokeWhileDraining = false;
  const limitSeq = nextSeq;
  const limit: HeapNode = { due: Math.max(freshNow(), wokenDue), seq: Infinity, entry: undefined as unknown as TimerEntry };
  const next = (): HeapNode | undefined => {
    const first = uncaughtReported ? undefined : firstDue(limit);
    return first !== undefined && first.seq < limitSeq ? first : undefined;
  };
  try {
    let ran = false;
    for (;;) {
      if (next() === undefined) break;
      if (ran) await turn();
      const due = next();
      if (due === undefined) break;
      ran = true;
      fire(due.entry);
    }
    phase = 'check';
    const held = heldImmediates;
    heldImmediates = [];
    for (const entry of held) {
      if (entry.cleared || uncaughtReported) continue;
      await turn();
      runImmediate(entry);
    }
  } finally {
    phase = 'idle';
    if (wokeWhileDraining && !uncaughtReported) void drain();
    else wokenDue = -Infinity;
  }
}

function fire(entry: TimerEntry): void {
  // run ahead of its own wake: that sleep is dropped
  if (entry.hostId !== 0) disarm(entry);
  // its node is the heap's first (firstDue just returned it)
  heapPop();
  entry.seq = 0;
  if (!entry.repeat) scheduled.delete(entry.id);
  const started = freshNow();
  try {
    entry.run();
  } catch (error) {
    reportUncaught(error);
  }
  // an interval the callback neither cleared nor refreshed: due again `delay` after it started
  if (entry.repeat && scheduled.get(entry.id) === entry && entry.seq === 0) {
    const due = started + entry.delay;
    schedule(entry, due, due - freshNow());
  }
}

// ---- the script's API --------------------------------------------------------------------

const NEGATIVE_WARNED = { value: false };
const NAN_WARNED = { value: false };

/** Node's process warning for a delay it replaced, as Deno prints it (process.emitWarning, so `process.on('warning')` sees it). */
function warn(message: string, type: string): void {
  try {
    requirePart<{ process: { emitWarning(message: string, type: string): void } }>('node-process').process.emitWarning(`${message}\nTimeout duration was set to 1.`, type);
  } catch {
    // a warning that cannot be shown changes nothing about the timer
  }
}

/**
 * Node's rule, which Deno 2 follows: the delay is coerced to a number (a BigInt is a
 * TypeError), and outside 1..2^31-1 it is 1 ms, with a warning (for a negative delay and for
 * NaN, once per run).
 */
function normalizeDelay(ms: unknown): number {
  if (ms === undefined) return 1;
  const n = (ms as number) * 1;
  if (n >= 1 && n <= 2 ** 31 - 1) return Math.trunc(n);
  if (n > 2 ** 31 - 1) warn(`${n} does not fit into a 32-bit signed integer.`, 'TimeoutOverflowWarning');
  else if (n < 0 && !NEGATIVE_WARNED.value) {
    NEGATIVE_WARNED.value = true;
    warn(`${n} is a negative number.`, 'TimeoutNegativeWarning');
  } else if (Number.isNaN(n) && !NAN_WARNED.value) {
    NAN_WARNED.value = true;
    warn(`${n} is not a number.`, 'TimeoutNaNWarning');
  }
  return 1;
}

function checkCallback(callback: unknown): asserts callback is (...args: unknown[]) => void {
  if (typeof callback !== 'function') {
    const shown = typeof callback === 'string' ? `type string ('${callback}')` : callback === null ? 'null' : callback === undefined ? 'undefined' : `type ${typeof callback}`;
    const error = new TypeError(`The "callback" argument must be of type function. Received ${shown}`);
    // shaped as Deno's node: errors (node-errors part, nodeError), without loading that part
    const own = (key: string, value: unknown) => Object.defineProperty(error, key, { value, configurable: true, writable: true, enumerable: true });
    own('code', 'ERR_INVALID_ARG_TYPE');
    own('name', 'TypeError');
    own('toString', [function (this: { name?: unknown; code?: unknown; message?: unknown }) { return `${String(this.name)} [${String(this.code)}]: ${String(this.message)}`; }][0]);
    throw error;
  }
}

const ENTRY = Symbol('timerEntry');

export class Timeout {
  readonly [ENTRY]: TimerEntry;

  constructor(entry: TimerEntry) {
    this[ENTRY] = entry;
  }

  ref(): this {
    setRef(this[ENTRY], true);
    return this;
  }

  unref(): this {
    setRef(this[ENTRY], false);
    return this;
  }

  hasRef(): boolean {
    return this[ENTRY].ref;
  }

  /** Due `delay` from now again; as in Node, a timeout that already fired runs once more, a cleared one stays cleared. */
  refresh(): this {
    const entry = this[ENTRY];
    if (!cleared.has(entry)) {
      const now = freshNow();
      schedule(entry, now + entry.delay, entry.delay);
    }
    return this;
  }

  close(): this {
    clearEntry(this[ENTRY]);
    return this;
  }

  [Symbol.toPrimitive](): number {
    return this[ENTRY].id;
  }
}

/** Timers cleared by the script: refresh() no longer revives them. */
const cleared = new WeakSet<TimerEntry>();

function clearEntry(entry: TimerEntry): void {
  cleared.add(entry);
  unschedule(entry);
}

function setRef(entry: TimerEntry, ref: boolean): void {
  if (entry.ref === ref) return;
  entry.ref = ref;
  if (entry.hostId !== 0) hostRef(entry.hostId, ref);
}

function start(callback: (...args: unknown[]) => void, args: unknown[], delay: number, repeat: boolean): Timeout {
  let handle: Timeout | undefined;
  // Node's (and Deno 2's) `this` in a timer callback is its Timeout; Reflect.apply, as a callback
  // may have no prototype (and so no .apply).
  const entry: TimerEntry = { id: nextTimerId++, due: 0, seq: 0, delay, repeat, ref: true, run: () => Reflect.apply(callback, handle, args), hostId: 0 };
  handle = new Timeout(entry);
  schedule(entry, freshNow() + delay, delay);
  return handle;
}

export function setTimeout(callback: (...args: unknown[]) => void, ms?: number, ...args: unknown[]): Timeout {
  checkCallback(callback);
  return start(callback, args, normalizeDelay(ms), false);
}

export function setInterval(callback: (...args: unknown[]) => void, ms?: number, ...args: unknown[]): Timeout {
  checkCallback(callback);
  return start(callback, args, normalizeDelay(ms), true);
}

/** A timeout that does not keep the run alive (AbortSignal.timeout), with no 2^31 ms cap; its id is the shim's, out of a script's reach. */
export function setUnrefTimeout(callback: () => void, ms: number): number {
  const delay = Math.max(0, ms);
  const entry: TimerEntry = { id: nextInternalId--, due: 0, seq: 0, delay, repeat: false, ref: false, run: callback, hostId: 0 };
  schedule(entry, freshNow() + delay, delay);
  return entry.id;
}

/** Whether an internal timer keeps the run alive (AbortSignal.timeout while the signal has abort listeners, as in Deno). */
export function refInternalTimer(id: number, ref: boolean): void {
  const entry = scheduled.get(id);
  if (entry && id < 0) setRef(entry, ref);
}

export function clearInternalTimer(id: number): void {
  const entry = scheduled.get(id);
  if (entry && id < 0) clearEntry(entry);
}

/** Deno's clearTimeout: nothing for null and undefined, else the argument as a number (a BigInt is a TypeError), either kind of timer. */
function clearById(timer: unknown): void {
  if (timer === null || timer === undefined) return;
  if (timer instanceof Timeout) {
    clearEntry(timer[ENTRY]);
    return;
  }
  const id = +(timer as number);
  const entry = scheduled.get(id);
  if (entry && id > 0) clearEntry(entry);
}

// Two functions, as in Deno (`clearTimeout !== clearInterval`), that clear either kind.
export function clearTimeout(timer?: unknown): void {
  clearById(timer);
}

export function clearInterval(timer?: unknown): void {
  clearById(timer);
}

// ---- immediates ----------------------------------------------------------------------------

interface ImmediateEntry {
  ref: boolean;
  hostId: number;
  cleared: boolean;
  readonly run: () => void;
}

const IMMEDIATE = Symbol('immediateEntry');

export class Immediate {
  readonly [IMMEDIATE]: ImmediateEntry;

  constructor(entry: ImmediateEntry) {
    this[IMMEDIATE] = entry;
  }

  ref(): this {
    setImmediateRef(this[IMMEDIATE], true);
    return this;
  }

  unref(): this {
    setImmediateRef(this[IMMEDIATE], false);
    return this;
  }

  hasRef(): boolean {
    return this[IMMEDIATE].ref;
  }
}

function setImmediateRef(entry: ImmediateEntry, ref: boolean): void {
  if (entry.ref === ref) return;
  entry.ref = ref;
  if (entry.hostId !== 0) hostRef(entry.hostId, ref);
}

function runImmediate(entry: ImmediateEntry): void {
  if (entry.cleared || uncaughtReported) return;
  entry.cleared = true;
  try {
    entry.run();
  } catch (error) {
    reportUncaught(error);
  }
}

export function setImmediate(callback: (...args: unknown[]) => void, ...args: unknown[]): Immediate {
  checkCallback(callback);
  let handle: Immediate | undefined;
  const entry: ImmediateEntry = { ref: true, hostId: 0, cleared: false, run: () => Reflect.apply(callback, handle, args) };
  handle = new Immediate(entry);
  if (phase === 'timers') heldImmediates.push(entry);
  else {
    entry.hostId = hostSleep(0, entry.ref, true, () => {
      entry.hostId = 0;
      runImmediate(entry);
    });
  }
  return handle;
}

/** As Deno's: only an Immediate object clears an immediate (it has no number). */
export function clearImmediate(immediate?: unknown): void {
  if (!(immediate instanceof Immediate)) return;
  const entry = immediate[IMMEDIATE];
  if (entry.cleared) return;
  entry.cleared = true;
  if (entry.hostId !== 0) {
    hostCancel(entry.hostId);
    entry.hostId = 0;
  }
}

/**
 * `Deno.refTimer` / `Deno.unrefTimer`, as Deno 2.9 has them: given an object (a Timeout, an
 * Immediate), its own `ref()` / `unref()`; given a number, Deno's internal timer of that id,
 * which no API hands a script any more (its timers are Node's Timeout objects), so nothing.
 */
export function refTimer(timer: unknown): void {
  if (typeof timer !== 'number') (timer as { ref?: () => void } | null | undefined)?.ref?.();
}

export function unrefTimer(timer: unknown): void {
  if (typeof timer !== 'number') (timer as { unref?: () => void } | null | undefined)?.unref?.();
}

const settledPromise = Promise.resolve();

export function queueMicrotask(callback: () => void): void {
  if (typeof callback !== 'function') throw new TypeError("Failed to execute 'queueMicrotask' on 'Window': Argument 1 is not a function");
  thenOf(settledPromise, () => {
    try {
      callback();
    } catch (error) {
      reportUncaught(error);
    }
  });
}
