/**
 * Inside the isolate: the only path to the host. Every call is `op` plus a JSON string of
 * arguments, answered by a JSON string `{"ok": value}` or `{"err": {"class", "message"}}`.
 * Strings are all that cross the boundary, so no live object (and no getter) ever leaves
 * the isolate, and the host can cap sizes before parsing anything.
 *
 * The functions that reach the host are captured here in module scope when `bindHost`
 * runs; they are never put on a global, so sandboxed code cannot call them directly.
 */
import { makeError } from './deno/errors.ts';

export interface HostFunctions {
  /** Synchronous op: blocks the isolate until the host answers. */
  sync(op: string, argsJson: string): string;
  /** Asynchronous op: returns a promise of the JSON answer. */
  async(op: string, argsJson: string): Promise<string>;
}

// The engine's own, captured before any script or polyfill can replace them.
const stringify = JSON.stringify;
const parse = JSON.parse;
const promiseThen = Promise.prototype.then;

/**
 * `promise.then(onFulfilled, onRejected)` through the engine's own method, as Deno's internals
 * use their primordials: a script that replaced `Promise.prototype.then` (Deno's own unit
 * tests do) changes nothing in how the shim's ops, timers and calls settle.
 */
export function thenOf<T, R1 = T, R2 = never>(promise: Promise<T>, onFulfilled?: ((value: T) => R1 | PromiseLike<R1>) | null, onRejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null): Promise<R1 | R2> {
  return promiseThen.call(promise, onFulfilled, onRejected) as Promise<R1 | R2>;
}

let host: HostFunctions | undefined;
let transferCap = 64 * 1024 * 1024;
let syncWaits = false;

/**
 * `waits`: a sync op may wait for asynchronous host work (the process tier: the isolate's
 * thread blocks, the kernel does not). In the trusted tier a sync op runs on the kernel's
 * own thread, so ops that would wait (`outputSync`) are refused there.
 */
export function bindHost(functions: HostFunctions, maxTransferBytes: number, waits = false): void {
  host = functions;
  transferCap = maxTransferBytes;
  syncWaits = waits;
}

export function syncMayWait(): boolean {
  return syncWaits;
}

/**
 * The small fields of an op's arguments (paths, URLs, names, flags): enough for the broker to
 * audit what a call attempted when the call itself is too large to send.
 */
function attemptSummary(args: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  try {
    if (args === null || typeof args !== 'object') return out;
    for (const key of Object.keys(args).slice(0, 32)) {
      const value = (args as Record<string, unknown>)[key];
      if ((typeof value === 'string' && value.length <= 4096) || typeof value === 'boolean' || typeof value === 'number') out[key] = value;
      else if (key === 'options' && value !== null && typeof value === 'object') out[key] = attemptSummary(value);
    }
  } catch {
    // whatever could be read is kept
  }
  return out;
}

function encode(op: string, args: unknown): string {
  const json = stringify(args ?? {});
  if (json.length > transferCap) {
    // Tell the host (with a small message, not the oversized one): it ends the run with
    // RTC_ERR_SANDBOX_TRANSFER and disposes the isolate, whatever the script catches. What
    // the call attempted goes with it, so the audit still names it.
    host?.sync('sandbox.limit', stringify({ reason: 'transfer', detail: `${op}: an argument of ${json.length} bytes`, op, attempt: attemptSummary(args) }));
    throw new RangeError(`${op}: argument of ${json.length} bytes exceeds the sandbox transfer cap of ${transferCap} bytes`);
  }
  return json;
}

function decode(answer: string): unknown {
  const parsed = parse(answer) as { ok?: unknown; err?: { class: string; message: string; code?: string } };
  if (parsed.err) throw makeError(parsed.err.class, parsed.err.message, parsed.err.code);
  return parsed.ok;
}

export function callSync<T>(op: string, args?: unknown): T {
  if (!host) throw new Error('sandbox host is not bound');
  return decode(host.sync(op, encode(op, args))) as T;
}

export async function callAsync<T>(op: string, args?: unknown): Promise<T> {
  if (!host) throw new Error('sandbox host is not bound');
  const answer = await host.async(op, encode(op, args));
  return decode(answer) as T;
}
