/**
 * The common frame of every storage binding op: the plugin must declare the binding (its
 * manifest's `bindings`) and the kernel must have granted it (only persistence and ledger
 * plugins are given a StorageGrant, kernel/broker/op.ts), the call must name an open session, and whatever the
 * op throws reaches the plugin as an ordinary Error whose message starts with the kernel's
 * error code, so a plugin that passes it on is reported with that code.
 */
import { kernelError } from '../../../kernel/errors.ts';
import { asDenoOpError, DenoOpError } from '../../../kernel/broker/deno-error.ts';
import { defineOp, type BrokerContext, type OpCall, type OpDefinition, type StorageGrant } from '../../../kernel/broker/op.ts';
import { bindingAttempt } from '../../../kernel/broker/attempts.ts';
import { Refusal } from '../../../kernel/broker/refusal.ts';
import { record } from '../../../kernel/broker/args.ts';
import { StorageHost, type StorageSession } from './storage-session.ts';

export const STORAGE_BINDING_NAMES = ['storage.files', 'storage.sqlite', 'storage.postgres', 'storage.ledger'] as const;
export type StorageBindingName = (typeof STORAGE_BINDING_NAMES)[number];

/**
 * A refusal is audited by the broker (a Refusal); a pass is not, unlike the persona bindings:
 * a storage op runs per appended batch, and the grant behind it is fixed at the plugin's load.
 */
function admit(ctx: BrokerContext, call: OpCall, binding: StorageBindingName): StorageHost {
  const grant: StorageGrant | undefined = ctx.storage;
  let why: string | undefined;
  if (!grant) why = 'storage bindings are handed only to persistence backends and the ledger';
  else if (!grant.declared.includes(binding)) why = `plugin ${ctx.subject} does not declare it (plugin.yaml bindings: [${grant.declared.join(', ')}])`;
  if (why !== undefined || !grant) call.refuse('binding', binding, `Requires the "${binding}" binding: ${why ?? 'not available'}`, 'binding');
  // The kernel keeps the grant's host opaque (kernel/broker/op.ts); only this feature makes one
  // (shared-instance.ts), so another is a composition bug, never the plugin's doing.
  if (!(grant.host instanceof StorageHost)) throw kernelError('RTC_ERR_PERSISTENCE_BINDING', `the storage grant of plugin ${ctx.subject} holds no storage host of the persistence feature`, { internal: true });
  return grant.host;
}

/** The token names no session this binding serves: refused as the binding (audited by the broker). */
export function noSession(binding: StorageBindingName, message: string): Refusal {
  return new Refusal('binding', binding, message, 'binding');
}

export interface StorageOpSpec<A, R> {
  name: string;
  binding: StorageBindingName;
  mode: 'sync' | 'async';
  /** checks the arguments other than `s` */
  parse(o: Record<string, unknown>): A;
  run(session: StorageSession, args: A, ctx: BrokerContext): R | Promise<R>;
}

export function storageOp<A, R>(spec: StorageOpSpec<A, R>): OpDefinition<{ s: unknown; args: A }, R> {
  return defineOp({
    name: spec.name,
    mode: spec.mode,
    parse(raw) {
      const o = record(raw);
      return { s: o.s, args: spec.parse(o) };
    },
    needs: () => [],
    attempts: bindingAttempt(spec.binding),
    run(a, ctx, call) {
      const session = admit(ctx, call, spec.binding).get(a.s, spec.binding);
      if (spec.mode === 'sync') {
        try {
          return spec.run(session, a.args, ctx) as R;
        } catch (error) {
          throw asDenoOpError(error);
        }
      }
      return (async () => {
        try {
          return await spec.run(session, a.args, ctx);
        } catch (error) {
          throw asDenoOpError(error);
        }
      })() as R;
    },
  });
}

/** A relative path argument. */
export function pathArg(o: Record<string, unknown>, key = 'path'): string {
  const value = o[key];
  if (typeof value !== 'string' || value === '' || value.includes('\0')) throw new DenoOpError('TypeError', `"${key}" must be a non-empty relative path`);
  return value;
}

/** Text data to write. */
export function dataArg(o: Record<string, unknown>, key = 'data'): string {
  const value = o[key];
  if (typeof value !== 'string') throw new DenoOpError('TypeError', `"${key}" must be a string`);
  return value;
}

export function optInt(o: Record<string, unknown>, key: string, min = 0): number | undefined {
  const value = o[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) throw new DenoOpError('RangeError', `"${key}" must be an integer ≥ ${min}`);
  return value;
}
