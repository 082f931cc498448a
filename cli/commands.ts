/**
 * Every subcommand, in the order `runtimectl --help` lists them. A new command is one file
 * in this folder and one line here.
 */
import type { Command } from '../kernel/cli/command.ts';
import { LEDGER_CLI_COMMANDS } from '../features/ledger/cli.ts';
import { sandboxRunCommand } from '../features/sandbox-run/cli.ts';
import { pluginsCheckCommand, pluginsListCommand } from '../features/plugins/cli.ts';
import { demoCommand } from '../features/sandbox-run/demo-cli.ts';
import { runtimeManifestCheckCommand } from '../features/runtime-manifest/cli.ts';
import { skillsListCommand } from '../features/skills/cli.ts';
import { workspacePrepareCommand } from '../features/workspace/cli.ts';
import { verifyCommand } from '../features/verify/cli.ts';
import { gateCommand } from '../features/gate/cli.ts';
import { evidenceSelectCommand, evidenceVerifyCommand } from '../features/gate/evidence-cli.ts';
import { runCommand } from '../features/science-loop/cli.ts';
import { statusCommand } from '../features/status/cli.ts';
import { PROPOSALS_CLI_COMMANDS } from '../features/review/cli.ts';
import { PERSISTENCE_CLI_COMMANDS } from '../features/persistence/cli.ts';
import { activityCommand } from '../features/activity/cli.ts';
import { replayCommand } from '../features/replay/cli.ts';
import { fleetRenderCommand } from '../features/fleet/cli.ts';
import { EVENTS_CLI_COMMANDS } from '../features/events/cli.ts';
import { OPERATOR_CLI_COMMANDS } from '../features/review/operator-cli.ts';

export const COMMANDS: readonly Command[] = [
  demoCommand,
  runCommand,
  statusCommand,
  sandboxRunCommand,
  pluginsListCommand,
  pluginsCheckCommand,
  skillsListCommand,
  workspacePrepareCommand,
  runtimeManifestCheckCommand,
  verifyCommand,
  activityCommand,
  replayCommand,
  ...EVENTS_CLI_COMMANDS,
  gateCommand,
  evidenceVerifyCommand,
  evidenceSelectCommand,
  ...LEDGER_CLI_COMMANDS,
  ...PROPOSALS_CLI_COMMANDS,
  ...OPERATOR_CLI_COMMANDS,
  ...PERSISTENCE_CLI_COMMANDS,
  fleetRenderCommand,
];
