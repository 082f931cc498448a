/**
 * `runtimectl plugins install [PATH]`: installs the npm packages a plugin or script
 * imports, into its own folder, ahead of any run (a run never fetches anything):
 *  1. the `npm:` specifiers its modules import are collected (an esbuild pass that resolves
 *     nothing) and added to the package.json beside it (created when missing);
 *  2. npm itself installs them (`npm install --ignore-scripts`: no install script runs),
 *     writing package-lock.json with an integrity hash for every package;
 *  3. what cannot run in an isolate is refused by name: a native addon, or a package that
 *     imports a Node built-in (found by bundling each entry once, as a run would).
 * The registry is npm's own configuration (`npm_config_registry`, .npmrc).
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type * as esbuild from 'esbuild';
import { loadEsbuild } from './esbuild.ts';
import semver from 'semver';
import { kernelError, isKernelError } from '../errors.ts';
import { bundleEntry } from './bundle.ts';
import { nativeAddonReason, packageRoot, parseNpmSpecifier, type NpmSpecifier } from './npm-resolve.ts';

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

function npmCommand(): string {
  const beside = path.join(path.dirname(process.execPath), 'npm');
  return existsSync(beside) ? beside : 'npm';
}

/** npm, run without holding this process's event loop (a registry it talks to may be served from here). */
function runNpm(args: readonly string[], cwd: string): Promise<{ status: number | null; stdout: string; stderr: string; error?: Error }> {
  return new Promise((resolve) => {
    const child = spawn(npmCommand(), [...args], { cwd, env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });
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
  packages?: Record<string, { version?: string; integrity?: string; link?: boolean }>;
}

export async function installPackages(target: string): Promise<InstallResult> {
  const absolute = path.resolve(target);
  if (!existsSync(absolute)) throw kernelError('RTC_ERR_CLI_FILE_NOT_FOUND', `no such file or folder: ${target}`);
  const entries = installEntries(absolute);
  if (entries.length === 0) throw kernelError('RTC_ERR_CLI_FILE_NOT_FOUND', `${target}: no module to install packages for`);
  const root = packageRoot(entries[0]!);
  const specs = await collectNpmSpecifiers(entries);
  const manifestFile = path.join(root, 'package.json');
  const manifest = existsSync(manifestFile) ? (JSON.parse(readFileSync(manifestFile, 'utf8')) as { dependencies?: Record<string, string> } & Record<string, unknown>) : { private: true };
  const dependencies: Record<string, string> = { ...(manifest.dependencies ?? {}) };
  for (const spec of specs) {
    const current = dependencies[spec.name];
    if (current === undefined || current === '*') dependencies[spec.name] = spec.range;
  }
  if (Object.keys(dependencies).length === 0) return { root, entries, dependencies, installed: [] };
  manifest.dependencies = dependencies;
  writeFileSync(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);

  const npm = await runNpm(['install', '--ignore-scripts', '--no-audit', '--no-fund', '--no-progress', '--omit=dev', '--install-strategy=hoisted'], root);
  if (npm.error || npm.status !== 0) {
    const lines = `${npm.stderr ?? ''}${npm.stdout ?? ''}`.split('\n').filter((l) => /ERR!|error/i.test(l)).slice(0, 3).join(' ');
    throw kernelError('RTC_ERR_NPM_INSTALL', `npm install in ${root} failed${npm.error ? `: ${npm.error.message}` : ` (exit ${npm.status})`}${lines ? `: ${lines}` : ''}`);
  }

  const lock = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as Lock;
  const installed: string[] = [];
  for (const [key, entry] of Object.entries(lock.packages ?? {})) {
    if (!key.startsWith('node_modules/') || entry.link) continue;
    const name = key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length);
    if (!entry.integrity) throw kernelError('RTC_ERR_NPM_LOCKFILE', `package-lock.json has no integrity hash for ${name}@${entry.version ?? '?'}`);
    const reason = nativeAddonReason(path.join(root, key));
    if (reason) throw kernelError('RTC_ERR_NPM_NATIVE_ADDON', `npm package "${name}" is a native addon (${reason}); native code cannot run in the sandbox: remove it from ${manifestFile}`);
    installed.push(`${name}@${entry.version}`);
  }
  for (const spec of specs) {
    const version = lock.packages?.[`node_modules/${spec.name}`]?.version;
    if (version && spec.range !== '*' && !semver.satisfies(version, spec.range, { includePrerelease: true })) {
      throw kernelError('RTC_ERR_NPM_INSTALL', `npm:${spec.name}@${spec.range} is imported, but package.json pins ${spec.name} to ${dependencies[spec.name]} (installed ${version}): make them agree`);
    }
  }
  // A package that needs Node's built-ins is refused now, not at the first run.
  for (const entry of entries) await bundleEntry(entry);
  return { root, entries, dependencies, installed: installed.sort() };
}
