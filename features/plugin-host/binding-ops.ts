/**
 * The persona's bindings: the `binding.ledger.*`, `binding.events.*`, `binding.memory.*`,
 * `binding.tools.*` and `binding.proposals.*` ops a plugin a persona runs may declare, each
 * answered only when the manifest declares the binding and the persona grants it
 * (kernel/broker/bindings.ts: the port, the check and its audit). They were the kernel's own
 * (kernel/broker/bindings.ts) until issue 25 moved them here, beside the plugin instance that
 * composes them into every plugin's op table (plugin-instance.ts).
 */
import { DenoOpError } from '../../kernel/broker/deno-error.ts';
import { defineOp, type OpDefinition } from '../../kernel/broker/op.ts';
import type { Extension } from '../../kernel/broker/extension.ts';
import { record } from '../../kernel/broker/args.ts';
import { bindingAttempt } from '../../kernel/broker/attempts.ts';
import { admit, forward, text, unavailable } from '../../kernel/broker/bindings.ts';

/** Longest text a plugin may put in a task title or an event through a binding. */
const MAX_TITLE = 200;
const MAX_TEXT = 2000;
const MAX_PAYLOAD_BYTES = 16 * 1024;

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
 * The persona's binding extension (named `kernel.bindings`, as errors and tests know it). Unlike
 * every other extension it is not handed in by the composition: the plugin instance composes it
 * itself (plugin-instance.ts). Its ops implement nothing; they check the grant the kernel
 * computes (manifest `bindings` ∩ the persona's) and forward to the implementations the loop
 * hands in (`BrokerContext.bindings`, kernel/broker/bindings.ts's BindingImplementations). Every
 * plugin a persona runs may be granted them, so every table has them; a composition changes
 * what they do by what it implements, not by registering ops.
 */
export const PERSONA_BINDING_OPS: Extension = {
  name: 'kernel.bindings',
  ops: [bindingLedgerCreateTask, bindingLedgerList, bindingEventsAppend, bindingMemoryRead, bindingToolsList, bindingToolsCall, bindingProposalsSubmit, bindingProposalsList] as OpDefinition[],
};
