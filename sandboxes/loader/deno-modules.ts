/**
 * The esbuild plugin that gives a bundled script Deno's module semantics:
 * - every file is an ES module (esbuild would treat a file without import or export that
 *   uses top-level `this` as CommonJS, where `this` is `exports`; Deno's `this` is undefined);
 * - each module has its own `import.meta` (`url`, `main`, `resolve`, `filename`, `dirname`,
 *   in Deno's key order), `main` true only for the entry module;
 * - `npm:` specifiers and bare specifiers declared in the package.json beside the entry
 *   resolve from the packages `runtimectl plugins install` put there (npm-resolve.ts);
 * - what the sandbox cannot load is refused with one line naming the import: `jsr:` (no
 *   JSR registry here), remote `http(s):` imports, Node built-ins, native addons.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as esbuild from 'esbuild';
import { isKernelError, kernelError } from '../../kernel/errors.ts';
import { NODE_BUILTINS, NpmResolver } from './npm-resolve.ts';
import { builtinModuleSource, builtinRefusal, isOfferedBuiltin, builtinName, NODE_NAMESPACE, resolveBuiltin } from './node-builtins.ts';

/** Where a `require` call of an ES module resolves: a module whose evaluation is Deno's ReferenceError. */
const NO_REQUIRE_NAMESPACE = 'rtc-no-require';
export const NO_REQUIRE_SUFFIX = '?rtc-no-require';

/** What `import.meta` is replaced with; each module imports its own (see withMeta). */
export const IMPORT_META = '__rtc_import_meta';

function loaderFor(file: string): esbuild.Loader {
  const ext = path.extname(file);
  if (ext === '.ts' || ext === '.mts' || ext === '.cts') return 'ts';
  if (ext === '.tsx') return 'tsx';
  if (ext === '.jsx') return 'jsx';
  if (ext === '.json') return 'json';
  return 'js';
}

/**
 * The module's `import.meta`: an import of a virtual module (`rtc-meta:<file>`) appended at
 * the end of the file. Import declarations are hoisted, so the binding is ready before the
 * module's first line runs, and nothing before the end of the file moves: lines and columns
 * in errors and stack traces are the source's own.
 */
function withMeta(source: string, file: string, main: boolean): string {
  return `${source}\n;import { ${IMPORT_META} } from ${JSON.stringify(`rtc-meta:${main ? 'main:' : ''}${file}`)};\n`;
}

/** The virtual module's code: `url`, `main`, `resolve`, `filename`, `dirname`, in Deno's order. */
function metaModule(spec: string): string {
  const main = spec.startsWith('main:');
  const file = main ? spec.slice('main:'.length) : spec;
  const url = pathToFileURL(file).href;
  // `resolve` is assigned, not written in the literal, so it stays anonymous as in Deno.
  return [
    `export const ${IMPORT_META} = Object.assign(Object.create(null), { url: ${JSON.stringify(url)}, main: ${main} });`,
    `${IMPORT_META}.resolve = function (specifier) { specifier = String(specifier); if (/^\\.{0,2}\\//.test(specifier)) return new URL(specifier, ${JSON.stringify(url)}).href; if (/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(specifier)) return new URL(specifier).href; throw new TypeError('Import "' + specifier + '" not a dependency'); };`,
    `${IMPORT_META}.filename = ${JSON.stringify(file)};`,
    `${IMPORT_META}.dirname = ${JSON.stringify(path.dirname(file))};`,
  ].join('\n');
}

function importer(args: esbuild.OnResolveArgs, base: string): string {
  return args.importer ? path.relative(base, args.importer) || args.importer : '(entry)';
}

type Resolver = (args: esbuild.OnResolveArgs) => esbuild.OnResolveResult | undefined | Promise<esbuild.OnResolveResult | undefined>;

/**
 * A refusal becomes an esbuild error of the import itself, so the build error names the
 * importing file, line and column (bundle.ts keeps the refusal's own code).
 */
function refusing(resolve: Resolver): Resolver {
  return async (args) => {
    try {
      return await resolve(args);
    } catch (error) {
      if (!isKernelError(error)) throw error;
      return { errors: [{ text: error.message, detail: error }] };
    }
  };
}

