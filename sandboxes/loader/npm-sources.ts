/**
 * Where `runtimectl plugins install` lets npm fetch a package from: the registry, and nothing
 * else unless the operator says so on the command line. A plugin's author writes its
 * package.json and package-lock.json, so a dependency that names a git repository (npm then
 * runs git, and a git dependency's own `prepare` script), a local folder or file (a link into
 * the host), a tarball URL (code from anywhere), or a package that ships its dependencies
 * bundled inside its tarball (outside the lockfile's integrity) is refused by name, with the
 * flag that allows it:
 *
 *   --allow-git      git specifiers: `git+ssh:`, `git+https:`, `git:`, `github:`, `gitlab:`,
 *                    `bitbucket:`, `gist:`, the `owner/repo` shorthand; a lockfile `resolved` in git
 *   --allow-local    `file:`, `link:`, `workspace:`, paths (`./x`, `../x`, `/x`, `~/x`, `x.tgz`),
 *                    `workspaces`, a lockfile entry that is a link
 *   --allow-url      tarball URLs (`https://host/x.tgz`); a lockfile `resolved` outside the registry
 *   --allow-bundled  packages with bundled dependencies (`inBundle` in the lockfile)
 *
 * A spec is a registry spec only when it is one on its face: a semver version or range, a
 * dist-tag, or an `npm:` alias of a valid name at a registry spec. Anything that fits none of
 * the forms above is refused whatever is allowed. Every dependency field is checked
 * (dependencies, devDependencies, optionalDependencies, peerDependencies) and every
 * `overrides` value, and the lockfile (both its `packages` and a v1 `dependencies` tree).
 */
import semver from 'semver';
import { kernelError } from '../../kernel/errors.ts';

export type NpmSource = 'registry' | 'git' | 'local' | 'url' | 'bundled';
export type NpmAllowance = Record<Exclude<NpmSource, 'registry'>, boolean>;

export const NO_ALLOWANCE: NpmAllowance = { git: false, local: false, url: false, bundled: false };

/** The command-line flag that allows each kind of source, named in every refusal. */
export const ALLOW_FLAGS: Record<Exclude<NpmSource, 'registry'>, string> = { git: '--allow-git', local: '--allow-local', url: '--allow-url', bundled: '--allow-bundled' };

const WHAT: Record<Exclude<NpmSource, 'registry'>, string> = {
  git: 'a git repository (npm would run git, and the repository\'s own prepare script)',
  local: 'a local path (a file or folder of this host)',
  url: 'a tarball URL outside the registry',
  bundled: 'a package bundled inside another package\'s tarball (outside the registry and the lockfile\'s integrity)',
};

