/**
 * The imports that break a layering rule today, one entry per edge (importing file → imported
 * file), keyed by importing file; the comment names the rule. test/kernel/layering.test.ts fails on
 * an offence not listed here AND on a listed edge that no longer breaks a rule, so this list can only
 * shrink: when a move removes an offence, delete its entry in the same commit. Never add one: fix
 * the import instead (the rules: layering-rules.ts; the plan: issue 25).
 *
 * A `feature-cycle` entry is an import between two features of one strongly connected component
 * of the feature graph (every such import lies on a cycle); breaking one edge of a cycle can turn
 * others into plain feature → feature imports, and then their entries are stale too.
 */
import type { KnownOffenders } from './layering-check.ts';

export const KNOWN_OFFENDERS: KnownOffenders = {
  'features/sandbox-run/runner/exec-path.ts': [
    'bin/runtimectl.js', // features
  ],
  'plugins/ledger/model/lifecycle.ts': [
    'kernel/errors.ts', // plugins
  ],
  'plugins/ledger/model/schema-error.ts': [
    'kernel/errors.ts', // plugins
  ],
  'plugins/ledger/model/store.ts': [
    'kernel/errors.ts', // plugins
    'kernel/manifest/zod-error.ts', // plugins
  ],
  'plugins/ledger/rows-repo.ts': [
    'kernel/errors.ts', // plugins
    'kernel/manifest/zod-error.ts', // plugins
  ],
  'sandboxes/loader/bundle.ts': [
    'kernel/shown-path.ts', // sandboxes
  ],
  'sandboxes/loader/npm-resolve.ts': [
    'kernel/shown-path.ts', // sandboxes
  ],
};
