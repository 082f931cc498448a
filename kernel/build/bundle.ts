/**
 * Plugin and script build: esbuild bundles a TypeScript/JavaScript entry and its relative
 * imports into one script for the isolate. Bundles are cached on disk, keyed by the
 * sha256 of every input file; the V8 code cache produced on first compile is kept beside
 * the bundle and reused only after its own digest checks out (cached data is machine code:
 * CVE-2022-39266; only data this kernel wrote, in its own folder, is ever loaded).
 *
 * The ES module is turned into `(async function () { ...; return {exports} })`, compiled
 * as a classic script. That keeps top-level await working, lets the shim run the body and
 * catch what it throws inside the isolate (no live value is ever copied out), and gives a
 * script the code cache applies to.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import * as esbuild from 'esbuild';
import { isKernelError, kernelError } from '../errors.ts';
import { PROJECT_ROOT } from '../version.ts';
import { denoModules, IMPORT_META } from './deno-modules.ts';
import { shimPartLinks } from './shim-part-links.ts';

/** `module`: a plugin or script; `shim`: the shim's core; `part`: a shim part loaded on first use. */
export type BundleKind = 'module' | 'shim' | 'part';

export interface BuiltBundle {
  /** the wrapped script text */
  code: string;
  /** sha256 of `code` */
  digest: string;
  /** input files (relative to the entry's folder) and their sha256 */
  inputs: Record<string, string>;
  /** bytes of the bundled module before wrapping */
  size: number;
  /** true when the bundle came from the disk cache */
  cached: boolean;
}

interface IndexRecord {
  inputs: Record<string, string>;
  digest: string;
  size: number;
}

let recipe: string | undefined;

/**
 * What a bundle depends on besides its inputs: the build code itself and esbuild's version.
 * Part of every cache key, so a kernel whose build changed never reuses an older bundle.
 */
export function buildRecipe(): string {
  if (recipe === undefined) {
    const dir = path.join(PROJECT_ROOT, 'kernel', 'build');
    const parts = ['bundle.ts', 'deno-modules.ts', 'npm-resolve.ts', 'shim-part-links.ts'].map((f) => {
      try {
        return readFileSync(path.join(dir, f), 'utf8');
      } catch {
        return f;
      }
    });
    recipe = sha256(`${esbuild.version}\n${parts.join('\n')}`).slice(0, 16);
  }
  return recipe;
}

export function defaultCacheDir(): string {
  return process.env.RUNTIMECTL_CACHE_DIR ?? path.join(PROJECT_ROOT, '.cache');
}

export function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

function writeAtomic(file: string, data: string | Uint8Array): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, data);
  renameSync(tmp, file);
}

function hashInputs(inputs: Record<string, string>, base: string): boolean {
  for (const [rel, digest] of Object.entries(inputs)) {
    try {
      if (sha256(readFileSync(path.resolve(base, rel))) !== digest) return false;
    } catch {
      return false;
    }
  }
  return true;
}

/** Rewrites esbuild's trailing `export { a, b as c };` into a returned object. */
export function wrapModule(moduleCode: string): string {
  const match = /\bexport\s*\{([^}]*)\};?\s*$/.exec(moduleCode);
  let body = moduleCode;
  let returned = '{}';
  if (match) {
    body = moduleCode.slice(0, match.index);
    const entries = match[1]!
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .map((spec) => {
        const [local, exported] = spec.split(/\s+as\s+/);
        return `${JSON.stringify(exported ?? local)}: ${local}`;
      });
    returned = `{ ${entries.join(', ')} }`;
  }
  return `(async function () {\n"use strict";\n${body}\nreturn ${returned};\n})`;
}

/** The shim is CommonJS (core-js is) and evaluates to its `install` function. */
function wrapShim(cjsCode: string): string {
  return `(function () {\nvar module = { exports: {} }; var exports = module.exports;\n${cjsCode}\nreturn module.exports.install;\n})()`;
}

/** A shim part is CommonJS evaluated on first use by the shim's part loader (parts-loader.ts). */
function wrapPart(cjsCode: string): string {
  return `(function (require, module, exports) {\n${cjsCode}\n})`;
}

export interface BundleOptions {
  /**
   * `import.meta.main` of the entry module (true for `sandbox run` and plugins; false for a
   * test file under `sandbox test`, as in `deno test`). Imported modules always see false.
   */
  main?: boolean;
}

/**
 * Bundles `entry` (absolute path) or returns the cached bundle when no input changed.
 * A build error becomes one KernelError line naming the file, line and reason.
 */
