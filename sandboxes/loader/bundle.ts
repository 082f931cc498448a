/**
 * Plugin and script build: esbuild bundles a TypeScript/JavaScript entry and its relative
 * imports into one script for the isolate. Bundles are cached on disk, keyed by the
 * sha256 of every input file; the V8 code cache produced on first compile is kept beside
 * the bundle. Nothing in the cache is trusted for being there (cached data is machine code:
 * CVE-2022-39266): every index record and every code cache carries a seal only this
 * kernel can make (cache-integrity.ts), checked before use; a bundle is loaded only when
 * its sha256 is the digest a sealed record names. Code caches are kept apart by who made
 * them: the kernel's own isolates never load one a sandbox host process produced.
 *
 * The ES module is turned into `(async function () { ...; return {exports} })`, compiled
 * as a classic script. That keeps top-level await working, lets the shim run the body and
 * catch what it throws inside the isolate (no live value is ever copied out), and gives a
 * script the code cache applies to.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, realpathSync, renameSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import type * as esbuild from 'esbuild';
import { loadEsbuild } from './esbuild.ts';
import { isKernelError, kernelError } from '../../kernel/errors.ts';
import { seal, sealMatches, SEAL_BYTES } from './cache-integrity.ts';
import { PROJECT_ROOT } from '../../kernel/version.ts';
import { shownPath } from '../../kernel/shown-path.ts';
import { denoModules, IMPORT_META, NO_REQUIRE_SUFFIX } from './deno-modules.ts';
import { shimPartLinks } from './shim-part-links.ts';
import { importScope, importScopeOf, outsideScope, type ImportScope } from './import-scope.ts';
import { NODE_REQUIRE } from './node-builtins.ts';

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
  /** hex seal over the entry, kind and the three fields above */
  seal: string;
}

function recordSeal(cacheDir: string, key: string, r: Omit<IndexRecord, 'seal'>): Buffer {
  return seal(cacheDir, 'bundle-index', key, JSON.stringify(r.inputs), r.digest, String(r.size));
}

let recipe: string | undefined;

/**
 * What a bundle depends on besides its inputs: the build code itself and esbuild's version.
 * Part of every cache key, so a kernel whose build changed never reuses an older bundle.
 */
/** esbuild's version from its package.json: reading it does not load esbuild (see esbuild.ts). */
function esbuildVersion(): string {
  return (createRequire(import.meta.url)('esbuild/package.json') as { version: string }).version;
}

/** The build's own sources (relative to this file's folder): what every cache key covers besides esbuild's version. */
export const RECIPE_FILES: readonly string[] = ['bundle.ts', 'deno-modules.ts', 'npm-resolve.ts', 'node-builtins.ts', 'shim-part-links.ts', 'import-scope.ts', '../shim/node/modules.ts'];

/**
 * The recipe of the build whose sources are in `dir` (this folder's layout: RECIPE_FILES
 * relative to it). A source that cannot be read fails loudly, never drops out of the key:
 * a key that stopped covering build code would reuse bundles an older build made.
 */
export function recipeOf(dir: string): string {
  // The table of offered Node built-ins decides how `node:` imports resolve, so it is part of the recipe too.
  const parts = RECIPE_FILES.map((f) => {
    const file = path.join(dir, f);
    try {
      return readFileSync(file, 'utf8');
    } catch (error) {
      // a broken install, not bad input: an internal error (exit 70), naming the file it lacks
      throw new Error(`the bundle cache key cannot read its build source ${file}: ${(error as Error).message}`);
    }
  });
  return sha256(`${esbuildVersion()}\n${parts.join('\n')}`).slice(0, 16);
}

export function buildRecipe(): string {
  recipe ??= recipeOf(import.meta.dirname);
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
  // The parameter is the shim's loader of Node built-ins (node-builtins.ts): the body's
  // `node:` imports call it; it is never a global.
  return `(async function (${NODE_REQUIRE}) {\n"use strict";\n${body}\nreturn ${returned};\n})`;
}

/** The shim is CommonJS (core-js is) and evaluates to its `install` function. */
function wrapShim(cjsCode: string): string {
  return `(function () {\nvar module = { exports: {} }; var exports = module.exports;\n${cjsCode}\nreturn module.exports.install;\n})()`;
}

