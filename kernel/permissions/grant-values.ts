/**
 * A grant value as the gate keeps it: a path made absolute against `cwd` (once, as Deno does at
 * start-up), a net address in its canonical spelling, and a path's real location beside it.
 * The manifest's `permissions:` (manifest/permissions-schema.ts), Deno's flags
 * (features/sandbox-run/permission-flags.ts) and `Deno.permissions` queries all spell values here.
 */
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { canonicalNetValue } from './net-address.ts';
import type { PermissionName } from './descriptors.ts';

const PATH_KINDS: ReadonlySet<PermissionName> = new Set(['read', 'write', 'ffi']);

export function normalizeValue(kind: PermissionName, value: string, cwd: string): string {
  if (PATH_KINDS.has(kind)) return path.resolve(cwd, value);
  if (kind === 'net') return canonicalNetValue(value);
  return value;
}

/**
 * A grant entry as the gate keeps it: normalizeValue, and for a path whose real location
 * differs (a folder on it is a link: `/data` -> `/mnt/vol`), that location too. Code whose
 * file ops may not follow links (strict symlinks) is checked by where a path really is, and
 * a grant of `/data/x` is a grant of the same files at `/mnt/vol/x`; a deny the same.
 */
export function grantValues(kind: PermissionName, value: string, cwd: string): string[] {
  const normal = normalizeValue(kind, value, cwd);
  if (!PATH_KINDS.has(kind)) return [normal];
  let real: string;
  try {
    real = realpathSync.native(normal);
  } catch {
    return [normal];
  }
  return real === normal ? [normal] : [normal, real];
}