/** A valid npm package name (scoped or not), as npm's validate-npm-package-name has it for new names. */
export function isPackageName(name: string): boolean {
  return name.length <= 214 && /^(?:@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/.test(name);
}

const DIST_TAG = /^[a-z0-9][a-z0-9._-]*$/i;
const GIT_PREFIX = /^(?:git\+[a-z]+:|git:|github:|gitlab:|bitbucket:|gist:)/i;
const LOCAL_PREFIX = /^(?:file:|link:|workspace:|portal:|\.{1,2}(?:\/|\\|$)|\/|~\/|[a-z]:[\\/])/i;

/** What source a dependency spec (the value in package.json) names, or `unknown` when it fits no form npm has. */
export function specSource(spec: string): NpmSource | 'unknown' {
  const s = spec.trim();
  if (s === '' || s === '*' || s === 'latest') return 'registry';
  if (s.startsWith('npm:')) {
    const rest = s.slice(4);
    const at = rest.indexOf('@', 1);
    const name = at < 0 ? rest : rest.slice(0, at);
    if (!isPackageName(name)) return 'unknown';
    return at < 0 ? 'registry' : specSource(rest.slice(at + 1));
  }
  if (GIT_PREFIX.test(s)) return 'git';
  if (/^https?:\/\//i.test(s)) return /\.git(?:#.*)?$/i.test(s) ? 'git' : 'url';
  if (/^[a-z][a-z0-9+.-]*:/i.test(s) && !LOCAL_PREFIX.test(s)) return 'unknown';
  if (LOCAL_PREFIX.test(s) || /\.(?:tgz|tar\.gz|tar)$/i.test(s)) return 'local';
  // `owner/repo` and `owner/repo#ref` are GitHub shorthands
  if (/^[^@/\s:]+\/[^/\s:]+(?:#.*)?$/.test(s)) return 'git';
  if (semver.validRange(s, { loose: false }) !== null) return 'registry';
  if (DIST_TAG.test(s) && semver.validRange(s) === null) return 'registry';
  return 'unknown';
}

function refuse(where: string, what: string, source: NpmSource | 'unknown'): never {
  if (source === 'unknown' || source === 'registry') {
    throw kernelError('RTC_ERR_NPM_SOURCE_REFUSED', `${where}: ${what} is not a registry version, range or tag that install understands; it was not installed`, { details: { where } });
  }
  throw kernelError('RTC_ERR_NPM_SOURCE_REFUSED', `${where}: ${what} is ${WHAT[source]}; install fetches from the registry only: pass ${ALLOW_FLAGS[source]} to allow it`, {
    details: { where, source, flag: ALLOW_FLAGS[source] },
  });
}

function checkSpec(where: string, name: string, spec: unknown, allow: NpmAllowance): void {
  if (typeof spec !== 'string') refuse(where, `${name} has a value that is not a string`, 'unknown');
  const source = specSource(spec);
  if (source === 'registry') return;
  if (source !== 'unknown' && allow[source]) return;
  refuse(where, `${name} is "${spec}"`, source);
}

const DEPENDENCY_FIELDS = ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies'] as const;

/** `overrides` are nested: a key is a name (or name@range), a value a spec, a `$name` reference, or another level (with `.` for the package itself). */
function checkOverrides(file: string, at: string, value: unknown, allow: NpmAllowance): void {
  if (typeof value === 'string') {
    if (value.startsWith('$') && isPackageName(value.slice(1))) return;
    checkSpec(`${file} ${at}`, 'the override', value, allow);
    return;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) refuse(`${file} ${at}`, 'the override', 'unknown');
  for (const [key, inner] of Object.entries(value as Record<string, unknown>)) checkOverrides(file, `${at}.${key}`, inner, allow);
}

/** Refuses, with one line naming the field and the flag, any source package.json names that the operator did not allow. */
export function checkManifestSources(manifest: Record<string, unknown>, file: string, allow: NpmAllowance): void {
  for (const field of DEPENDENCY_FIELDS) {
    const deps = manifest[field];
    if (deps === undefined) continue;
    if (deps === null || typeof deps !== 'object' || Array.isArray(deps)) refuse(`${file} ${field}`, 'the field', 'unknown');
    for (const [name, spec] of Object.entries(deps as Record<string, unknown>)) {
      if (!isPackageName(name)) refuse(`${file} ${field}`, `"${name}"`, 'unknown');
      checkSpec(`${file} ${field}.${name}`, name, spec, allow);
    }
  }
  if (manifest.overrides !== undefined) checkOverrides(file, 'overrides', manifest.overrides, allow);
  if (manifest.workspaces !== undefined && !allow.local) refuse(`${file} workspaces`, 'the workspaces field', 'local');
}

/** The kind of source a lockfile entry was fetched from. */
function resolvedSource(resolved: string, registries: readonly string[]): NpmSource | 'unknown' {
  if (GIT_PREFIX.test(resolved) || /^ssh:\/\//i.test(resolved)) return 'git';
  if (/^file:/i.test(resolved) || LOCAL_PREFIX.test(resolved)) return 'local';
  if (/^https?:\/\//i.test(resolved)) return registries.some((r) => resolved.startsWith(r)) ? 'registry' : /\.git(?:#|$)/i.test(resolved) ? 'git' : 'url';
  return 'unknown';
}

interface LockEntry {
  version?: string;
  resolved?: string;
  integrity?: string;
  link?: boolean;
  inBundle?: boolean;
  bundled?: boolean;
  dependencies?: Record<string, LockEntry> | Record<string, string>;
}

/**
 * Refuses any lockfile entry fetched from somewhere the operator did not allow: a git or file
 * `resolved`, a link, a bundled package, a tarball outside the registry (`registries`: the
 * registry in use and registry.npmjs.org, which npm rewrites to it).
 */
export function checkLockSources(lock: { packages?: Record<string, LockEntry>; dependencies?: Record<string, LockEntry> }, file: string, registries: readonly string[], allow: NpmAllowance): void {
  const check = (where: string, entry: LockEntry) => {
    if (entry.link === true && !allow.local) refuse(where, 'the entry', 'local');
    if ((entry.inBundle === true || entry.bundled === true) && !allow.bundled) refuse(where, 'the entry', 'bundled');
    for (const value of [entry.resolved, entry.version]) {
      if (typeof value !== 'string' || (value === entry.version && semver.valid(value) !== null)) continue;
      if (value === entry.version && !/[:/]/.test(value)) continue;
      const source = resolvedSource(value, registries);
      if (source === 'registry') continue;
      if (source !== 'unknown' && allow[source]) continue;
      refuse(where, `the entry comes from "${value}", which`, source === 'unknown' ? 'unknown' : source);
    }
  };
  for (const [key, entry] of Object.entries(lock.packages ?? {})) {
    if (key === '') continue;
    if (entry && typeof entry === 'object') check(`${file} packages["${key}"]`, entry);
  }
  const walk = (deps: Record<string, LockEntry> | undefined, at: string) => {
    for (const [name, entry] of Object.entries(deps ?? {})) {
      if (!entry || typeof entry !== 'object') continue;
      check(`${file} ${at}${name}`, entry);
      walk(entry.dependencies as Record<string, LockEntry> | undefined, `${at}${name} > `);
    }
  };
  walk(lock.dependencies, 'dependencies ');
}