/** A shim part is CommonJS evaluated on first use by the shim's part loader (parts-loader.ts). */
function wrapPart(cjsCode: string): string {
  return `(function (require, module, exports) {\n${cjsCode}\n})`;
}

function indexFileOf(sealKey: string, cacheDir: string): string {
  return path.join(cacheDir, 'index', `${sha256(`${buildRecipe()}:${sealKey}`)}.json`);
}

/** Where the index record of `entry`'s bundle is kept (tests plant forged records there). */
export function bundleIndexFile(entry: string, cacheDir = defaultCacheDir(), kind: BundleKind = 'module', options: BundleOptions = {}): string {
  return indexFileOf(`${kind}:${options.main ?? true ? '' : 'not-main:'}${path.resolve(entry)}`, cacheDir);
}

export interface BundleOptions {
  /**
   * `import.meta.main` of the entry module (true for `sandbox run` and plugins; false for a
   * test file under `sandbox test`, as in `deno test`). Imported modules always see false.
   */
  main?: boolean;
  /**
   * where a module build may read its imports from (import-scope.ts); default: the entry's
   * own tree (its plugin's or skill's folder, else its own folder), nothing it is granted
   */
  imports?: ImportScope;
}

/**
 * Bundles `entry` (absolute path) or returns the cached bundle when no input changed.
 * A build error becomes one KernelError line naming the file, line and reason.
 */
function realEntry(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    // A missing entry is refused by the build, naming the path as given.
    return file;
  }
}

export async function bundleEntry(entry: string, cacheDir = defaultCacheDir(), kind: BundleKind = 'module', options: BundleOptions = {}): Promise<BuiltBundle> {
  // Through links (a plugin folder linked into a search path): its relative imports and its
  // package.json (the npm packages it may use) are those of the real folder.
  const absolute = realEntry(path.resolve(entry));
  const base = path.dirname(absolute);
  const main = options.main ?? true;
  const scope = kind === 'module' ? (options.imports ?? importScopeOf(absolute, undefined, [cacheDir])) : undefined;
  const sealKey = `${kind}:${main ? '' : 'not-main:'}${absolute}`;
  const indexFile = indexFileOf(sealKey, cacheDir);
  if (existsSync(indexFile)) {
    try {
      const record = JSON.parse(readFileSync(indexFile, 'utf8')) as IndexRecord;
      const bundleFile = path.join(cacheDir, 'bundles', `${record.digest}.js`);
      const sealed = typeof record.seal === 'string' && sealMatches(recordSeal(cacheDir, sealKey, record), Buffer.from(record.seal, 'hex'));
      // A bundle built when an input was in scope is not reused once it is not (a grant narrowed).
      const inScope = scope === undefined || Object.keys(record.inputs).every((rel) => outsideScope(scope, path.resolve(base, rel)) === undefined);
      if (sealed && inScope && hashInputs(record.inputs, base) && existsSync(bundleFile)) {
        const code = readFileSync(bundleFile, 'utf8');
        if (sha256(code) === record.digest) return { code, digest: record.digest, inputs: record.inputs, size: record.size, cached: true };
      }
    } catch {
      // A damaged index entry is rebuilt below, never trusted.
    }
  }
  const workDir = kind === 'module' ? base : PROJECT_ROOT;
  let result: esbuild.BuildResult<{ write: false; metafile: true }>;
  try {
    result = await (await loadEsbuild()).build({
      entryPoints: [absolute],
      bundle: true,
      write: false,
      metafile: true,
      format: kind === 'module' ? 'esm' : 'cjs',
      platform: 'neutral',
      target: 'es2022',
      logLevel: 'silent',
      mainFields: kind === 'module' ? ['module', 'main'] : ['main'],
      // The shim's own bundles name their modules relative to the project (esbuild keys its
      // CommonJS wrappers by path): no host folder shows in a frame a script can read.
      absWorkingDir: workDir,
      ...(kind === 'module' ? {} : { preserveSymlinks: true }),
      // Kept beside the bundle: stack traces are mapped back to the script's own lines.
      ...(kind === 'module' ? { sourcemap: 'external' as const, outfile: path.join(base, '__bundle.js'), sourcesContent: true } : {}),
      // The import scope first: it sees every import of the module before any other resolver.
      plugins: kind === 'module' ? [importScope(scope!, base), denoModules(absolute, main)] : kind === 'part' ? [shimPartLinks(absolute)] : [],
      ...(kind === 'module' ? { define: { 'import.meta': IMPORT_META } } : {}),
    });
  } catch (error) {
    const failure = error as esbuild.BuildFailure;
    const first = failure.errors?.[0];
    const where = first?.location ? `${shownPath(path.resolve(base, first.location.file))}:${first.location.line}:${first.location.column}` : shownPath(absolute);
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
    // a file an ES module require()s loads as Deno's ReferenceError, none of its bytes
    if (input.endsWith(NO_REQUIRE_SUFFIX)) continue;
    const file = path.resolve(workDir, input);
    inputs[path.relative(base, file)] = sha256(readFileSync(file));
  }
  writeAtomic(path.join(cacheDir, 'bundles', `${digest}.js`), code);
  if (mapFile) writeSourceMap(cacheDir, digest, mapFile.text);
  const indexed = { inputs, digest, size: moduleCode.length };
  writeAtomic(indexFile, JSON.stringify({ ...indexed, seal: recordSeal(cacheDir, sealKey, indexed).toString('hex') } satisfies IndexRecord));
  return { code, digest, inputs, size: moduleCode.length, cached: false };
}

