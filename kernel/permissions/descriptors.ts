/**
 * Permission kinds and descriptors, in Deno's vocabulary (`Deno.PermissionDescriptor`).
 * One rule per kind; a rule is Deno's `UnaryPermission`: an allow side and a deny side,
 * each either "all" or a list of values. Deny always wins.
 */

export const PERMISSION_NAMES = ['read', 'write', 'net', 'env', 'run', 'sys', 'ffi', 'import'] as const;
export type PermissionName = (typeof PERMISSION_NAMES)[number];

/** The kinds the sandbox can grant at all; `sys`, `ffi`, `import` are always refused. */
export const GRANTABLE: ReadonlySet<PermissionName> = new Set(['read', 'write', 'net', 'env', 'run']);

export type PermissionDescriptor =
  | { name: 'read'; path?: string }
  | { name: 'write'; path?: string }
  | { name: 'net'; host?: string }
  | { name: 'env'; variable?: string }
  | { name: 'run'; command?: string }
  | { name: 'sys'; kind?: string }
  | { name: 'ffi'; path?: string }
  | { name: 'import'; host?: string };

export type PermissionState = 'granted' | 'prompt' | 'denied';

/** One side of a rule: everything, or these values (already normalized). */
export type RuleSide = true | readonly string[];

export interface PermissionRule {
  allow: RuleSide;
  deny: RuleSide;
}

export type PermissionSet = Readonly<Record<PermissionName, PermissionRule>>;

const NONE: PermissionRule = Object.freeze({ allow: Object.freeze([]) as readonly string[], deny: Object.freeze([]) as readonly string[] });

/** A set that grants nothing (Deno with no flags). */
export function emptyPermissionSet(): PermissionSet {
  const set = {} as Record<PermissionName, PermissionRule>;
  for (const name of PERMISSION_NAMES) set[name] = NONE;
  return set;
}

/** A set that grants everything (`-A`). */
export function allPermissionSet(): PermissionSet {
  const set = {} as Record<PermissionName, PermissionRule>;
  for (const name of PERMISSION_NAMES) set[name] = { allow: true, deny: [] };
  return set;
}
