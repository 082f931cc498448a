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
import { mkdirSync, readFileSync, renameSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import { kernelError } from '../errors.ts';
import { seal, sealMatches, SEAL_BYTES } from './cache-integrity.ts';
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
      const sealed = typeof record.seal === 'string' && sealMatches(recordSeal(cacheDir, `${kind}:${absolute}`, record), Buffer.from(record.seal, 'hex'));
      if (sealed && hashInputs(record.inputs, base) && existsSync(bundleFile)) {
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
      format: kind === 'shim' ? 'cjs' : 'esm',
      platform: 'neutral',
      target: 'es2022',
      logLevel: 'silent',
      mainFields: kind === 'shim' ? ['main'] : ['module', 'main'],
      absWorkingDir: base,
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
  const moduleCode = result.outputFiles[0]?.text ?? '';
  const code = kind === 'shim' ? wrapShim(moduleCode) : wrapModule(moduleCode);
  const digest = sha256(code);
  const inputs: Record<string, string> = {};
  for (const input of Object.keys(result.metafile.inputs).sort()) {
    const file = path.resolve(base, input);
    inputs[path.relative(base, file)] = sha256(readFileSync(file));
  }
  writeAtomic(path.join(cacheDir, 'bundles', `${digest}.js`), code);
  const indexed = { inputs, digest, size: moduleCode.length };
  writeAtomic(indexFile, JSON.stringify({ ...indexed, seal: recordSeal(cacheDir, `${kind}:${absolute}`, indexed).toString('hex') } satisfies IndexRecord));
  return { code, digest, inputs, size: moduleCode.length, cached: false };
}

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
