/**
 * `runtimectl plugins install [PATH]`: installs the npm packages a plugin or script
 * imports, into its own folder, ahead of any run (a run never fetches anything):
 *  1. the `npm:` specifiers its modules import are collected (an esbuild pass that resolves
 *     nothing) and added to the package.json beside it (created when missing);
 *  2. every source is checked before npm runs (npm-sources.ts): package.json's dependency
 *     fields and overrides, and the lockfile when there is one, name the registry only,
 *     unless the operator passed --allow-git, --allow-local, --allow-url or --allow-bundled;
 *  3. npm itself installs them, with nothing of anyone's configuration: it runs in a staging
 *     folder (so the plugin's own .npmrc, the project config npm reads beside package.json,
 *     is never read), with an empty user and global config, a clean environment (no
 *     `npm_config_*` or `NPM_CONFIG_*` variable of the caller's), the registry the operator
 *     names (`--registry`, RUNTIMECTL_NPM_REGISTRY, else registry.npmjs.org), scripts off
 *     (`--ignore-scripts`), no bin links, and `git` pointing nowhere unless git is allowed;
 *     it writes package-lock.json with an integrity hash for every package, which is checked
 *     again (sources, links, bundles) before node_modules is moved into place;
 *  4. what cannot run in an isolate is refused by name: a native addon, or a package that
 *     imports a Node built-in (found by bundling each entry once, as a run would).
 * A refused or failed install leaves the folder as it was.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type * as esbuild from 'esbuild';
import { loadEsbuild } from './esbuild.ts';
import semver from 'semver';
import { kernelError, isKernelError } from '../../kernel/errors.ts';
import { bundleEntry } from './bundle.ts';
import { nativeAddonReason, packageRoot, parseNpmSpecifier, type NpmSpecifier } from './npm-resolve.ts';
import { checkLockSources, checkManifestSources, NO_ALLOWANCE, type NpmAllowance } from './npm-sources.ts';

/** The registry when the operator names none. */
export const DEFAULT_NPM_REGISTRY = 'https://registry.npmjs.org/';

export interface InstallOptions {
  /** the registry to install from (`--registry`); default RUNTIMECTL_NPM_REGISTRY, else registry.npmjs.org */
  registry?: string;
  /** sources beyond the registry the operator allows (`--allow-git` ...) */
  allow?: Partial<NpmAllowance>;
  /** npm's cache folder (content-addressed, so shared safely); default ~/.npm */
  cacheDir?: string;
  /** the caller's environment: only the network settings named in NETWORK_ENV are taken from it */
  env?: Readonly<Record<string, string | undefined>>;
}

/** What of the caller's environment npm gets: how to reach the network, never how to configure npm. */
const NETWORK_ENV = ['HTTPS_PROXY', 'HTTP_PROXY', 'NO_PROXY', 'https_proxy', 'http_proxy', 'no_proxy', 'NODE_EXTRA_CA_CERTS', 'SSL_CERT_FILE', 'SSL_CERT_DIR', 'TZ'];

/** `git` for npm when git is not allowed: a path that runs nothing, so a git dependency deep in the tree fails instead of running git. */
const NO_GIT = '/nonexistent/runtimectl-refuses-git (pass --allow-git)';

export interface InstallResult {
  root: string;
  entries: string[];
  /** name → range, as written to package.json */
  dependencies: Record<string, string>;
  /** every package in the lockfile: name@version */
  installed: string[];
}

