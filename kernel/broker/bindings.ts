/**
 * Bindings: kernel powers Deno has no word for, in the sense of Cloudflare workerd's
 * bindings. A plugin reaches one as `Runtimectl.bindings.<name>.<method>(...)`; the broker
 * answers only when the plugin's manifest declares the binding AND the persona running it
 * grants it. Otherwise the call throws `Deno.errors.NotCapable` naming which of the two is
 * missing. Each decision is audited like a permission check (permission `binding`).
 *
 * The ops only check and forward: what a binding does (which ledger, which log) is the
 * loop's implementation, handed to the broker in `BrokerContext.bindings`. The kernel owns
 * this port and the check (`admit`, `forward`, `text`, `unavailable`); the ops are extensions
 * built on it: the persona's bindings (features/plugin-host/binding-ops.ts) and a gate run's
 * (features/gate/binding-ops.ts).
 */
import { asDenoOpError, DenoOpError } from './deno-error.ts';
import type { BrokerContext, OpCall } from './op.ts';
import type { GateBindings } from '../contracts/gate-check.ts';

export interface TaskSummary {
  id: string;
  title: string;
  state: string;
}

/** What the loop implements for one persona; a missing member is a binding this kernel cannot serve. */
export interface BindingImplementations {
  ledger?: {
    createTask(input: { title: string; description: string }, by: string): TaskSummary | Promise<TaskSummary>;
    list(filter: { state?: string }): TaskSummary[] | Promise<TaskSummary[]>;
  };
  events?: {
    append(type: string, payload: Record<string, unknown>, by: string): Promise<{ seq: number }>;
  };
  memory?: {
    read(): unknown;
  };
  /** the persona's tools (features/persona/tools/call-tool.ts): each call runs in the tool's own isolate */
  tools?: {
    list(): unknown[] | Promise<unknown[]>;
    call(name: string, args: unknown, by: string): Promise<unknown>;
  };
  /**
   * the persona's review queue (features/review-queue/agent-proposals.ts): a proposal with its evidence,
   * answered `{status: "queued", ...}` or `{status: "refused", reason, message, ...}`, never thrown
   */
  proposals?: {
    submit(proposal: unknown, by: string): unknown | Promise<unknown>;
    list(by: string): unknown[] | Promise<unknown[]>;
  };
  /** a gate run's services for one of its check plugins (kernel/contracts/gate-check.ts) */
  gate?: GateBindings;
}

/** The bindings one plugin instance may reach. */
export interface PluginBindings {
  /** who grants (the persona id), for messages */
  grantor: string;
  /** who grants, when it is not a persona: `gate profile "x" (checks[4].bindings)` */
  grantorLabel?: string;
  /** the plugin manifest's `bindings` */
  declared: readonly string[];
  /** the persona profile's `bindings` */
  granted: readonly string[];
  impl: BindingImplementations;
}

/** Throws a NotCapable Refusal (the broker audits it) unless the binding is both declared and granted. */
export function admit(ctx: BrokerContext, call: OpCall, binding: string): PluginBindings {
  const b = ctx.bindings;
  let why: string | undefined;
  if (!b) why = 'bindings exist only for plugins a persona runs';
  else if (!b.declared.includes(binding)) why = `plugin ${ctx.subject} does not declare it (plugin.yaml bindings: [${b.declared.join(', ')}])`;
  else if (!b.granted.includes(binding)) why = `${b.grantorLabel ?? `persona "${b.grantor}"`} does not grant it (${b.grantorLabel ? 'bindings granted' : 'profile bindings'}: [${b.granted.join(', ')}])`;
  if (why !== undefined || !b) call.refuse('binding', binding, `Requires the "${binding}" binding: ${why ?? 'not available'}`, 'binding');
  call.granted('binding', binding);
  return b;
}

/** A failure of the implementation becomes an ordinary Error inside the isolate, never a host fault. */
export async function forward<T>(fn: () => T | Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    throw asDenoOpError(error);
  }
}

export function text(o: Record<string, unknown>, key: string, max: number, required: boolean): string {
  const value = o[key];
  if (value === undefined || value === null) {
    if (required) throw new DenoOpError('TypeError', `"${key}" is required`);
    return '';
  }
  if (typeof value !== 'string') throw new DenoOpError('TypeError', `"${key}" must be a string`);
  if (value.length > max) throw new DenoOpError('RangeError', `"${key}" is longer than ${max} characters`);
  return value;
}

export function unavailable(binding: string): never {
  throw new DenoOpError('NotSupported', `the "${binding}" binding is not implemented by this kernel`);
}
