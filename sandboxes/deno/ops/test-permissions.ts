/**
 * Per-test permissions under `sandbox test`: `Deno.test({ permissions })` narrows the run's
 * grant for the duration of that test, as `deno test` does. The test's set is one more
 * layer on the run's gate (so it can only take away); asking for more than the run has is
 * Deno's "Can't escalate parent thread permissions". Kinds the object leaves out are none;
 * `"inherit"` keeps the run's grant, `"none"` takes everything away.
 */
import { PERMISSION_NAMES, emptyPermissionSet, type PermissionName, type PermissionRule } from '../../../kernel/permissions/descriptors.ts';
import { PermissionGate } from '../../../kernel/permissions/gate.ts';
import { grantValues, normalizeValue } from '../../../kernel/permissions/grant-values.ts';
import { DenoOpError } from '../../../kernel/broker/deno-error.ts';
import { Refusal } from '../../../kernel/broker/refusal.ts';
import { defineOp, type BrokerContext } from '../../../kernel/broker/op.ts';

type Spec = null | 'inherit' | 'none' | Record<string, unknown>;

/** A test asking for more than its run has: a refusal of that kind (audited by the broker). */
function escalation(kind: PermissionName, value: string | null = null): Refusal {
  return new Refusal(kind, value, "Can't escalate parent thread permissions");
}

function narrowed(base: PermissionGate, spec: Exclude<Spec, null | 'inherit'>, ctx: BrokerContext): PermissionGate {
  const set = { ...emptyPermissionSet() } as Record<PermissionName, PermissionRule>;
  if (spec !== 'none') {
    for (const [key, value] of Object.entries(spec)) {
      if (!(PERMISSION_NAMES as readonly string[]).includes(key)) throw new DenoOpError('TypeError', `Unknown permission "${key}" in the test's permissions`);
      const kind = key as PermissionName;
      if (value === false || value === undefined || value === null) continue;
      if (value === true || value === 'inherit') {
        const whole = base.query(kind);
        if (value === true && (whole.state !== 'granted' || whole.partial)) throw escalation(kind);
        set[kind] = { allow: true, deny: [] };
        continue;
      }
      const values = (Array.isArray(value) ? value : [value]).flatMap((v) => grantValues(kind, String(v), ctx.cwd));
      for (const v of values) if (base.query(kind, v).state !== 'granted') throw escalation(kind, v);
      set[kind] = { allow: values, deny: [] };
    }
  }
  return new PermissionGate([...base.layers, { label: 'test', set }]);
}

export const testPermissions = defineOp({
  name: 'test.permissions',
  mode: 'sync',
  parse: (raw) => {
    const spec = (raw as { permissions?: unknown } | null)?.permissions ?? null;
    if (spec !== null && spec !== 'inherit' && spec !== 'none' && (typeof spec !== 'object' || Array.isArray(spec))) {
      throw new DenoOpError('TypeError', 'permissions must be "inherit", "none" or an object');
    }
    return { spec: spec as Spec };
  },
  needs: () => [],
  // What the test asks for: each kind it names with a value other than false.
  attempts: (raw, ctx) => {
    const spec = raw.permissions;
    if (spec === null || typeof spec !== 'object' || Array.isArray(spec)) return [];
    return Object.entries(spec as Record<string, unknown>).flatMap(([key, value]) => {
      if (!(PERMISSION_NAMES as readonly string[]).includes(key) || value === false || value === null || value === undefined) return [];
      const kind = key as PermissionName;
      if (value === true || value === 'inherit') return [{ kind }];
      return (Array.isArray(value) ? value : [value]).map((v) => {
        try {
          return { kind, value: normalizeValue(kind, String(v), ctx.cwd) };
        } catch {
          return { kind };
        }
      });
    });
  },
  run({ spec }, ctx) {
    if (!ctx.testGrant) throw new DenoOpError('Error', 'test permissions are only set by the test runner');
    const base = ctx.testGrant.base;
    ctx.gate = spec === null || spec === 'inherit' ? base : narrowed(base, spec, ctx);
    return null;
  },
});