/** The modules to scan: a plugin's entry, a file, or the scripts in a folder. */
export function installEntries(target: string): string[] {
  const stats = statSync(target);
  if (stats.isFile()) return [target];
  const manifest = path.join(target, 'plugin.yaml');
  if (existsSync(manifest)) {
    const entry = /^entry:\s*(\S+)/m.exec(readFileSync(manifest, 'utf8'))?.[1];
    if (entry) return [path.resolve(target, entry.replace(/^['"]|['"]$/g, ''))];
  }
  return readdirSync(target)
    .filter((f) => /\.(m?[jt]s|tsx|jsx)$/.test(f) && !f.endsWith('.d.ts'))
    .map((f) => path.join(target, f))
    .sort();
}

/** The `npm:` specifiers reachable from `entries` through relative imports. */
export async function collectNpmSpecifiers(entries: readonly string[]): Promise<NpmSpecifier[]> {
  const found = new Map<string, NpmSpecifier>();
  await (await loadEsbuild()).build({
    entryPoints: [...entries],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'neutral',
    logLevel: 'silent',
    outdir: path.join(path.dirname(entries[0]!), '.npm-scan'),
    plugins: [
      {
        name: 'collect-npm',
        setup(build) {
          build.onResolve({ filter: /^npm:/ }, (args) => {
            const spec = parseNpmSpecifier(args.path.slice(4));
            if (!spec) throw kernelError('RTC_ERR_MODULE_NOT_FOUND', `"${args.path}" is not a valid npm specifier (npm:name@range/path)`);
            found.set(`${spec.name}@${spec.range}`, spec);
            return { path: args.path, external: true };
          });
          // Everything that is not the script's own relative code is left alone here.
          build.onResolve({ filter: /^[^./]/ }, (args) => (path.isAbsolute(args.path) ? undefined : { path: args.path, external: true }));
        },
      },
    ],
  }).catch((error: esbuild.BuildFailure) => {
    const first = error.errors?.[0];
    if (isKernelError(first?.detail)) throw first.detail;
    throw kernelError('RTC_ERR_BUILD_FAILED', `${first?.location ? `${first.location.file}:${first.location.line}:${first.location.column}: ` : ''}${first?.text ?? String(error)}`);
  });
  return [...found.values()];
}

/** npm's own entry, run by this node (no `#!/usr/bin/env node` looked up on anyone's PATH); else `npm` beside it. */
function npmCommand(): { command: string; args: string[] } {
  const node = realpathSync(process.execPath);
  const cli = path.join(path.dirname(node), '..', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js');
  if (existsSync(cli)) return { command: node, args: [cli] };
  const beside = path.join(path.dirname(process.execPath), 'npm');
  return { command: existsSync(beside) ? beside : 'npm', args: [] };
}

/** The environment npm runs with: nothing of the caller's configuration, only this install's. */
function npmEnv(stage: string, registry: string, cacheDir: string, allow: NpmAllowance, caller: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const home = path.join(stage, 'home');
  mkdirSync(home);
  const userconfig = path.join(home, 'user-npmrc');
  const globalconfig = path.join(home, 'global-npmrc');
  writeFileSync(userconfig, '');
  writeFileSync(globalconfig, '');
  const env: Record<string, string> = {
    PATH: [path.dirname(realpathSync(process.execPath)), '/usr/local/bin', '/usr/bin', '/bin'].join(':'),
    HOME: home,
    npm_config_userconfig: userconfig,
    npm_config_globalconfig: globalconfig,
    npm_config_registry: registry,
    npm_config_cache: cacheDir,
    npm_config_ignore_scripts: 'true',
    npm_config_bin_links: 'false',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
    npm_config_git: allow.git ? 'git' : NO_GIT,
  };
  for (const name of NETWORK_ENV) if (typeof caller[name] === 'string') env[name] = caller[name]!;
  if (allow.git && typeof caller.SSH_AUTH_SOCK === 'string') env.SSH_AUTH_SOCK = caller.SSH_AUTH_SOCK;
  return env;
}

/** npm, run without holding this process's event loop (a registry it talks to may be served from here). */
function runNpm(args: readonly string[], cwd: string, env: Record<string, string>): Promise<{ status: number | null; stdout: string; stderr: string; error?: Error }> {
  return new Promise((resolve) => {
    const npm = npmCommand();
    const child = spawn(npm.command, [...npm.args, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    const timer = setTimeout(() => child.kill('SIGKILL'), NPM_TIMEOUT_MS);
    const text = (parts: Buffer[]) => Buffer.concat(parts).toString('utf8');
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ status: null, stdout: text(out), stderr: text(err), error });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ status: code, stdout: text(out), stderr: text(err), ...(signal ? { error: new Error(`npm ended by ${signal}${signal === 'SIGKILL' ? ` after ${NPM_TIMEOUT_MS / 60_000} minutes` : ''}`) } : {}) });
    });
  });
}

const NPM_TIMEOUT_MS = 10 * 60_000;

interface Lock {
  packages?: Record<string, { version?: string; integrity?: string; link?: boolean; inBundle?: boolean }>;
}

function readJson(file: string, what: string): Record<string, unknown> {
  try {
    const value = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error('not a JSON object');
    return value as Record<string, unknown>;
  } catch (error) {
    throw kernelError('RTC_ERR_NPM_INSTALL', `${file}: ${what} is not valid JSON (${(error as Error).message})`, { details: { file } });
  }
}

/** The registry's base URL with its trailing slash, and the URLs npm treats as the registry (it rewrites registry.npmjs.org to the one in use). */
function registryBases(registry: string): { base: string; accepted: string[] } {
  let url: URL;
  try {
    url = new URL(registry);
  } catch {
    throw kernelError('RTC_ERR_CLI_USAGE', `--registry ${registry} is not a URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw kernelError('RTC_ERR_CLI_USAGE', `--registry ${registry}: only http: and https: registries`);
  const base = url.href.endsWith('/') ? url.href : `${url.href}/`;
  return { base, accepted: [base, DEFAULT_NPM_REGISTRY] };
}

export async function installPackages(target: string, options: InstallOptions = {}): Promise<InstallResult> {
  const absolute = path.resolve(target);
  if (!existsSync(absolute)) throw kernelError('RTC_ERR_CLI_FILE_NOT_FOUND', `no such file or folder: ${target}`);
  const entries = installEntries(absolute);
  if (entries.length === 0) throw kernelError('RTC_ERR_CLI_FILE_NOT_FOUND', `${target}: no module to install packages for`);
  const env = options.env ?? process.env;
  const allow: NpmAllowance = { ...NO_ALLOWANCE, ...options.allow };
  const { base: registry, accepted } = registryBases(options.registry ?? env.RUNTIMECTL_NPM_REGISTRY ?? DEFAULT_NPM_REGISTRY);
  const root = packageRoot(entries[0]!);
  const specs = await collectNpmSpecifiers(entries);
  const manifestFile = path.join(root, 'package.json');
  const lockFile = path.join(root, 'package-lock.json');
  const manifest: Record<string, unknown> = existsSync(manifestFile) ? readJson(manifestFile, 'package.json') : { private: true };
  const dependencies: Record<string, string> = { ...((manifest.dependencies as Record<string, string> | undefined) ?? {}) };
  for (const spec of specs) {
    const current = dependencies[spec.name];
    if (current === undefined || current === '*') dependencies[spec.name] = spec.range;
  }
  if (Object.keys(dependencies).length === 0 && manifest.optionalDependencies === undefined) return { root, entries, dependencies, installed: [] };
  manifest.dependencies = dependencies;
  // Every source is checked before npm runs: what the author wrote, and the lockfile npm would trust.
  checkManifestSources(manifest, manifestFile, allow);
  const existingLock = existsSync(lockFile) ? readJson(lockFile, 'package-lock.json') : undefined;
  if (existingLock) checkLockSources(existingLock, lockFile, accepted, allow);

  // npm runs in a staging folder: the project config it reads beside package.json (the
  // plugin's own .npmrc) is not there, and a failure leaves the plugin's folder as it was.
  const stage = mkdtempSync(path.join(root, '.runtimectl-npm-'));
  try {
    const work = path.join(stage, 'project');
    mkdirSync(work);
    writeFileSync(path.join(work, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    if (existingLock) writeFileSync(path.join(work, 'package-lock.json'), `${JSON.stringify(existingLock, null, 2)}\n`);
    const cacheDir = options.cacheDir ?? path.join(os.homedir(), '.npm');
    const npm = await runNpm(['install', '--ignore-scripts', '--no-bin-links', '--no-audit', '--no-fund', '--no-progress', '--omit=dev', '--install-strategy=hoisted'], work, npmEnv(stage, registry, cacheDir, allow, env));
    if (npm.error || npm.status !== 0) {
      const output = `${npm.stderr ?? ''}${npm.stdout ?? ''}`;
      if (output.includes('runtimectl-refuses-git')) {
        throw kernelError('RTC_ERR_NPM_SOURCE_REFUSED', `${manifestFile}: a dependency (of a dependency) is a git repository (npm would run git, and the repository's own prepare script); install fetches from the registry only: pass --allow-git to allow it`, { details: { where: manifestFile, source: 'git', flag: '--allow-git' } });
      }
      const lines = output.split('\n').filter((l) => /ERR!|error/i.test(l)).slice(0, 3).join(' ');
      throw kernelError('RTC_ERR_NPM_INSTALL', `npm install in ${root} failed${npm.error ? `: ${npm.error.message}` : ` (exit ${npm.status})`}${lines ? `: ${lines}` : ''}`);
    }

    const lock = readJson(path.join(work, 'package-lock.json'), 'the package-lock.json npm wrote') as Lock;
    // What npm resolved the whole tree to: the same rules, now for every transitive package.
    checkLockSources(lock, lockFile, accepted, allow);
    const installed: string[] = [];
    for (const [key, entry] of Object.entries(lock.packages ?? {})) {
      if (!key.startsWith('node_modules/') || entry.link) continue;
      const name = key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length);
      // a bundled package (allowed: --allow-bundled) came inside its parent's tarball, under the parent's integrity
      if (!entry.integrity && !entry.inBundle) throw kernelError('RTC_ERR_NPM_LOCKFILE', `package-lock.json has no integrity hash for ${name}@${entry.version ?? '?'}`);
      const reason = nativeAddonReason(path.join(work, key));
      if (reason) throw kernelError('RTC_ERR_NPM_NATIVE_ADDON', `npm package "${name}" is a native addon (${reason}); native code cannot run in the sandbox: remove it from ${manifestFile}`);
      installed.push(`${name}@${entry.version}`);
    }
    for (const spec of specs) {
      const version = lock.packages?.[`node_modules/${spec.name}`]?.version;
      if (version && spec.range !== '*' && !semver.satisfies(version, spec.range, { includePrerelease: true })) {
        throw kernelError('RTC_ERR_NPM_INSTALL', `npm:${spec.name}@${spec.range} is imported, but package.json pins ${spec.name} to ${dependencies[spec.name]} (installed ${version}): make them agree`);
      }
    }

    // Into place: node_modules, the lockfile, package.json (the old node_modules goes with the stage).
    const modules = path.join(root, 'node_modules');
    if (existsSync(modules)) renameSync(modules, path.join(stage, 'old-node_modules'));
    if (existsSync(path.join(work, 'node_modules'))) renameSync(path.join(work, 'node_modules'), modules);
    renameSync(path.join(work, 'package-lock.json'), lockFile);
    writeFileSync(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
    // A package that needs Node's built-ins is refused now, not at the first run.
    for (const entry of entries) await bundleEntry(entry);
    return { root, entries, dependencies, installed: installed.sort() };
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}