function sourceMapSeal(cacheDir: string, digest: string, text: string): Buffer {
  return seal(cacheDir, 'source-map', digest, text);
}

/** Keeps a bundle's source map beside it, sealed like its code cache (a planted map would misname lines). */
function writeSourceMap(cacheDir: string, digest: string, text: string): void {
  writeAtomic(path.join(cacheDir, 'bundles', `${digest}.map`), Buffer.concat([sourceMapSeal(cacheDir, digest, text), Buffer.from(text, 'utf8')]));
}

/**
 * The source map of a module bundle (lines counted from the module code: the wrapper adds
 * WRAPPER_LINES before it), or undefined when none was kept or its seal does not match.
 */
export function readSourceMap(digest: string, cacheDir = defaultCacheDir()): string | undefined {
  try {
    const file = readFileSync(path.join(cacheDir, 'bundles', `${digest}.map`));
    if (file.length <= SEAL_BYTES) return undefined;
    const text = file.subarray(SEAL_BYTES).toString('utf8');
    return sealMatches(sourceMapSeal(cacheDir, digest, text), file.subarray(0, SEAL_BYTES)) ? text : undefined;
  } catch {
    return undefined;
  }
}

/** Lines `wrapModule` puts before the bundled module code. */
export const WRAPPER_LINES = 2;

/** Who compiled a code cache: the kernel's own isolates, or a sandbox host process (untrusted code ran there). */
export type CodeCacheProducer = 'kernel' | 'host';

function codeCacheFile(digest: string, producer: CodeCacheProducer, cacheDir: string): string {
  return path.join(cacheDir, 'bundles', `${digest}.${producer}.v8`);
}

function codeCacheSeal(cacheDir: string, digest: string, producer: CodeCacheProducer, data: Uint8Array): Buffer {
  return seal(cacheDir, 'v8-code-cache', producer, digest, data);
}

/**
 * The V8 code cache of a bundle, as `producer` compiled it, if this kernel sealed it: the
 * file is the seal followed by the data, so no digest sits beside it for a planter to fix up.
 */
export function readCodeCache(digest: string, cacheDir = defaultCacheDir(), producer: CodeCacheProducer = 'kernel'): Buffer | undefined {
  try {
    const file = readFileSync(codeCacheFile(digest, producer, cacheDir));
    if (file.length <= SEAL_BYTES) return undefined;
    const data = file.subarray(SEAL_BYTES);
    return sealMatches(codeCacheSeal(cacheDir, digest, producer, data), file.subarray(0, SEAL_BYTES)) ? data : undefined;
  } catch {
    return undefined;
  }
}

export function writeCodeCache(digest: string, data: Uint8Array, cacheDir = defaultCacheDir(), producer: CodeCacheProducer = 'kernel'): void {
  writeAtomic(codeCacheFile(digest, producer, cacheDir), Buffer.concat([codeCacheSeal(cacheDir, digest, producer, data), data]));
}
