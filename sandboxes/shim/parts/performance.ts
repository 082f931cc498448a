/**
 * `performance` with User Timing (`mark`, `measure`, the entry buffer and its queries),
 * `timeOrigin`, `toJSON`, and the `Performance*` classes, with Deno's messages. The clock
 * is the broker's monotonic clock (`performance.now()` is a broker op, so replay answers
 * it); `timeOrigin` is the wall time that clock counts from (`clock.origin`).
 */
import { callSync } from '../host.ts';
import { monotonicNow } from '../web/clock.ts';
import { defineGlobal } from '../parts-loader.ts';
import { PRIVATE_INSPECT, inspectAs } from '../web/inspect.ts';
import { EventTarget, requireArgs } from './events/index.ts';

const INTERNAL = Symbol('internal');

let entries: PerformanceEntry[] = [];

function structuredCopy(value: unknown): unknown {
  return (globalThis as unknown as { structuredClone: (v: unknown) => unknown }).structuredClone(value);
}

export class PerformanceEntry {
  readonly #name: string;
  readonly #entryType: string;
  readonly #startTime: number;
  readonly #duration: number;

  constructor(...args: unknown[]) {
    if (args[4] !== INTERNAL) throw new TypeError('Illegal constructor');
    this.#name = String(args[0]);
    this.#entryType = String(args[1]);
    this.#startTime = Number(args[2]);
    this.#duration = Number(args[3]);
  }

  get name(): string {
    return this.#name;
  }
  get entryType(): string {
    return this.#entryType;
  }
  get startTime(): number {
    return this.#startTime;
  }
  get duration(): number {
    return this.#duration;
  }

  toJSON(): Record<string, unknown> {
    return { name: this.name, entryType: this.entryType, startTime: this.startTime, duration: this.duration };
  }

  get [Symbol.toStringTag](): string {
    return 'PerformanceEntry';
  }

  [PRIVATE_INSPECT](): unknown {
    if (!(#name in this)) return (this as object).constructor.name;
    return inspectAs(this.constructor.name, this.toJSON());
  }
}

export class PerformanceMark extends PerformanceEntry {
  readonly #detail: unknown;

  constructor(name: string, options: { detail?: unknown; startTime?: number } = {}) {
    requireArgs(arguments.length, 1, 'construct', 'PerformanceMark');
    const startTime = options?.startTime ?? monotonicNow();
    if (startTime < 0) throw new TypeError(`Cannot construct PerformanceMark: startTime cannot be negative, received ${startTime}`);
    super(String(name), 'mark', startTime, 0, INTERNAL);
    this.#detail = options?.detail === undefined ? null : structuredCopy(options.detail);
  }

  get detail(): unknown {
    return this.#detail;
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), detail: this.detail };
  }

  override get [Symbol.toStringTag](): string {
    return 'PerformanceMark';
  }
}

export class PerformanceMeasure extends PerformanceEntry {
  readonly #detail: unknown;

  constructor(...args: unknown[]) {
    if (args[4] !== INTERNAL) throw new TypeError('Illegal constructor');
    super(args[0], 'measure', args[1], args[2], INTERNAL);
    this.#detail = args[3];
  }

  get detail(): unknown {
    return this.#detail;
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), detail: this.detail };
  }

  override get [Symbol.toStringTag](): string {
    return 'PerformanceMeasure';
  }
}

function markTime(name: string | number): number {
  if (typeof name === 'number') {
    if (name < 0) throw new TypeError(`${name} is a negative number`);
    return name;
  }
  const found = entries.filter((e) => e.name === name && e.entryType === 'mark').at(-1);
  if (!found) throw new DOMException(`Cannot find mark: "${name}"`, 'SyntaxError');
  return found.startTime;
}

interface MeasureOptions {
  detail?: unknown;
  start?: string | number;
  end?: string | number;
  duration?: number;
}

let origin: number | undefined;

export class Performance extends EventTarget {
  constructor(...args: unknown[]) {
    if (args[0] !== INTERNAL) throw new TypeError('Illegal constructor');
    super();
  }

  get timeOrigin(): number {
    origin ??= callSync<number>('clock.origin', {});
    return origin;
  }

  clearMarks(name?: string): void {
    entries = entries.filter((e) => e.entryType !== 'mark' || (name !== undefined && e.name !== String(name)));
  }

  clearMeasures(name?: string): void {
    entries = entries.filter((e) => e.entryType !== 'measure' || (name !== undefined && e.name !== String(name)));
  }

  // Deno keeps no resource timings: these exist and do nothing, as there.
  clearResourceTimings(): void {}

  setResourceTimingBufferSize(maxSize: number): void {
    requireArgs(arguments.length, 1, 'setResourceTimingBufferSize', 'Performance');
    void maxSize;
  }

  getEntries(): PerformanceEntry[] {
    return [...entries];
  }

  getEntriesByName(name: string, type?: string): PerformanceEntry[] {
    requireArgs(arguments.length, 1, 'getEntriesByName', 'Performance');
    return entries.filter((e) => e.name === String(name) && (type === undefined || e.entryType === String(type)));
  }

  getEntriesByType(type: string): PerformanceEntry[] {
    requireArgs(arguments.length, 1, 'getEntriesByType', 'Performance');
    return entries.filter((e) => e.entryType === String(type));
  }

