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
  'features/mcp/harness-server.ts': [
    'bin/runtimectl.js', // features
  ],
  'kernel/broker/ops/run-spawn.ts': [
    'sandboxes/subprocess/spawn-command.ts', // kernel
  ],
  'kernel/broker/ops/run.ts': [
    'sandboxes/subprocess/os-sandbox/grant-view.ts', // kernel
    'sandboxes/subprocess/os-sandbox/net-proxy.ts', // kernel
    'sandboxes/subprocess/os-sandbox/plan.ts', // kernel
    'sandboxes/subprocess/run-command.ts', // kernel
  ],
  'kernel/loop/persona-plugins.ts': [
    'sandboxes/subprocess/os-sandbox/grant-view.ts', // kernel
  ],
  'kernel/loop/persona-runtime.ts': [
    'sandboxes/subprocess/run-command.ts', // kernel
  ],
  'kernel/run/exec-path.ts': [
    'bin/runtimectl.js', // kernel
  ],
  'kernel/run/prepare.ts': [
    'sandboxes/isolate/isolate-runtime.ts', // kernel
    'sandboxes/isolate/shim-source.ts', // kernel
    'sandboxes/loader/bundle.ts', // kernel
    'sandboxes/loader/import-scope.ts', // kernel
    'sandboxes/loader/module-loader.ts', // kernel
    'sandboxes/loader/stack-remap.ts', // kernel
  ],
  'kernel/run/script-runner.ts': [
    'sandboxes/isolate/isolate-runtime.ts', // kernel
    'sandboxes/isolate/shim-source.ts', // kernel
    'sandboxes/loader/bundle.ts', // kernel
    'sandboxes/loader/stack-remap.ts', // kernel
    'sandboxes/pool/process-pool.ts', // kernel
  ],
  'kernel/run/test-report.ts': [
    'sandboxes/loader/stack-remap.ts', // kernel
  ],
  'kernel/run/test-runner.ts': [
    'sandboxes/isolate/isolate-runtime.ts', // kernel
    'sandboxes/isolate/shim-source.ts', // kernel
    'sandboxes/loader/bundle.ts', // kernel
    'sandboxes/loader/stack-remap.ts', // kernel
    'sandboxes/pool/remote-runtime.ts', // kernel
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
  'sandboxes/loader/import-scope.ts': [
    'kernel/broker/special-files.ts', // sandboxes
  ],
  'sandboxes/loader/npm-resolve.ts': [
    'kernel/shown-path.ts', // sandboxes
  ],
  'sandboxes/subprocess/os-sandbox/net-proxy.ts': [
    'kernel/broker/checked-address.ts', // sandboxes
  ],
};
