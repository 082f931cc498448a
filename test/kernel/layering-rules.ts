/**
 * The import rules, as data: the one place the layering checker (layering-check.ts), kernel/README.md
 * (the public surface, quoted between markers and checked by test/kernel/readme.test.ts) and
 * docs/architecture.md (one line per folder) read them from. Patterns are project-relative: an
 * exact file, or a folder ending in `/**` (everything under it), or `plugins/* /model/**`'s one `*`
 * standing for one folder name.
 */

/** The folders whose code the rules constrain; their test files (any `test/` folder, `*.test.ts`) are not. */
export const CHECKED_ROOTS = ['kernel', 'sandboxes', 'plugins', 'features'] as const;

/** Every folder the checker reads sources from (cli/ and bin/ only as importers of the graph, with no rule). */
export const SOURCE_ROOTS = [...CHECKED_ROOTS, 'cli', 'bin'] as const;

/**
 * The kernel's public surface: the only kernel modules sandboxes/ may import (types or values). A
 * sandbox implements the kernel's contracts (kernel/sandbox.ts, the op registry) and answers with
 * its errors; it does not reach into the driver, the event log or storage engines.
 */
export const KERNEL_PUBLIC_SURFACE: readonly string[] = [
  'kernel/errors.ts',
  'kernel/version.ts',
  'kernel/ids.ts',
  // The one rule for naming a file in a message (relative to where the user stands, else
  // absolute): a pure function of two strings that every layer's errors follow, the loader's too.
  'kernel/shown-path.ts',
  'kernel/sandbox.ts',
  'kernel/broker/op.ts',
  'kernel/broker/extension.ts',
  'kernel/broker/deno-error.ts',
  'kernel/broker/refusal.ts',
  'kernel/broker/args.ts',
  'kernel/broker/run-scope.ts',
  // The broker's contracts an op extension implements against (the Deno ops live in sandboxes/deno/ops):
  // what a call attempts, audited whatever answers it (OpDefinition.attempts);
  'kernel/broker/attempts.ts',
  // the resource table an op's rids live in, closed by the broker when its context ends (Deno's ResourceTable);
  'kernel/broker/resources.ts',
  // the run's disk account every op declaring `quota` charges (the broker refuses a writing op that does not);
  'kernel/broker/write-quota.ts',
  // Deno's special-path rule: one rule, applied by the broker to every need, by the fs ops and by the module loader.
  'kernel/broker/special-paths.ts',
  'kernel/permissions/**',
  'kernel/manifest/sandbox-profile.ts',
  // The kernel's IO-safety primitive (no FIFO opened blocking, no read without bound): the one
  // capped read of a regular file and its checks, which sandboxes/fs-safety/safe-open.ts (with
  // no-follow.ts, no link followed) builds on; all refuse with unsafe-file's one error class.
  'kernel/storage/safe-read.ts',
  'kernel/storage/unsafe-file.ts',
];

/**
 * What a plugin may import with `import type` / `export type` (erased by esbuild, so no kernel code
 * reaches the isolate bundle): the published contracts, and errors.ts for the `ErrorCode` type of
 * the coded errors a plugin throws. `import { type X }` is not type-only: under verbatimModuleSyntax
 * it keeps a side-effect import.
 */
export const PLUGIN_TYPE_SURFACE: readonly string[] = ['kernel/contracts/**', 'kernel/errors.ts'];

/**
 * What a plugin may import by value: a contract module the checker proves isolate-safe, meaning its
 * value imports are only these packages and other isolate-safe contract modules.
 */
export const ISOLATE_SAFE_ROOT = 'kernel/contracts/**';
export const ISOLATE_SAFE_PACKAGES: readonly string[] = ['zod'];

/** What a feature may import. */
export const FEATURE_MAY_IMPORT: readonly string[] = ['kernel/**', 'sandboxes/**', 'features/**', 'plugins/*/model/**'];

/** One line per folder: the rule as people read it (docs/architecture.md, `npm run layering`). */
export const FOLDER_RULES: readonly { folder: string; rule: string }[] = [
  { folder: 'kernel/', rule: 'imports only kernel/ (and packages); never sandboxes/, features/, plugins/, cli/ or bin/, not even by a computed path' },
  { folder: 'sandboxes/', rule: "imports sandboxes/ and the kernel's public surface only (listed in kernel/README.md)" },
  { folder: 'plugins/', rule: 'imports plugins/; kernel/contracts/** and kernel/errors.ts only with `import type`; by value only isolate-safe contract modules (they import nothing but zod)' },
  { folder: 'features/', rule: 'imports kernel/, sandboxes/, features/ and plugins/*/model/; the feature graph has no cycle' },
  { folder: 'cli/, bin/', rule: 'the composition root: may import anything except tests' },
  { folder: 'test/, */test/', rule: 'tests may import anything; no source file imports a test file' },
];
