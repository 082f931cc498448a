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
  'features/activity/cli.ts': [
    'features/persistence/fleet.ts', // feature-cycle
    'features/verify/cli.ts', // feature-cycle
  ],
  'features/activity/collect.ts': [
    'features/history/read-path.ts', // feature-cycle
    'features/persistence/fleet.ts', // feature-cycle
  ],
  'features/activity/report.ts': [
    'features/history/buckets.ts', // feature-cycle
  ],
  'features/gate/bindings.ts': [
    'features/skills/parse-skill-file.ts', // feature-cycle
  ],
  'features/gate/evidence-cli.ts': [
    'features/skills/read-reference.ts', // feature-cycle
  ],
  'features/gate/import-guard.ts': [
    'features/skills/read-reference.ts', // feature-cycle
  ],
  'features/gate/propose.ts': [
    'features/persistence/provider.ts', // feature-cycle
  ],
  'features/gate/run-gate.ts': [
    'features/skills/read-reference.ts', // feature-cycle
  ],
  'features/gate/snapshot.ts': [
    'features/skills/read-reference.ts', // feature-cycle
  ],
  'features/history/archive.ts': [
    'features/persistence/open.ts', // feature-cycle
  ],
  'features/history/buckets.ts': [
    'features/activity/report.ts', // feature-cycle
    'features/activity/tokens.ts', // feature-cycle
    'features/science-loop/budget/usage.ts', // feature-cycle
  ],
  'features/history/cli.ts': [
    'features/activity/window.ts', // feature-cycle
    'features/persistence/open.ts', // feature-cycle
    'features/science-loop/cli.ts', // feature-cycle
  ],
  'features/history/fold.ts': [
    'features/science-loop/budget/usage.ts', // feature-cycle
  ],
  'features/history/loop-part.ts': [
    'features/persistence/backend.ts', // feature-cycle
  ],
  'features/history/read-path.ts': [
    'features/activity/report.ts', // feature-cycle
    'features/persistence/open.ts', // feature-cycle
    'features/science-loop/budget/usage.ts', // feature-cycle
  ],
  'features/history/rollup.ts': [
    'features/activity/report.ts', // feature-cycle
  ],
  'features/history/sections.ts': [
    'features/persistence/backend.ts', // feature-cycle
  ],
  'features/ledger/open.ts': [
    'features/persistence/open.ts', // feature-cycle
  ],
  'features/mcp/cli.ts': [
    'features/science-loop/cli.ts', // feature-cycle
  ],
  'features/mcp/harness-server.ts': [
    'bin/runtimectl.js', // features
  ],
  'features/mcp/tool-source.ts': [
    'features/science-loop/cli.ts', // feature-cycle
    'features/science-loop/preset.ts', // feature-cycle
  ],
  'features/persistence/backend.ts': [
    'features/ledger/consistency.ts', // feature-cycle
    'features/ledger/open.ts', // feature-cycle
    'features/ledger/records.ts', // feature-cycle
    'features/ledger/repo.ts', // feature-cycle
  ],
  'features/persistence/cli.ts': [
    'features/verify/cli.ts', // feature-cycle
  ],
  'features/persistence/copy.ts': [
    'features/history/rollup.ts', // feature-cycle
    'features/ledger/format.ts', // feature-cycle
    'features/ledger/open.ts', // feature-cycle
    'features/ledger/records.ts', // feature-cycle
  ],
  'features/persistence/isolated-backend.ts': [
    'features/ledger/repo.ts', // feature-cycle
  ],
  'features/persistence/ledger-access.ts': [
    'features/ledger/consistency.ts', // feature-cycle
    'features/ledger/format.ts', // feature-cycle
    'features/ledger/layout.ts', // feature-cycle
    'features/ledger/open.ts', // feature-cycle
    'features/ledger/records.ts', // feature-cycle
    'features/ledger/repo.ts', // feature-cycle
  ],
  'features/persistence/ledger-convert.ts': [
    'features/ledger/format.ts', // feature-cycle
    'features/ledger/open.ts', // feature-cycle
    'features/ledger/plugin-host.ts', // feature-cycle
    'features/ledger/records.ts', // feature-cycle
    'features/ledger/repo.ts', // feature-cycle
  ],
  'features/persistence/open.ts': [
    'features/ledger/plugin-host.ts', // feature-cycle
  ],
  'features/review/cli.ts': [
    'features/persistence/provider.ts', // feature-cycle
  ],
  'features/review/ratify-context.ts': [
    'features/persistence/open.ts', // feature-cycle
  ],
  'features/review/verify-check.ts': [
    'features/persistence/provider.ts', // feature-cycle
    'features/verify/cli.ts', // feature-cycle
  ],
  'features/science-loop/bindings.ts': [
    'features/ledger/lifecycle.ts', // feature-cycle
    'features/ledger/open.ts', // feature-cycle
    'features/persistence/backend.ts', // feature-cycle
  ],
  'features/science-loop/cli.ts': [
    'features/ledger/open.ts', // feature-cycle
    'features/mcp/harness-server.ts', // feature-cycle
    'features/persistence/dsn.ts', // feature-cycle
    'features/skills/layout.ts', // feature-cycle
  ],
  'features/science-loop/decide.ts': [
    'features/persistence/backend.ts', // feature-cycle
    'features/skills/catalog.ts', // feature-cycle
  ],
  'features/science-loop/executors/prompt.ts': [
    'features/skills/catalog.ts', // feature-cycle
  ],
  'features/science-loop/executors/session-dir.ts': [
    'features/workspace/prepare.ts', // feature-cycle
    'features/workspace/skill-catalog-record.ts', // feature-cycle
  ],
  'features/science-loop/ledger-inspection.ts': [
    'features/ledger/config.ts', // feature-cycle
    'features/persistence/backend.ts', // feature-cycle
  ],
  'features/science-loop/preset.ts': [
    'features/history/loop-part.ts', // feature-cycle
    'features/ledger/layout.ts', // feature-cycle
    'features/persistence/backend.ts', // feature-cycle
    'features/persistence/provider.ts', // feature-cycle
    'features/skills/scripts.ts', // feature-cycle
  ],
  'features/science-loop/steps.ts': [
    'features/history/loop-part.ts', // feature-cycle
    'features/persistence/backend.ts', // feature-cycle
    'features/skills/catalog.ts', // feature-cycle
    'features/skills/layout.ts', // feature-cycle
    'features/skills/select.ts', // feature-cycle
  ],
  'features/science-loop/workers/worker-main.ts': [
    'features/mcp/harness-server.ts', // feature-cycle
    'features/persistence/dsn.ts', // feature-cycle
  ],
  'features/skills/install.ts': [
    'features/gate/evidence/manifest-schema.ts', // feature-cycle
    'features/gate/evidence/verify.ts', // feature-cycle
  ],
  'features/verify/checkpoint-check.ts': [
    'features/persistence/isolated-backend.ts', // feature-cycle
  ],
  'features/verify/checks.ts': [
    'features/ledger/config.ts', // feature-cycle
    'features/ledger/consistency.ts', // feature-cycle
    'features/ledger/format.ts', // feature-cycle
    'features/ledger/layout.ts', // feature-cycle
    'features/ledger/open.ts', // feature-cycle
    'features/persistence/open.ts', // feature-cycle
  ],
  'features/verify/cli.ts': [
    'features/persistence/fleet.ts', // feature-cycle
    'features/persistence/isolated-backend.ts', // feature-cycle
    'features/persistence/open.ts', // feature-cycle
    'features/review/verify-check.ts', // feature-cycle
  ],
  'features/verify/history-checks.ts': [
    'features/history/rollup.ts', // feature-cycle
    'features/persistence/isolated-backend.ts', // feature-cycle
    'features/persistence/open.ts', // feature-cycle
  ],
  'features/workspace/cli.ts': [
    'features/skills/catalog.ts', // feature-cycle
    'features/skills/cli.ts', // feature-cycle
    'features/skills/layout.ts', // feature-cycle
  ],
  'features/workspace/skill-catalog-record.ts': [
    'features/skills/catalog.ts', // feature-cycle
  ],
  'kernel/broker/op.ts': [
    'sandboxes/subprocess/os-sandbox/plan.ts', // kernel
    'sandboxes/subprocess/run-command.ts', // kernel
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
  'kernel/build/node-builtins.ts': [
    'sandboxes/shim/node/modules.ts', // kernel
  ],
  'kernel/build/shim-part-links.ts': [
    'sandboxes/shim/node/modules.ts', // kernel
  ],
  'kernel/loop/persona-plugins.ts': [
    'sandboxes/subprocess/os-sandbox/grant-view.ts', // kernel
  ],
  'kernel/loop/persona-runtime.ts': [
    'sandboxes/isolate/isolate-runtime.ts', // kernel
    'sandboxes/isolate/shim-source.ts', // kernel
    'sandboxes/subprocess/run-command.ts', // kernel
  ],
  'kernel/loop/plugin-options.ts': [
    'sandboxes/isolate/isolate-runtime.ts', // kernel
    'sandboxes/subprocess/run-command.ts', // kernel
  ],
  'kernel/persistence/shared-instance.ts': [
    'sandboxes/isolate/shim-source.ts', // kernel
  ],
  'kernel/plugins/plugin-instance.ts': [
    'sandboxes/isolate/isolate-runtime.ts', // kernel
    'sandboxes/isolate/shim-source.ts', // kernel
    'sandboxes/pool/remote-runtime.ts', // kernel
  ],
  'kernel/replay/replay-persona.ts': [
    'sandboxes/isolate/isolate-runtime.ts', // kernel
    'sandboxes/isolate/shim-source.ts', // kernel
  ],
  'kernel/run/exec-path.ts': [
    'bin/runtimectl.js', // kernel
  ],
  'kernel/run/prepare.ts': [
    'sandboxes/isolate/isolate-runtime.ts', // kernel
    'sandboxes/isolate/shim-source.ts', // kernel
  ],
  'kernel/run/script-runner.ts': [
    'sandboxes/isolate/isolate-runtime.ts', // kernel
    'sandboxes/isolate/shim-source.ts', // kernel
    'sandboxes/pool/process-pool.ts', // kernel
  ],
  'kernel/run/test-runner.ts': [
    'sandboxes/isolate/isolate-runtime.ts', // kernel
    'sandboxes/isolate/shim-source.ts', // kernel
    'sandboxes/pool/remote-runtime.ts', // kernel
  ],
  'kernel/tools/mcp-mount.ts': [
    'sandboxes/subprocess/os-sandbox/bwrap.ts', // kernel
    'sandboxes/subprocess/os-sandbox/grant-view.ts', // kernel
    'sandboxes/subprocess/os-sandbox/net-proxy.ts', // kernel
    'sandboxes/subprocess/run-command.ts', // kernel
  ],
  'kernel/tools/mcp-process.ts': [
    'sandboxes/subprocess/run-command.ts', // kernel
  ],
  'kernel/tools/tool-grant.ts': [
    'sandboxes/subprocess/os-sandbox/grant-view.ts', // kernel
  ],
  'plugins/ledger/mod.ts': [
    'features/ledger/repo.ts', // plugins
    'features/ledger/store.ts', // plugins
  ],
  'plugins/ledger/rows-repo.ts': [
    'features/ledger/jsonl-records.ts', // plugins
    'features/ledger/records.ts', // plugins
    'features/ledger/repo.ts', // plugins
    'features/ledger/row-state.ts', // plugins
    'features/ledger/schema-error.ts', // plugins
    'kernel/errors.ts', // plugins
    'kernel/manifest/zod-error.ts', // plugins
  ],
  'plugins/persistence-sqlite/ledger.ts': [
    'features/ledger/jsonl-records.ts', // plugins
    'features/ledger/records.ts', // plugins
    'features/ledger/row-state.ts', // plugins
  ],
  'sandboxes/isolate/shim-source.ts': [
    'kernel/build/bundle.ts', // sandboxes
    'kernel/build/shim-part-links.ts', // sandboxes
  ],
  'sandboxes/pool/sandbox-host.ts': [
    'kernel/build/bundle.ts', // sandboxes
    'kernel/build/esbuild.ts', // sandboxes
  ],
  'sandboxes/subprocess/os-sandbox/net-proxy.ts': [
    'kernel/broker/checked-address.ts', // sandboxes
  ],
};
