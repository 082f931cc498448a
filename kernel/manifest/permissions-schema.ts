/**
 * Permissions as manifests write them, in Deno's vocabulary: each kind is `true` (all,
 * like `--allow-read`) or a list of values (like `--allow-read=a,b`); a missing kind
 * means none. `deny` has the same shape and wins, like `--deny-*`.
 * Values may use `${plugin}`, `${state}`, `${workspace}`, `${session}`, `${scratch}`, `${home}`, `${draft}`,
 * resolved by the kernel when it instantiates the plugin.
 */
import path from 'node:path';
import { z } from 'zod';
import { emptyPermissionSet, type PermissionName, type PermissionRule, type PermissionSet } from '../permissions/descriptors.ts';
import { grantValues } from '../permissions/grant-values.ts';

const side = z.union([z.literal(true), z.array(z.string().min(1)).max(256)]);

const kinds = {
  read: side.optional(),
  write: side.optional(),
  net: side.optional(),
  env: side.optional(),
  run: side.optional(),
};

export const permissionsSchema = z
  .strictObject({
    ...kinds,
    deny: z.strictObject(kinds).optional(),
  })
  .describe('Deno-style permissions: true for all, or a list of values; deny wins');

export type PermissionsManifest = z.infer<typeof permissionsSchema>;

const KINDS = ['read', 'write', 'net', 'env', 'run'] as const satisfies readonly PermissionName[];

/**
 * `${home}` is an executor's provider home (`<state>/<persona>/brain/providers/<executor>`),
 * HOME of its sessions; `${session}` the folder of the executor session running now (null
 * between sessions: an entry naming it then grants nothing); `${draft}` a gate's draft snapshot.
 */
export type PathVariables = Partial<Record<'plugin' | 'state' | 'workspace' | 'session' | 'scratch' | 'home' | 'draft', string | null>>;

/** Fills `${plugin}`, `${state}`, ... in a value; an unknown placeholder is left as written; undefined when a variable it names is bound to nothing (null). */
export function expand(value: string, vars: PathVariables): string | undefined {
  let unbound = false;
  const out = value.replace(/\$\{(\w+)\}/g, (whole, name: string) => {
    const bound = vars[name as keyof PathVariables];
    if (bound === null) unbound = true;
    return bound ?? whole;
  });
  return unbound ? undefined : out;
}

/** Turns the manifest form into a PermissionSet, with paths made absolute against `base`. */
export function toPermissionSet(manifest: PermissionsManifest | undefined, base: string, vars: PathVariables = {}): PermissionSet {
  const set: Record<PermissionName, PermissionRule> = { ...emptyPermissionSet() };
  if (!manifest) return set;
  const convert = (value: true | string[] | undefined, kind: PermissionName): true | string[] => {
    if (value === undefined) return [];
    if (value === true) return true;
    return value.flatMap((v) => {
      const expanded = expand(v, vars);
      return expanded === undefined ? [] : grantValues(kind, expanded, path.resolve(base));
    });
  };
  for (const kind of KINDS) {
    set[kind] = { allow: convert(manifest[kind], kind), deny: convert(manifest.deny?.[kind], kind) };
  }
  return set;
}
