/**
 * Deno's rule for `run`, in one place:
 *  - an allow entry names a program: a bare name (`--allow-run=git`) is resolved on the
 *    PATH the run starts with, once, and what it resolved to (`/usr/bin/git`) is the grant;
 *    a name not found then grants nothing (Deno prints "Failed to resolve"). An entry with
 *    a slash is a path, made absolute against the run's cwd;
 *  - a command is checked by the path the child would really execute: a bare name is
 *    resolved on the child's own PATH (its `env`, or the sandbox's environment it inherits,
 *    changed by `Deno.env.set` or not), relative PATH entries and the `cwd` option taken
 *    into account; the allow side matches that path exactly (so `/bin/id` is not
 *    `/usr/bin/id`, as in Deno);
 *  - a deny entry that is a name matches the file name of the path that will run, and of its
 *    canonical form (links followed: `D/x -> /usr/bin/id` is `id`); a deny entry that is a
 *    path matches the path or anything beneath it, again in both forms. Deno itself looks
 *    at the lexical path only; following links is this sandbox's addition (issue 12).
 */
import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import type { PermissionLayer } from './gate.ts';
import type { PermissionRule, RuleSide } from './descriptors.ts';

/** The executable regular file `name` names on `searchPath` (relative entries against `base`), normalized but not canonical. */
export function findOnPath(name: string, searchPath: string, base: string): string | undefined {
  for (const dir of searchPath.split(':')) {
    if (dir === '') continue;
    const candidate = path.resolve(base, dir, name);
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here; keep looking
    }
  }
  return undefined;
}

/** The path a command will run as, or undefined when a bare name is found nowhere on the PATH. */
export function resolveCommand(command: string, options: { searchPath: string; cwd: string; base: string }): string | undefined {
  if (command.includes('/')) return path.resolve(options.cwd, command);
  return findOnPath(command, options.searchPath, options.base);
}

/** The command's canonical path (links followed), for the deny side; the path itself when it cannot be resolved. */
export function canonicalCommand(resolved: string): string {
  try {
    return realpathSync.native(resolved);
  } catch {
    return resolved;
  }
}

/** Deno's `denies_run_name`: the file name equals the denied name, or is it plus an extension (`id.sh`). */
function deniesName(name: string, file: string): boolean {
  const base = path.basename(file);
  if (base.length < name.length || base.slice(0, name.length).toLowerCase() !== name.toLowerCase()) return false;
  const rest = base.slice(name.length);
  return rest === '' || rest.startsWith('.');
}

export function runAllowCovers(entry: string, resolved: string): boolean {
  return entry === resolved;
}

export function runDenyCovers(entry: string, value: string): boolean {
  if (!entry.includes('/')) return value.includes('/') ? deniesName(entry, value) : entry === value;
  return value === entry || value.startsWith(entry.endsWith('/') ? entry : `${entry}/`);
}

function resolveSide(side: RuleSide, keepNames: boolean, searchPath: string, cwd: string, onUnresolved?: (name: string) => void): RuleSide {
  if (side === true) return true;
  const out: string[] = [];
  for (const entry of side) {
    if (entry.includes('/')) out.push(path.resolve(cwd, entry));
    else if (keepNames) out.push(entry);
    else {
      const found = findOnPath(entry, searchPath, cwd);
      if (found) out.push(found);
      else onUnresolved?.(entry);
    }
  }
  return out;
}

/**
 * The layer with its `run` entries in the form the checks compare: allowed names replaced
 * by the programs they resolve to on `searchPath` now (dropped when not found), paths made
 * absolute; denied names kept as names.
 */
export function resolveRunLayer(layer: PermissionLayer, searchPath: string, cwd: string, onUnresolved?: (name: string) => void): PermissionLayer {
  const rule = layer.set.run;
  const resolved: PermissionRule = { allow: resolveSide(rule.allow, false, searchPath, cwd, onUnresolved), deny: resolveSide(rule.deny, true, searchPath, cwd) };
  return { ...layer, set: { ...layer.set, run: resolved } };
}