export function denoModules(entry: string, main: boolean): esbuild.Plugin {
  const base = path.dirname(entry);
  const npm = new NpmResolver(entry);
  return {
    name: 'deno-modules',
    setup(build) {
      // Marks a resolve this plugin asked esbuild for, so the plugin does not see it again.
      const again = Symbol('deno-modules');
      const fromRoot = async (specifier: string, args: esbuild.OnResolveArgs): Promise<esbuild.OnResolveResult> => {
        const result = await build.resolve(specifier, { resolveDir: npm.root, kind: args.kind, pluginData: again });
        if (result.errors.length > 0) throw kernelError('RTC_ERR_NPM_NOT_INSTALLED', `"${args.path}": ${result.errors[0]!.text}`);
        return { path: result.path, namespace: result.namespace, sideEffects: result.sideEffects };
      };
      // An ES module has no `require` in Deno: a call of it is a ReferenceError when it runs
      // (esbuild would bundle whatever it names). CommonJS (npm packages, .cjs) keeps require.
      // The target is resolved as any import is, so the import scope still refuses a file
      // outside the tree at build; what loads in its place is the ReferenceError.
      build.onResolve({ filter: /.*/ }, async (args) => {
        if ((args.kind !== 'require-call' && args.kind !== 'require-resolve') || args.pluginData === again) return undefined;
        if (args.importer.includes(`${path.sep}node_modules${path.sep}`) || /\.c[jt]s$/.test(args.importer) || args.namespace !== 'file') return undefined;
        const r = await build.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: again });
        if (r.errors.length > 0 || r.namespace !== 'file' || r.path === '') return { path: args.path, namespace: NO_REQUIRE_NAMESPACE };
        return { path: r.path, namespace: 'file', suffix: NO_REQUIRE_SUFFIX };
      });
      const noRequire = { contents: 'throw new ReferenceError("require is not defined");\n', loader: 'js' as const };
      build.onLoad({ filter: /.*/, namespace: NO_REQUIRE_NAMESPACE }, () => noRequire);
      build.onLoad({ filter: /.*/ }, (args) => (args.suffix === NO_REQUIRE_SUFFIX ? noRequire : undefined));
      build.onResolve({ filter: /^rtc-meta:/ }, (args) => ({ path: args.path.slice('rtc-meta:'.length), namespace: 'rtc-meta' }));
      build.onLoad({ filter: /.*/, namespace: 'rtc-meta' }, (args) => ({ contents: metaModule(args.path), loader: 'js' }));
      build.onResolve({ filter: /^jsr:/ }, refusing((args) => {
        throw kernelError('RTC_ERR_MODULE_UNSUPPORTED', `"${args.path}": jsr: imports are not supported (there is no JSR registry here); use an npm: package or a relative import (see docs/sandbox.md, "What the sandbox supports")`);
      }));
      build.onResolve({ filter: /^https?:/ }, refusing((args) => {
        throw kernelError('RTC_ERR_MODULE_UNSUPPORTED', `"${args.path}": remote imports are not supported in the sandbox; vendor the module or use an npm: package installed with "runtimectl plugins install"`);
      }));
      build.onResolve({ filter: /^npm:/ }, refusing((args) => fromRoot(npm.resolveNpm(args.path.slice(4)), args)));
      // Node built-ins: the shim's module, or a one-line refusal naming the one not offered.
      const nodeBuiltin = (args: esbuild.OnResolveArgs): esbuild.OnResolveResult => {
        if (isOfferedBuiltin(builtinName(args.path))) return resolveBuiltin(args.path);
        throw builtinRefusal(args.path, importer(args, base), args.importer);
      };
      build.onResolve({ filter: /^node:/ }, refusing(nodeBuiltin));
      build.onLoad({ filter: /.*/, namespace: NODE_NAMESPACE }, (args) => ({ contents: builtinModuleSource(args.path), loader: 'js' }));
      build.onResolve({ filter: /^[^./]/ }, refusing((args) => {
        if (args.pluginData === again || path.isAbsolute(args.path)) return undefined;
        // A bare built-in (`fs`, `fs/promises`) is the built-in, as in Deno and Node; `buffer/` is the npm package.
        if (NODE_BUILTINS.has(args.path)) return nodeBuiltin(args);
        // Inside an installed package, its own dependencies resolve the usual way.
        if (args.importer.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
        return fromRoot(npm.resolveBare(args.path), args);
      }));
      build.onResolve({ filter: /\.node$/ }, refusing((args) => {
        throw npm.addonError(args.path);
      }));
      build.onLoad({ filter: /\.(m?[jt]s|cts|cjs|[jt]sx)$/ }, (args) => {
        const source = readFileSync(args.path, 'utf8');
        const loader = loaderFor(args.path);
        if (args.path.includes(`${path.sep}node_modules${path.sep}`)) {
          try {
            npm.checkPackageFile(args.path);
          } catch (error) {
            if (!isKernelError(error)) throw error;
            return { errors: [{ text: error.message, detail: error }] };
          }
          // Only files that use import.meta get one: CommonJS files stay as they are.
          return { contents: source.includes('import.meta') ? withMeta(source, args.path, false) : source, loader };
        }
        // Only a module that uses import.meta gets one: the bundle of any other stays free of its path.
        const body = source.includes('import.meta') ? withMeta(source, args.path, main && args.path === entry) : `${source}\n`;
        return { contents: `${body}export {};\n`, loader };
      });
    },
  };
}
