/**
 * What one tool call used, measured where it ran (the plugin instance, the script run, the
 * mounted server) and handed to whoever metered the call (PersonaRuntime.callTool).
 *
 * The meter travels with the call as an AsyncLocalStorage context, not as a field of the
 * instance: with a field (`lastCall`), two calls of one tool in flight at once read each
 * other's figures, and a call that ended on a limit was charged whatever the other left
 * there (issue 27, item 9b). A call nested in another (a tool calling a tool through its
 * binding) is measured by its own meter; its caller is charged only its own isolate's time.
 *
 * A call ended by its CPU or wall limit is charged at least that limit (`chargedFor`): an
 * isolate disposed by the limit can no longer say what it used, and a charge of 0 would
 * give its time back to the budget it just broke.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface CallUsage {
  cpuMs: number;
  wallMs: number;
}

const meters = new AsyncLocalStorage<CallUsage>();

/** Runs `fn` with `meter` collecting what the calls inside it report. */
export function withCallMeter<T>(meter: CallUsage, fn: () => Promise<T>): Promise<T> {
  return meters.run(meter, fn);
}

/** Adds what a call used to the meter of the tool call it belongs to (nothing outside one). */
export function reportCallUsage(usage: CallUsage): void {
  const meter = meters.getStore();
  if (!meter) return;
  meter.cpuMs += usage.cpuMs;
  meter.wallMs += usage.wallMs;
}

/** What a call that ended with `code` is charged: at least the limit it was ended by. */
export function chargedFor(measured: CallUsage, code: string | undefined, limits: { cpuMs: number; wallMs: number }): CallUsage {
  if (code === 'RTC_ERR_SANDBOX_CPU') return { cpuMs: Math.max(measured.cpuMs, limits.cpuMs), wallMs: measured.wallMs };
  if (code === 'RTC_ERR_SANDBOX_WALL' || code === 'RTC_ERR_TOOL_MCP_TIMEOUT') return { cpuMs: measured.cpuMs, wallMs: Math.max(measured.wallMs, limits.wallMs) };
  return measured;
}
