/** `Event` and the event classes Deno has, with their state kept out of reach of scripts. */
import { PRIVATE_INSPECT, inspectAs } from '../../web/inspect.ts';

export interface EventState {
  type: string;
  bubbles: boolean;
  cancelable: boolean;
  composed: boolean;
  initialized: boolean;
  dispatching: boolean;
  canceled: boolean;
  stopPropagation: boolean;
  stopImmediate: boolean;
  inPassive: boolean;
  target: object | null;
  currentTarget: object | null;
  phase: number;
}

const states = new WeakMap<object, EventState>();

export function eventState(event: object): EventState {
  const state = states.get(event);
  if (!state) throw new TypeError('Illegal invocation');
  return state;
}

/** Deno's wording for a call with too few arguments. */
export function requireArgs(given: number, needed: number, method: string, owner: string): void {
  if (given >= needed) return;
  const what = method === 'construct' ? `Failed to construct '${owner}'` : `Failed to execute '${method}' on '${owner}'`;
  throw new TypeError(`${what}: ${needed} argument${needed === 1 ? '' : 's'} required, but only ${given} present`);
}

export interface EventInit {
  bubbles?: boolean;
  cancelable?: boolean;
  composed?: boolean;
}

export class Event {
  static readonly NONE = 0;
  static readonly CAPTURING_PHASE = 1;
  static readonly AT_TARGET = 2;
  static readonly BUBBLING_PHASE = 3;

  constructor(type: string, init: EventInit = {}) {
    requireArgs(arguments.length, 1, 'construct', new.target?.name ?? 'Event');
    if (init !== undefined && init !== null && typeof init !== 'object') throw new TypeError(`Failed to construct '${new.target?.name ?? 'Event'}': parameter 2 is not of type 'EventInit'.`);
    const o = init ?? {};
    states.set(this, {
      type: String(type),
      bubbles: Boolean(o.bubbles),
      cancelable: Boolean(o.cancelable),
      composed: Boolean(o.composed),
      initialized: true,
      dispatching: false,
      canceled: false,
      stopPropagation: false,
      stopImmediate: false,
      inPassive: false,
      target: null,
      currentTarget: null,
      phase: 0,
    });
  }

  get type(): string {
    return eventState(this).type;
  }
  get bubbles(): boolean {
    return eventState(this).bubbles;
  }
  get cancelable(): boolean {
    return eventState(this).cancelable;
  }
  get composed(): boolean {
    return eventState(this).composed;
  }
  get target(): object | null {
    return eventState(this).target;
  }
  get srcElement(): object | null {
    return eventState(this).target;
  }
  get currentTarget(): object | null {
    return eventState(this).currentTarget;
  }
  get eventPhase(): number {
    return eventState(this).phase;
  }
  get defaultPrevented(): boolean {
    return eventState(this).canceled;
  }
  get returnValue(): boolean {
    return !eventState(this).canceled;
  }
  set returnValue(value: boolean) {
    if (!value) this.preventDefault();
  }
  get cancelBubble(): boolean {
    return eventState(this).stopPropagation;
  }
  set cancelBubble(value: boolean) {
    if (value) eventState(this).stopPropagation = true;
  }
  get isTrusted(): boolean {
    return false;
  }
  // Deno leaves timeStamp at 0.
  get timeStamp(): number {
    return 0;
  }

  composedPath(): object[] {
    const state = eventState(this);
    return state.dispatching && state.currentTarget ? [state.currentTarget] : [];
  }

  preventDefault(): void {
    const state = eventState(this);
    if (state.cancelable && !state.inPassive) state.canceled = true;
  }

  stopPropagation(): void {
    eventState(this).stopPropagation = true;
  }

  stopImmediatePropagation(): void {
    const state = eventState(this);
    state.stopPropagation = true;
    state.stopImmediate = true;
  }

  get [Symbol.toStringTag](): string {
    return 'Event';
  }

  /** The attributes Deno's console shows, then the subclass's own. */
  [PRIVATE_INSPECT](): unknown {
    const base = {
      bubbles: this.bubbles, cancelable: this.cancelable, composed: this.composed, currentTarget: this.currentTarget,
      defaultPrevented: this.defaultPrevented, eventPhase: this.eventPhase, srcElement: this.srcElement, target: this.target,
      returnValue: this.returnValue, timeStamp: this.timeStamp, type: this.type,
    };
    return inspectAs(this.constructor.name, { ...base, ...this.inspectExtra() });
  }

  /** Extra attributes a subclass shows in the console. */
  protected inspectExtra(): Record<string, unknown> {
    return {};
  }
}

for (const [name, value] of Object.entries({ NONE: 0, CAPTURING_PHASE: 1, AT_TARGET: 2, BUBBLING_PHASE: 3 })) {
  Object.defineProperty(Event.prototype, name, { value, enumerable: true });
}

