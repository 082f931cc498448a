/**
 * `Deno.permissions.query/request/revoke`, answered from the run's live grant. A revocation
 * narrows the grant itself (PermissionGate.revoke, Deno's rule), so every later check of
 * the run sees it: a revoked path is no longer readable, a revoked variable no longer
 * readable by `Deno.env.get`, and a path beneath a revoked folder queries "prompt" too.
 * A `run` descriptor names a program the way `Deno.Command` does: a bare name is resolved
 * on the sandbox's PATH now.
 */
import { DenoOpError } from '../../../kernel/broker/deno-error.ts';
import { GRANTABLE, PERMISSION_NAMES, type PermissionName } from '../../../kernel/permissions/descriptors.ts';
import { normalizeValue } from '../../../kernel/permissions/grant-values.ts';
import { resolveCommand } from '../../../kernel/permissions/run-grants.ts';
import { defineOp, type BrokerContext } from '../../../kernel/broker/op.ts';
import { record } from '../../../kernel/broker/args.ts';

const VALUE_KEY: Partial<Record<PermissionName, string>> = { read: 'path', write: 'path', ffi: 'path', net: 'host', import: 'host', env: 'variable', run: 'command', sys: 'kind' };

function normalize(kind: PermissionName, value: string, ctx: BrokerContext): string {
  if (kind === 'run') return resolveCommand(value, { searchPath: ctx.env.PATH ?? '', cwd: ctx.cwd, base: ctx.cwd }) ?? value;
  return normalizeValue(kind, value, ctx.cwd);
}

function descriptor(raw: unknown, ctx: BrokerContext): { kind: PermissionName; value: string | undefined } {
  const o = record(raw);
  const kind = o.name;
  if (typeof kind !== 'string' || !(PERMISSION_NAMES as readonly string[]).includes(kind)) {
    throw new DenoOpError('TypeError', `The provided value "${String(kind)}" is not a valid permission name.`);
  }
  const key = VALUE_KEY[kind as PermissionName]!;
  const raw2 = o[key];
  if (raw2 !== undefined && typeof raw2 !== 'string') throw new DenoOpError('TypeError', `"${key}" must be a string`);
  return { kind: kind as PermissionName, value: raw2 === undefined ? undefined : normalize(kind as PermissionName, raw2, ctx) };
}

function answer(ctx: BrokerContext, kind: PermissionName, value: string | undefined) {
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

/**
 * No terminal: a request for something not granted is refused, as `deno run --no-prompt`
 * does. A request is an attempt to gain the permission, so a refused one is audited as
 * denied (reason `permission-request`). A query is not audited: it reads the script's own
 * grant, reaches nothing outside the isolate, and changes nothing; a revocation only narrows.
 */
export const permissionsRequest = defineOp({
  name: 'permissions.request',
  mode: 'sync',
  parse: descriptor,
  needs: () => [],
  attempts: (raw, ctx) => {
    const kind = raw.name;
    if (typeof kind !== 'string' || !(PERMISSION_NAMES as readonly string[]).includes(kind)) return [];
    const value = raw[VALUE_KEY[kind as PermissionName]!];
    return [typeof value === 'string' ? { kind: kind as PermissionName, value: normalize(kind as PermissionName, value, ctx) } : { kind: kind as PermissionName }];
  },
  run: (d, ctx, call) => {
    const a = answer(ctx, d.kind, d.value);
    if (a.state === 'granted') return a;
    call.denied(d.kind, d.value ?? null, 'permission-request');
    return { state: 'denied', partial: false };
  },
});

export const permissionsRevoke = defineOp({
  name: 'permissions.revoke',
  mode: 'sync',
  parse: descriptor,
  needs: () => [],
  run: (d, ctx) => {
    ctx.gate.revoke(d.kind, d.value);
    return answer(ctx, d.kind, d.value);
  },
});
