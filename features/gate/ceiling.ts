/**
 * The gate's permission ceiling in its two uses: as the bound of the Deno flags a draft's
 * tests run with (what its plugin.yaml declares, within the ceiling, plus the test's own
 * scratch folder: `testFlags`), and as the bound a draft's plugin.yaml may not ask beyond.
 * `${plugin}` is the snapshot of the draft and `${scratch}` the scratch folder of the run.
 */
import { kernelError } from '../../kernel/errors.ts';
import { toPermissionSet, type PathVariables, type PermissionsManifest } from '../../kernel/manifest/permissions-schema.ts';
import type { PermissionName, RuleSide } from '../../kernel/permissions/descriptors.ts';
import { PermissionGate } from '../../kernel/permissions/gate.ts';

const KINDS = ['read', 'write', 'net', 'env', 'run'] as const satisfies readonly PermissionName[];

function flag(side: 'allow' | 'deny', kind: PermissionName, values: RuleSide): string[] {
  if (values === true) return [`--${side}-${kind}`];
  if (values.length === 0) return [];
  const bad = values.find((v) => v.includes(','));
  // Deno separates flag values with commas; a path holding one cannot be said as a flag.
  if (bad !== undefined) throw kernelError('RTC_ERR_GATE_TARGET', `"${bad}" contains a comma, which a Deno permission flag cannot carry; use another output folder`);
  return [`--${side}-${kind}=${values.join(',')}`];
}

/** Deno permission flags granting exactly the ceiling, paths made absolute against `base`. */
export function ceilingFlags(ceiling: PermissionsManifest, base: string, vars: PathVariables): string[] {
  const set = toPermissionSet(ceiling, base, vars);
  return KINDS.flatMap((kind) => [...flag('allow', kind, set[kind].allow), ...flag('deny', kind, set[kind].deny)]);
}

/** Every value `requested` asks for that `ceiling` does not grant, as `kind:value` (`kind:*` for a whole kind). */
export function beyondCeiling(requested: PermissionsManifest, ceiling: PermissionsManifest, base: string, vars: PathVariables): string[] {
  const asked = toPermissionSet(requested, base, vars);
  const gate = new PermissionGate([{ label: 'gate ceiling', set: toPermissionSet(ceiling, base, vars) }]);
  const over: string[] = [];
  for (const kind of KINDS) {
    const allow = asked[kind].allow;
    if (allow === true) {
      if (gate.query(kind).state !== 'granted' || gate.query(kind).partial) over.push(`${kind}:*`);
      continue;
    }
    for (const value of allow) if (gate.query(kind, value).state !== 'granted') over.push(`${kind}:${value}`);
  }
  return over;
}

function mergeSides(a: RuleSide, b: RuleSide): RuleSide {
  if (a === true || b === true) return true;
  return [...new Set([...a, ...b])];
}

/**
 * The flags a draft's tests run with: what its plugin.yaml declares (nothing without one),
 * only as far as the ceiling grants it, plus the test's own scratch folder to read and write
 * (`Deno.args[0]`: the harness's, not the skill's). An effect the manifest does not declare
 * is then refused by the broker and audited, so the denials check names every such attempt
 * (issue 24, item 4), where a ceiling wider than the manifest would have let it pass unseen.
 */
export function testFlags(ceiling: PermissionsManifest, declared: PermissionsManifest | null, base: string, vars: PathVariables, scratch: string): string[] {
  const bound = toPermissionSet(ceiling, base, vars);
  const gate = new PermissionGate([{ label: 'gate ceiling', set: bound }]);
  const asked = toPermissionSet(declared ?? {}, base, vars);
  return KINDS.flatMap((kind) => {
    const wanted = asked[kind].allow;
    let allow: RuleSide = wanted === true ? bound[kind].allow : wanted.filter((value) => gate.query(kind, value).state === 'granted');
    if ((kind === 'read' || kind === 'write') && allow !== true && !allow.includes(scratch)) allow = [...allow, scratch];
    return [...flag('allow', kind, allow), ...flag('deny', kind, mergeSides(bound[kind].deny, asked[kind].deny))];
  });
}