export class CustomEvent<T = unknown> extends Event {
  readonly #detail: T | null;
  constructor(type: string, init: EventInit & { detail?: T } = {}) {
    super(type, init);
    requireArgs(arguments.length, 1, 'construct', 'CustomEvent');
    this.#detail = init?.detail ?? null;
  }
  get detail(): T | null {
    return this.#detail;
  }
  override get [Symbol.toStringTag](): string {
    return 'CustomEvent';
  }
  protected override inspectExtra(): Record<string, unknown> {
    return { detail: this.#detail };
  }
}

export class ErrorEvent extends Event {
  readonly #init: { message: string; filename: string; lineno: number; colno: number; error: unknown };
  constructor(type: string, init: EventInit & { message?: string; filename?: string; lineno?: number; colno?: number; error?: unknown } = {}) {
    super(type, init);
    this.#init = { message: String(init?.message ?? ''), filename: String(init?.filename ?? ''), lineno: Number(init?.lineno ?? 0), colno: Number(init?.colno ?? 0), error: init?.error };
  }
  get message(): string {
    return this.#init.message;
  }
  get filename(): string {
    return this.#init.filename;
  }
  get lineno(): number {
    return this.#init.lineno;
  }
  get colno(): number {
    return this.#init.colno;
  }
  get error(): unknown {
    return this.#init.error;
  }
  override get [Symbol.toStringTag](): string {
    return 'ErrorEvent';
  }
  protected override inspectExtra(): Record<string, unknown> {
    return { ...this.#init };
  }
}

export class MessageEvent<T = unknown> extends Event {
  readonly #init: { data: T | null; origin: string; lastEventId: string; source: unknown; ports: readonly unknown[] };
  constructor(type: string, init: EventInit & { data?: T; origin?: string; lastEventId?: string; source?: unknown; ports?: unknown[] } = {}) {
    super(type, init);
    this.#init = { data: init?.data ?? null, origin: String(init?.origin ?? ''), lastEventId: String(init?.lastEventId ?? ''), source: init?.source ?? null, ports: Object.freeze([...(init?.ports ?? [])]) };
  }
  get data(): T | null {
    return this.#init.data;
  }
  get origin(): string {
    return this.#init.origin;
  }
  get lastEventId(): string {
    return this.#init.lastEventId;
  }
  get source(): unknown {
    return this.#init.source;
  }
  get ports(): readonly unknown[] {
    return this.#init.ports;
  }
  override get [Symbol.toStringTag](): string {
    return 'MessageEvent';
  }
  protected override inspectExtra(): Record<string, unknown> {
    return { data: this.#init.data, origin: this.#init.origin, lastEventId: this.#init.lastEventId };
  }
}

export class CloseEvent extends Event {
  readonly #init: { wasClean: boolean; code: number; reason: string };
  constructor(type: string, init: EventInit & { wasClean?: boolean; code?: number; reason?: string } = {}) {
    super(type, init);
    this.#init = { wasClean: Boolean(init?.wasClean), code: Number(init?.code ?? 0), reason: String(init?.reason ?? '') };
  }
  get wasClean(): boolean {
    return this.#init.wasClean;
  }
  get code(): number {
    return this.#init.code;
  }
  get reason(): string {
    return this.#init.reason;
  }
  override get [Symbol.toStringTag](): string {
    return 'CloseEvent';
  }
  protected override inspectExtra(): Record<string, unknown> {
    return { ...this.#init };
  }
}

export class ProgressEvent extends Event {
  readonly #init: { lengthComputable: boolean; loaded: number; total: number };
  constructor(type: string, init: EventInit & { lengthComputable?: boolean; loaded?: number; total?: number } = {}) {
    super(type, init);
    this.#init = { lengthComputable: Boolean(init?.lengthComputable), loaded: Number(init?.loaded ?? 0), total: Number(init?.total ?? 0) };
  }
  get lengthComputable(): boolean {
    return this.#init.lengthComputable;
  }
  get loaded(): number {
    return this.#init.loaded;
  }
  get total(): number {
    return this.#init.total;
  }
  override get [Symbol.toStringTag](): string {
    return 'ProgressEvent';
  }
  protected override inspectExtra(): Record<string, unknown> {
    return { ...this.#init };
  }
}

export class PromiseRejectionEvent extends Event {
  readonly #init: { promise: Promise<unknown>; reason: unknown };
  constructor(type: string, init: EventInit & { promise: Promise<unknown>; reason?: unknown }) {
    super(type, init);
    requireArgs(arguments.length, 2, 'construct', 'PromiseRejectionEvent');
    this.#init = { promise: init.promise, reason: init.reason };
  }
  get promise(): Promise<unknown> {
    return this.#init.promise;
  }
  get reason(): unknown {
    return this.#init.reason;
  }
  override get [Symbol.toStringTag](): string {
    return 'PromiseRejectionEvent';
  }
  protected override inspectExtra(): Record<string, unknown> {
    return { ...this.#init };
  }
}
