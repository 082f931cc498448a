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
import { pathToFileURL } from 'node:url';
import type * as esbuild from 'esbuild';
import { loadEsbuild } from './esbuild.ts';
import { kernelError } from '../errors.ts';
import { PROJECT_ROOT } from '../version.ts';

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
  /**
   * the esbuild source map of the module (sources relative to the entry's folder), for errors
   * that point at the plugin's own file and line; lines are those of the module before
   * wrapping (the wrapped script starts WRAP_LINES lines later)
   */
  map?: string;
}

/** Lines wrapModule puts before the module's first line. */
export const WRAP_LINES = 2;

interface IndexRecord {
  inputs: Record<string, string>;
  digest: string;
  size: number;
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

/**
 * Deno treats every file as an ES module; esbuild would treat a file without import or
 * export that uses top-level `this` as CommonJS (where `this` is `exports`). Appending an
 * empty export keeps Deno's semantics: top-level `this` is undefined.
 */
const forceEsm: esbuild.Plugin = {
  name: 'force-esm',
  setup(build) {
    build.onLoad({ filter: /\.(m?[jt]s|[jt]sx)$/ }, (args) => {
      if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      const ext = path.extname(args.path).replace(/^\.m?/, '');
      const loader = (ext === 'mts' ? 'ts' : ext) as esbuild.Loader;
      return { contents: `${readFileSync(args.path, 'utf8')}\nexport {};\n`, loader };
    });
  },
};

/** The shim is CommonJS (core-js is) and evaluates to its `install` function. */
function wrapShim(cjsCode: string): string {
  return `(function () {\nvar module = { exports: {} }; var exports = module.exports;\n${cjsCode}\nreturn module.exports.install;\n})()`;
}

/**
 * Bundles `entry` (absolute path) or returns the cached bundle when no input changed.
 * A build error becomes one KernelError line naming the file, line and reason.
 */
export async function bundleEntry(entry: string, cacheDir = defaultCacheDir(), kind: 'module' | 'shim' = 'module'): Promise<BuiltBundle> {
  const absolute = path.resolve(entry);
  const base = path.dirname(absolute);
  const indexFile = path.join(cacheDir, 'index', `${sha256(`${kind}:${absolute}`)}.json`);
  if (existsSync(indexFile)) {
    try {
      const record = JSON.parse(readFileSync(indexFile, 'utf8')) as IndexRecord;
      const bundleFile = path.join(cacheDir, 'bundles', `${record.digest}.js`);
      if (hashInputs(record.inputs, base) && existsSync(bundleFile)) {
        const code = readFileSync(bundleFile, 'utf8');
        const sourceMap = readSourceMap(record.digest, cacheDir);
        // A module bundle cached before maps were kept is built once more (same bytes, now with its map).
        if (sha256(code) === record.digest && (kind === 'shim' || sourceMap.map !== undefined)) return { code, digest: record.digest, inputs: record.inputs, size: record.size, cached: true, ...sourceMap };
      }
    } catch {
      // A damaged index entry is rebuilt below, never trusted.
    }
  }
  let result: esbuild.BuildResult<{ write: false; metafile: true }>;
  try {
    result = await (await loadEsbuild()).build({
      entryPoints: [absolute],
      bundle: true,
      write: false,
      metafile: true,
      format: kind === 'shim' ? 'cjs' : 'esm',
      platform: 'neutral',
      target: 'es2022',
      logLevel: 'silent',
      mainFields: kind === 'shim' ? ['main'] : ['module', 'main'],
      absWorkingDir: base,
      // An external map (the code is the same bytes as without one), kept beside the bundle.
      ...(kind === 'module' ? { sourcemap: 'external' as const, outfile: path.join(base, '__runtimectl_bundle.js') } : {}),
      plugins: kind === 'module' ? [forceEsm] : [],
      define: {
        'import.meta.main': 'true',
        'import.meta.url': JSON.stringify(pathToFileURL(absolute).href),
      },
    });
  } catch (error) {
    const failure = error as esbuild.BuildFailure;
    const first = failure.errors?.[0];
    const where = first?.location ? `${path.relative(process.cwd(), path.resolve(base, first.location.file))}:${first.location.line}:${first.location.column}` : path.relative(process.cwd(), absolute);
    throw kernelError('RTC_ERR_BUILD_FAILED', `${where}: ${first?.text ?? String(error)}`, { details: { file: absolute } });
  }
  const moduleCode = result.outputFiles.find((f) => !f.path.endsWith('.map'))?.text ?? '';
  const map = result.outputFiles.find((f) => f.path.endsWith('.map'))?.text;
  const code = kind === 'shim' ? wrapShim(moduleCode) : wrapModule(moduleCode);
  const digest = sha256(code);
  const inputs: Record<string, string> = {};
  for (const input of Object.keys(result.metafile.inputs).sort()) {
    const file = path.resolve(base, input);
    inputs[path.relative(base, file)] = sha256(readFileSync(file));
  }
  writeAtomic(path.join(cacheDir, 'bundles', `${digest}.js`), code);
  if (map !== undefined) writeAtomic(path.join(cacheDir, 'bundles', `${digest}.map`), map);
  writeAtomic(indexFile, JSON.stringify({ inputs, digest, size: moduleCode.length } satisfies IndexRecord));
  return { code, digest, inputs, size: moduleCode.length, cached: false, ...(map !== undefined ? { map } : {}) };
}

/** The source map kept beside a bundle, when there is one (only for messages: never trusted for anything else). */
export function readSourceMapOf(digest: string, cacheDir: string = defaultCacheDir()): string | undefined {
  try {
    return readFileSync(path.join(cacheDir, 'bundles', `${digest}.map`), 'utf8');
  } catch {
    return undefined;
  }
}

function readSourceMap(digest: string, cacheDir: string): { map?: string } {
  const map = readSourceMapOf(digest, cacheDir);
  return map === undefined ? {} : { map };
}

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
