/** `Deno.permissions.query/request/revoke`, answered from the run's grant. */
import { DenoOpError } from '../deno-error.ts';
import { GRANTABLE, PERMISSION_NAMES, type PermissionName } from '../../permissions/descriptors.ts';
import { normalizeValue } from '../../permissions/parse-flags.ts';
import { defineOp, type BrokerContext } from '../op.ts';
import { record } from './args.ts';

const VALUE_KEY: Partial<Record<PermissionName, string>> = { read: 'path', write: 'path', ffi: 'path', net: 'host', import: 'host', env: 'variable', run: 'command', sys: 'kind' };

function descriptor(raw: unknown, ctx: BrokerContext): { kind: PermissionName; value: string | undefined } {
  const o = record(raw);
  const kind = o.name;
  if (typeof kind !== 'string' || !(PERMISSION_NAMES as readonly string[]).includes(kind)) {
    throw new DenoOpError('TypeError', `The provided value "${String(kind)}" is not a valid permission name.`);
  }
  const key = VALUE_KEY[kind as PermissionName]!;
  const raw2 = o[key];
  if (raw2 !== undefined && typeof raw2 !== 'string') throw new DenoOpError('TypeError', `"${key}" must be a string`);
  return { kind: kind as PermissionName, value: raw2 === undefined ? undefined : normalizeValue(kind as PermissionName, raw2, ctx.cwd) };
}

/** Values revoked during this run, per kind: revocation only ever narrows a grant. */
const revoked = new WeakMap<BrokerContext, Set<string>>();

function answer(ctx: BrokerContext, kind: PermissionName, value: string | undefined) {
  const gone = revoked.get(ctx);
  if (gone && (gone.has(`${kind}:*`) || (value !== undefined && gone.has(`${kind}:${value}`)))) return { state: 'prompt', partial: false };
  // Kinds the sandbox never grants (sys, ffi, import) answer as Deno does without the flag:
  // `prompt`, or `denied` where a --deny flag names them.
  if (!GRANTABLE.has(kind)) {
    const denied = ctx.gate.layers.some((l) => l.set[kind].deny === true || (value !== undefined && (l.set[kind].deny as readonly string[]).includes(value)));
    return { state: denied ? 'denied' : 'prompt', partial: false };
  }
  const a = ctx.gate.query(kind, value);
  return { state: a.state, partial: a.partial };
}

export const permissionsQuery = defineOp({
  name: 'permissions.query',
  mode: 'sync',
  parse: descriptor,
  needs: () => [],
  run: (d, ctx) => answer(ctx, d.kind, d.value),
});

// No terminal: a request for something not granted is refused, as `deno run --no-prompt` does.
export const permissionsRequest = defineOp({
  name: 'permissions.request',
  mode: 'sync',
  parse: descriptor,
  needs: () => [],
  run: (d, ctx) => {
    const a = answer(ctx, d.kind, d.value);
    return a.state === 'granted' ? a : { state: 'denied', partial: false };
  },
});

export const permissionsRevoke = defineOp({
  name: 'permissions.revoke',
  mode: 'sync',
  parse: descriptor,
  needs: () => [],
  run: (d, ctx) => {
    const set = revoked.get(ctx) ?? new Set<string>();
    set.add(`${d.kind}:${d.value ?? '*'}`);
    revoked.set(ctx, set);
    return answer(ctx, d.kind, d.value);
  },
});
