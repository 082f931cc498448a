/**
 * npm packages at bundle time. A script or plugin may import `npm:name@range[/sub]`, or a
 * bare `name[/sub]` its own package.json declares. Packages are never fetched here: they
 * come from the `node_modules` that `runtimectl plugins install` made beside the
 * package.json, and each must match `package-lock.json` (a version in the range, an
 * integrity hash, the installed copy at the locked version). Anything else is refused with
 * one line naming the import and the command that fixes it. Packages that need a native
 * addon cannot run in an isolate and are refused by name; Node's built-ins are the shim's
 * (node-builtins.ts).
 */
import { builtinModules } from 'node:module';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { kernelError, type KernelError } from '../../kernel/errors.ts';
import { shownPath } from '../../kernel/shown-path.ts';

export const NODE_BUILTINS: ReadonlySet<string> = new Set(builtinModules.flatMap((m) => [m, m.split('/')[0]!]));

export interface NpmSpecifier {
  name: string;
  /** the version range asked for; `*` when none was written */
  range: string;
  /** `/sub/path` after the package name, or '' */
  subpath: string;
}

/** `@scope/name@^1.2/sub` → name, range, subpath (Deno's npm: grammar). */
export function parseNpmSpecifier(text: string): NpmSpecifier | null {
  const m = /^(@[^/@]+\/[^/@]+|[^/@]+)(?:@([^/]+))?(\/.*)?$/.exec(text);
  if (!m) return null;
  return { name: m[1]!, range: m[2] ?? '*', subpath: m[3] ?? '' };
}

interface LockEntry {
  version?: string;
  integrity?: string;
  resolved?: string;
  link?: boolean;
}

interface PackageJson {
  name?: string;
  version?: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  gypfile?: boolean;
}

function readJson<T>(file: string): T | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

/** The folder whose package.json governs `entry`: the nearest one upward, else the entry's own. */
export function packageRoot(entry: string): string {
  let dir = path.dirname(path.resolve(entry));
  for (;;) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return path.dirname(path.resolve(entry));
    dir = parent;
  }
}

/** The package folder a file inside node_modules belongs to, and the package's name. */
export function owningPackage(file: string): { dir: string; name: string } | undefined {
  const marker = `${path.sep}node_modules${path.sep}`;
  const at = file.lastIndexOf(marker);
  if (at === -1) return undefined;
  const rest = file.slice(at + marker.length).split(path.sep);
  const parts = rest[0]!.startsWith('@') ? rest.slice(0, 2) : rest.slice(0, 1);
  return { dir: file.slice(0, at + marker.length) + parts.join(path.sep), name: parts.join('/') };
}

/** Why a package cannot run in an isolate, or null: it builds or loads a native addon. */
export function nativeAddonReason(packageDir: string): string | null {
  const manifest = readJson<PackageJson>(path.join(packageDir, 'package.json'));
  if (manifest?.gypfile) return 'its package.json sets "gypfile"';
  if (existsSync(path.join(packageDir, 'binding.gyp'))) return 'it has a binding.gyp';
  const loaders = ['node-gyp-build', 'bindings', 'prebuild-install', 'node-addon-api', 'nan'];
  const uses = loaders.find((l) => manifest?.dependencies?.[l] !== undefined);
  return uses ? `it depends on ${uses}` : null;
}

export class NpmResolver {
  readonly root: string;
  readonly #checked = new Map<string, KernelError | null>();
  #lock: Record<string, LockEntry> | null | undefined;

  constructor(entry: string) {
    this.root = packageRoot(entry);
  }

  #installHint(): string {
    return `run "runtimectl plugins install ${shownPath(this.root)}"`;
  }

  #lockPackages(): Record<string, LockEntry> | null {
    if (this.#lock === undefined) {
      const lock = readJson<{ packages?: Record<string, LockEntry> }>(path.join(this.root, 'package-lock.json'));
      this.#lock = lock?.packages ?? null;
    }
    return this.#lock;
  }

  /**
   * Checks `name` against the lockfile and the installed copy; returns the bare specifier
   * esbuild resolves from the package root (`name` + subpath).
   */
  #locked(spec: NpmSpecifier, shown: string): string {
    const notInstalled = (why: string) => kernelError('RTC_ERR_NPM_NOT_INSTALLED', `"${shown}" ${why}; ${this.#installHint()}`);
    const lock = this.#lockPackages();
    if (!lock) throw notInstalled(`is not installed (no package-lock.json in ${this.root})`);
    const entry = lock[`node_modules/${spec.name}`];
    if (!entry?.version) throw notInstalled('is not in package-lock.json');
    if (!entry.link && !entry.integrity) throw kernelError('RTC_ERR_NPM_LOCKFILE', `"${shown}": package-lock.json has no integrity hash for ${spec.name}@${entry.version}; ${this.#installHint()}`);
    if (spec.range !== '*' && !semver.satisfies(entry.version, spec.range, { includePrerelease: true })) {
      throw notInstalled(`is locked at ${entry.version}, outside the range ${spec.range}`);
    }
    const installed = readJson<PackageJson>(path.join(this.root, 'node_modules', spec.name, 'package.json'));
    if (!installed) throw notInstalled(`is in package-lock.json (${entry.version}) but not in node_modules`);
    if (!entry.link && installed.version !== entry.version) throw notInstalled(`is installed at ${installed.version ?? '?'} but locked at ${entry.version}`);
    this.#checkAddon(path.join(this.root, 'node_modules', spec.name), spec.name);
    return `${spec.name}${spec.subpath}`;
  }

  #checkAddon(dir: string, name: string): void {
    if (!this.#checked.has(dir)) {
      const reason = nativeAddonReason(dir);
      this.#checked.set(dir, reason ? kernelError('RTC_ERR_NPM_NATIVE_ADDON', `npm package "${name}" is a native addon (${reason}); native code cannot run in the sandbox`) : null);
    }
    const error = this.#checked.get(dir);
    if (error) throw error;
  }

  /** `npm:` specifier text without the scheme. */
  resolveNpm(text: string): string {
    const spec = parseNpmSpecifier(text);
    if (!spec) throw kernelError('RTC_ERR_MODULE_NOT_FOUND', `"npm:${text}" is not a valid npm specifier (npm:name@range/path)`);
    return this.#locked(spec, `npm:${text}`);
  }

  /** A bare specifier written in the script's own code: it must be a declared dependency. */
  resolveBare(text: string): string {
    const spec = parseNpmSpecifier(text);
    const manifest = readJson<PackageJson>(path.join(this.root, 'package.json'));
    const range = spec ? (manifest?.dependencies?.[spec.name] ?? manifest?.devDependencies?.[spec.name]) : undefined;
    if (!spec || range === undefined) {
      throw kernelError('RTC_ERR_MODULE_NOT_FOUND', `Import "${text}" not a dependency: declare it in ${path.join(this.root, 'package.json')} or import "npm:${text}"`);
    }
    return this.#locked({ ...spec, range: semver.validRange(range) ? range : '*' }, text);
  }

  /** A file of an installed package is about to be bundled: refuse native addons. */
  checkPackageFile(file: string): void {
    const owner = owningPackage(file);
    if (owner) this.#checkAddon(owner.dir, owner.name);
  }

  addonError(specifier: string): KernelError {
    return kernelError('RTC_ERR_NPM_NATIVE_ADDON', `"${specifier}" is a native addon; native code cannot run in the sandbox`);
  }
}