export async function bundleEntry(entry: string, cacheDir = defaultCacheDir(), kind: BundleKind = 'module', options: BundleOptions = {}): Promise<BuiltBundle> {
  const absolute = path.resolve(entry);
  const base = path.dirname(absolute);
  const main = options.main ?? true;
  const indexFile = path.join(cacheDir, 'index', `${sha256(`${buildRecipe()}:${kind}:${main ? '' : 'not-main:'}${absolute}`)}.json`);
  if (existsSync(indexFile)) {
    try {
      const record = JSON.parse(readFileSync(indexFile, 'utf8')) as IndexRecord;
      const bundleFile = path.join(cacheDir, 'bundles', `${record.digest}.js`);
      if (hashInputs(record.inputs, base) && existsSync(bundleFile)) {
        const code = readFileSync(bundleFile, 'utf8');
        if (sha256(code) === record.digest) return { code, digest: record.digest, inputs: record.inputs, size: record.size, cached: true };
      }
    } catch {
      // A damaged index entry is rebuilt below, never trusted.
    }
  }
  let result: esbuild.BuildResult<{ write: false; metafile: true }>;
  try {
    result = await esbuild.build({
      entryPoints: [absolute],
      bundle: true,
      write: false,
      metafile: true,
      format: kind === 'module' ? 'esm' : 'cjs',
      platform: 'neutral',
      target: 'es2022',
      logLevel: 'silent',
      mainFields: kind === 'module' ? ['module', 'main'] : ['main'],
      absWorkingDir: base,
      // Kept beside the bundle: stack traces are mapped back to the script's own lines.
      ...(kind === 'module' ? { sourcemap: 'external' as const, outfile: path.join(base, '__bundle.js'), sourcesContent: true } : {}),
      plugins: kind === 'module' ? [denoModules(absolute, main)] : kind === 'part' ? [shimPartLinks(absolute)] : [],
      ...(kind === 'module' ? { define: { 'import.meta': IMPORT_META } } : {}),
    });
  } catch (error) {
    const failure = error as esbuild.BuildFailure;
    const first = failure.errors?.[0];
    const where = first?.location ? `${path.relative(process.cwd(), path.resolve(base, first.location.file))}:${first.location.line}:${first.location.column}` : path.relative(process.cwd(), absolute);
    // A refusal from the module plugin (npm, jsr, Node built-ins) keeps its own code.
    if (isKernelError(first?.detail)) throw kernelError(first.detail.code, `${where}: ${first.detail.message}`, { details: { file: absolute } });
    throw kernelError('RTC_ERR_BUILD_FAILED', `${where}: ${first?.text ?? String(error)}`, { details: { file: absolute } });
  }
  const js = result.outputFiles.find((f) => f.path.endsWith('.js'));
  const mapFile = result.outputFiles.find((f) => f.path.endsWith('.map'));
  const moduleCode = (js ?? result.outputFiles[0])?.text.replace(/\n\/\/# sourceMappingURL=.*\n?$/, '\n') ?? '';
  const code = kind === 'shim' ? wrapShim(moduleCode) : kind === 'part' ? wrapPart(moduleCode) : wrapModule(moduleCode);
  const digest = sha256(code);
  const inputs: Record<string, string> = {};
  for (const input of Object.keys(result.metafile.inputs).sort()) {
    // virtual modules (import.meta's `rtc-meta:`) are made from the paths, not read
    if (/^[a-z][a-z-]*:/.test(input)) continue;
    const file = path.resolve(base, input);
    inputs[path.relative(base, file)] = sha256(readFileSync(file));
  }
  writeAtomic(path.join(cacheDir, 'bundles', `${digest}.js`), code);
  if (mapFile) writeAtomic(path.join(cacheDir, 'bundles', `${digest}.map`), mapFile.text);
  writeAtomic(indexFile, JSON.stringify({ inputs, digest, size: moduleCode.length } satisfies IndexRecord));
  return { code, digest, inputs, size: moduleCode.length, cached: false };
}

/**
 * The source map of a module bundle (lines counted from the module code: the wrapper adds
 * WRAPPER_LINES before it), or undefined when none was kept.
 */
export function readSourceMap(digest: string, cacheDir = defaultCacheDir()): string | undefined {
  try {
    return readFileSync(path.join(cacheDir, 'bundles', `${digest}.map`), 'utf8');
  } catch {
    return undefined;
  }
}

/** Lines `wrapModule` puts before the bundled module code. */
export const WRAPPER_LINES = 2;

/** The V8 code cache kept beside a bundle, if present and intact. */
export function readCodeCache(digest: string, cacheDir = defaultCacheDir()): Buffer | undefined {
  const file = path.join(cacheDir, 'bundles', `${digest}.v8`);
  const sumFile = `${file}.sha256`;
  try {
    const data = readFileSync(file);
    if (sha256(data) !== readFileSync(sumFile, 'utf8').trim()) return undefined;
    return data;
  } catch {
    return undefined;
  }
}

export function writeCodeCache(digest: string, data: Uint8Array, cacheDir = defaultCacheDir()): void {
  const file = path.join(cacheDir, 'bundles', `${digest}.v8`);
  writeAtomic(file, data);
  writeAtomic(`${file}.sha256`, sha256(data));
}