  mark(name: string, options?: { detail?: unknown; startTime?: number }): PerformanceMark {
    requireArgs(arguments.length, 1, 'mark', 'Performance');
    const mark = new PerformanceMark(name, options);
    entries.push(mark);
    notify(mark);
    return mark;
  }

  measure(name: string, startOrOptions?: string | MeasureOptions, endMark?: string): PerformanceMeasure {
    requireArgs(arguments.length, 1, 'measure', 'Performance');
    let start: number;
    let end: number;
    let detail: unknown = null;
    if (startOrOptions !== null && typeof startOrOptions === 'object' && Object.keys(startOrOptions).length > 0) {
      if (endMark !== undefined) throw new TypeError('Options cannot be passed with "endMark"');
      const o = startOrOptions;
      if (o.start !== undefined && o.end !== undefined && o.duration !== undefined) throw new TypeError('Cannot specify "start", "end", and "duration" together in options');
      end = o.end !== undefined ? markTime(o.end) : o.start !== undefined && o.duration !== undefined ? markTime(o.start) + Number(o.duration) : monotonicNow();
      start = o.start !== undefined ? markTime(o.start) : o.duration !== undefined && o.end !== undefined ? end - Number(o.duration) : 0;
      detail = o.detail === undefined ? null : structuredCopy(o.detail);
    } else {
      end = endMark !== undefined ? markTime(endMark) : monotonicNow();
      start = typeof startOrOptions === 'string' ? markTime(startOrOptions) : 0;
    }
    const measure = new PerformanceMeasure(String(name), start, end - start, detail, INTERNAL);
    entries.push(measure);
    notify(measure);
    return measure;
  }

  now(): number {
    return monotonicNow();
  }

  toJSON(): { timeOrigin: number } {
    return { timeOrigin: this.timeOrigin };
  }

  override get [Symbol.toStringTag](): string {
    return 'Performance';
  }

  [PRIVATE_INSPECT](): unknown {
    if (this === Performance.prototype) return 'Performance';
    return inspectAs('Performance', { timeOrigin: this.timeOrigin });
  }
}

type ObserverCallback = (list: PerformanceObserverEntryList, observer: PerformanceObserver) => void;
const observers = new Set<PerformanceObserver>();

export class PerformanceObserverEntryList {
  readonly #entries: PerformanceEntry[];
  constructor(...args: unknown[]) {
    if (args[1] !== INTERNAL) throw new TypeError('Illegal constructor');
    this.#entries = args[0] as PerformanceEntry[];
  }
  getEntries(): PerformanceEntry[] {
    return [...this.#entries];
  }
  getEntriesByType(type: string): PerformanceEntry[] {
    return this.#entries.filter((e) => e.entryType === type);
  }
  getEntriesByName(name: string, type?: string): PerformanceEntry[] {
    return this.#entries.filter((e) => e.name === name && (type === undefined || e.entryType === type));
  }
}

export class PerformanceObserver {
  static readonly supportedEntryTypes: readonly string[] = Object.freeze(['mark', 'measure']);
  readonly #callback: ObserverCallback;
  #types = new Set<string>();
  #buffer: PerformanceEntry[] = [];
  #scheduled = false;

  constructor(callback: ObserverCallback) {
    requireArgs(arguments.length, 1, 'construct', 'PerformanceObserver');
    if (typeof callback !== 'function') throw new TypeError("Failed to construct 'PerformanceObserver': parameter 1 is not of type 'Function'.");
    this.#callback = callback;
  }

  observe(options: { entryTypes?: string[]; type?: string; buffered?: boolean } = {}): void {
    const types = options.entryTypes ?? (options.type !== undefined ? [options.type] : []);
    if (types.length === 0) throw new TypeError("Failed to execute 'observe' on 'PerformanceObserver': either an 'entryTypes' or 'type' member must be present.");
    for (const t of types) if (PerformanceObserver.supportedEntryTypes.includes(t)) this.#types.add(t);
    observers.add(this);
    if (options.buffered) for (const e of entries) this.enqueue(e);
  }

  disconnect(): void {
    observers.delete(this);
    this.#types.clear();
    this.#buffer = [];
  }

  takeRecords(): PerformanceEntry[] {
    const taken = this.#buffer;
    this.#buffer = [];
    return taken;
  }

  /** @internal */
  enqueue(entry: PerformanceEntry): void {
    if (!this.#types.has(entry.entryType)) return;
    this.#buffer.push(entry);
    if (this.#scheduled) return;
    this.#scheduled = true;
    queueMicrotask(() => {
      this.#scheduled = false;
      const list = this.takeRecords();
      if (list.length > 0) this.#callback(new PerformanceObserverEntryList(list, INTERNAL), this);
    });
  }
}

function notify(entry: PerformanceEntry): void {
  for (const observer of observers) observer.enqueue(entry);
}

const performance = new Performance(INTERNAL);
defineGlobal('performance', performance);
defineGlobal('Performance', Performance);
defineGlobal('PerformanceEntry', PerformanceEntry);
defineGlobal('PerformanceMark', PerformanceMark);
defineGlobal('PerformanceMeasure', PerformanceMeasure);
defineGlobal('PerformanceObserver', PerformanceObserver);
defineGlobal('PerformanceObserverEntryList', PerformanceObserverEntryList);
