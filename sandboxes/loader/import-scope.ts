/**
 * Where a build may read its imports from (issue 27, item 3). Bundling reads every file a
 * module imports on the host, with the kernel's authority, and puts its bytes into the
 * sandbox: a skill script with no grant that wrote `import key from
 * '/home/me/.config/runtimectl/operator-key.json' with { type: 'json' }` got the operator's
 * private key back. So every module build (plugins, skill scripts, gate drafts, `sandbox run`
 * and `sandbox test`) takes its imports only from its own tree (the folder of its plugin.yaml
 * or SKILL.md, else the entry's folder; a plugin also the kernel's own source folders and
 * packages, public code it may share: the shipped plugins import `../executor-shared` and
 * the kernel's contracts) and from what its grant lets it read.
 *
 * The check is one esbuild plugin (`importScope`) the bundler puts first, so it sees every
 * import of every build before any other resolver: static and dynamic `import` with a
 * literal path, `require`, JSON and text imports, `file:` URLs, absolute paths, `..`
 * escapes, a symlink inside the tree that points out (the real path is what is checked),
 * `/proc/self/root/...` (the same), npm packages whose files resolve outside. `data:` URLs
 * read nothing and pass. A refusal is the build's error, one line naming the importing file
 * (line and column), the import and why (RTC_ERR_BUILD_IMPORT_SCOPE); no byte of the file
 * outside is read. A cached bundle is used only when every input it was built from is still
 * in scope (bundle.ts), so narrowing a grant cannot be bypassed by the cache.
 */
import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as esbuild from 'esbuild';
import { kernelError } from '../../kernel/errors.ts';
import { PROJECT_ROOT } from '../../kernel/version.ts';
import { isSpecialPath } from '../../kernel/broker/special-paths.ts';

export interface ImportScope {
  /** folders whose files may be imported (made real when checked) */
  roots: readonly string[];
  /** a file outside them the build's grant lets its code read (the `read` permission on the real path) */
  granted?: (file: string) => boolean;
  /** names the tree in a refusal: `the skill folder /x/skills/pdf` */
  label: string;
  /** folders nothing is imported from, whatever the tree or the grant (the kernel's build cache and its key) */
  never?: readonly string[];
}

/**
 * The kernel's own source folders and its packages: code a plugin may share (the shipped ones
 * import `../gate-check-shared`, the ledger's rows, zod). Public code, never state: the state
 * folder, the build cache and the operator's config are none of them.
 */
const FIRST_PARTY_CODE = ['plugins', 'kernel', 'features', 'sandboxes', 'node_modules'].map((dir) => path.join(PROJECT_ROOT, dir));

function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

function inside(root: string, file: string): boolean {
  const rel = path.relative(root, file);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * The tree an entry belongs to: the nearest folder above it holding a plugin.yaml or a
 * SKILL.md (a plugin's or a skill's own folder), else the entry's own folder.
 */
export function packageRoot(entry: string): { dir: string; kind: 'plugin' | 'skill' | 'script' } {
  const start = path.dirname(real(entry));
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'plugin.yaml'))) return { dir, kind: 'plugin' };
    if (existsSync(path.join(dir, 'SKILL.md'))) return { dir, kind: 'skill' };
    if (path.dirname(dir) === dir) return { dir: start, kind: 'script' };
  }
}

/** The default scope of an entry: its own tree, and for a plugin the kernel's source folders. */
export function importScopeOf(entry: string, granted?: (file: string) => boolean, never?: readonly string[]): ImportScope {
  const { dir, kind } = packageRoot(entry);
  return {
    roots: kind === 'plugin' ? [dir, ...FIRST_PARTY_CODE] : [dir],
    ...(granted ? { granted } : {}),
    ...(never ? { never } : {}),
    label: `the ${kind === 'script' ? "script's folder" : `${kind} folder`} ${dir}`,
  };
}

/** Why `file` may not be imported in `scope`, or undefined when it may (checked on its real path). */
export function outsideScope(scope: ImportScope, file: string): string | undefined {
  const where = real(file);
  // /proc, /sys and /dev are the kernel's own process and devices, never a module's source.
  if (isSpecialPath(where) || isSpecialPath(path.resolve(file))) return `${path.resolve(file)} is a special file (/proc, /sys, /dev), never a module`;
  if (scope.never?.some((dir) => inside(real(dir), where))) return `${where} is the kernel's own build cache`;
  if (scope.roots.some((root) => inside(real(root), where))) return undefined;
  if (scope.granted?.(where)) return undefined;
  return `${where === path.resolve(file) ? where : `${path.resolve(file)} (really ${where})`} is outside ${scope.label}`;
}

function refusal(text: string): esbuild.OnResolveResult {
  return { errors: [{ text, detail: kernelError('RTC_ERR_BUILD_IMPORT_SCOPE', text) }] };
}

/** The resolve hook every module build passes through first (see the header). */
export function importScope(scope: ImportScope, base: string): esbuild.Plugin {
  return {
    name: 'import-scope',
    setup(build) {
      // Marks the resolve this hook asks esbuild for, so it does not check it twice.
      const mine = Symbol('import-scope');
      build.onResolve({ filter: /.*/ }, async (args) => {
        // A plugin's own nested resolve (the npm resolver's) is checked where it was asked for.
        // A data: URL reads nothing from the host: not this hook's to refuse (the module resolver answers it).
        if (args.pluginData !== undefined || args.namespace === 'rtc-meta' || /^(rtc-meta|data):/.test(args.path)) return undefined;
        const from = args.importer ? path.relative(base, args.importer) || args.importer : '(entry)';
        let specifier = args.path;
        if (specifier.startsWith('file:')) {
          try {
            specifier = fileURLToPath(specifier);
          } catch {
            return refusal(`import "${args.path}" in ${from}: not a file URL this host can read`);
          }
        }
        const result = await build.resolve(specifier, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, namespace: args.namespace, pluginData: mine, ...(args.with ? { with: args.with } : {}) });
        if (result.errors.length > 0) return { errors: result.errors, warnings: result.warnings };
        if (result.external || result.namespace !== 'file' || result.path === '') return { ...passOn(result) };
        const why = outsideScope(scope, result.path);
        if (why !== undefined) return refusal(`import "${args.path}" in ${from}: ${why}${scope.granted ? ' and its read grant' : ''}; a module imports only files of its own tree${scope.granted ? ' and what it may read' : ''}`);
        return passOn(result);
      });
    },
  };
}

/** A resolve result handed back as this hook's own answer (nothing of it dropped). */
function passOn(result: esbuild.ResolveResult): esbuild.OnResolveResult {
  return {
    path: result.path,
    namespace: result.namespace,
    external: result.external,
    sideEffects: result.sideEffects,
    suffix: result.suffix,
    warnings: result.warnings,
    ...(result.pluginData === undefined ? {} : { pluginData: result.pluginData }),
  };
}
