/**
 * Bindings: kernel powers Deno has no word for, in the sense of Cloudflare workerd's
 * bindings. A plugin reaches one as `Runtimectl.bindings.<name>.<method>(...)`; the broker
 * answers only when the plugin's manifest declares the binding AND the persona running it
 * grants it. Otherwise the call throws `Deno.errors.NotCapable` naming which of the two is
 * missing. Each decision is audited like a permission check (permission `binding`).
 *
 * The ops only check and forward: what a binding does (which ledger, which log) is the
 * loop's implementation, handed to the broker in `BrokerContext.bindings`.
 */
import { asDenoOpError, DenoOpError } from './deno-error.ts';
import type { BrokerContext, OpCall, OpDefinition } from './op.ts';
import type { Extension } from './extension.ts';
import { defineOp } from './op.ts';
import { record } from './args.ts';
import { bindingAttempt } from './attempts.ts';
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

/** Longest text a plugin may put in a task title or an event through a binding. */
const MAX_TITLE = 200;
const MAX_TEXT = 2000;
const MAX_PAYLOAD_BYTES = 16 * 1024;

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

export const bindingLedgerCreateTask = defineOp({
  name: 'binding.ledger.createTask',
  mode: 'async',
  parse(raw) {
    const o = record(raw);
    return { title: text(o, 'title', MAX_TITLE, true), description: text(o, 'description', MAX_TEXT, false) };
  },
  needs: () => [],
  attempts: bindingAttempt('ledger'),
  async run(a, ctx, call) {
    const b = admit(ctx, call, 'ledger');
    const ledger = b.impl.ledger ?? unavailable('ledger');
    return forward(() => ledger.createTask(a, ctx.subject));
  },
});

export const bindingLedgerList = defineOp({
  name: 'binding.ledger.list',
  mode: 'async',
  parse(raw) {
    const o = record(raw ?? {});
    const state = text(o, 'state', 40, false);
    return state === '' ? {} : { state };
  },
  needs: () => [],
  attempts: bindingAttempt('ledger'),
  async run(a, ctx, call) {
    const b = admit(ctx, call, 'ledger');
    const ledger = b.impl.ledger ?? unavailable('ledger');
    return forward(() => ledger.list(a));
  },
});

export const bindingEventsAppend = defineOp({
  name: 'binding.events.append',
  mode: 'async',
  parse(raw) {
    const o = record(raw);
    const type = text(o, 'type', 64, true);
    if (!/^[a-z][a-z0-9_]{0,63}$/.test(type)) throw new DenoOpError('TypeError', `event type "${type}" must be lowercase letters, digits and "_"`);
    const payload = record(o.payload ?? {});
    if (JSON.stringify(payload).length > MAX_PAYLOAD_BYTES) throw new DenoOpError('RangeError', `an event payload may have at most ${MAX_PAYLOAD_BYTES} bytes of JSON`);
    return { type, payload };
  },
  needs: () => [],
  attempts: bindingAttempt('events'),
  async run(a, ctx, call) {
    const b = admit(ctx, call, 'events');
    const events = b.impl.events ?? unavailable('events');
    return forward(() => events.append(a.type, a.payload, ctx.subject));
  },
});

export const bindingMemoryRead = defineOp({
  name: 'binding.memory.read',
  mode: 'async',
  parse: () => ({}),
  needs: () => [],
  attempts: bindingAttempt('memory'),
  async run(_a, ctx, call) {
    const b = admit(ctx, call, 'memory');
    const memory = b.impl.memory ?? unavailable('memory');
    return forward(() => memory.read());
  },
});

export const bindingToolsList = defineOp({
  name: 'binding.tools.list',
  mode: 'async',
  parse: () => ({}),
  needs: () => [],
  attempts: bindingAttempt('tools'),
  async run(_a, ctx, call) {
    const b = admit(ctx, call, 'tools');
    const tools = b.impl.tools ?? unavailable('tools');
    return forward(() => tools.list());
  },
});

export const bindingToolsCall = defineOp({
  name: 'binding.tools.call',
  mode: 'async',
  parse(raw) {
    const o = record(raw);
    const name = text(o, 'name', 200, true);
    const args = o.args === undefined ? {} : record(o.args);
    if (JSON.stringify(args).length > MAX_PAYLOAD_BYTES * 4) throw new DenoOpError('RangeError', `tool arguments may have at most ${MAX_PAYLOAD_BYTES * 4} bytes of JSON`);
    return { name, args };
  },
  needs: () => [],
  attempts: bindingAttempt('tools'),
  async run(a, ctx, call) {
    const b = admit(ctx, call, 'tools');
    const tools = b.impl.tools ?? unavailable('tools');
    return forward(() => tools.call(a.name, a.args, ctx.subject));
  },
});

/**
 * A proposal to the persona's review queue. The broker passes the plugin's object through as
 * it came (the queue checks it against its own schema and answers a refusal for anything
 * wrong, too large included, so a bad proposal never throws into the plugin); only a value
 * that is not an object is a TypeError here.
 */
export const bindingProposalsSubmit = defineOp({
  name: 'binding.proposals.submit',
  mode: 'async',
  parse(raw) {
    const o = record(raw);
    return { proposal: o.proposal };
  },
  needs: () => [],
  attempts: bindingAttempt('proposals'),
  async run(a, ctx, call) {
    const b = admit(ctx, call, 'proposals');
    const proposals = b.impl.proposals ?? unavailable('proposals');
    return forward(() => proposals.submit(a.proposal, ctx.subject));
  },
});

export const bindingProposalsList = defineOp({
  name: 'binding.proposals.list',
  mode: 'async',
  parse: () => ({}),
  needs: () => [],
  attempts: bindingAttempt('proposals'),
  async run(_a, ctx, call) {
    const b = admit(ctx, call, 'proposals');
    const proposals = b.impl.proposals ?? unavailable('proposals');
    return forward(() => proposals.list(ctx.subject));
  },
});

/**
 * The kernel's own binding extension. Unlike every other extension it is not handed in by the
 * composition: the plugin instance composes it itself (features/plugin-host/plugin-instance.ts),
 * because it is truly kernel. Its ops implement nothing; they check the grant the kernel
 * computes (manifest `bindings` ∩ the persona's) and forward to the implementations the loop
 * hands in (`BrokerContext.bindings`, BindingImplementations above). Every plugin a persona
 * runs may be granted them, so every table has them; a composition changes what they do by
 * what it implements, not by registering ops.
 */
export const KERNEL_BINDING_OPS: Extension = {
  name: 'kernel.bindings',
  ops: [bindingLedgerCreateTask, bindingLedgerList, bindingEventsAppend, bindingMemoryRead, bindingToolsList, bindingToolsCall, bindingProposalsSubmit, bindingProposalsList] as OpDefinition[],
};
