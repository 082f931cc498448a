/**
 * Every subcommand, in the order `runtimectl --help` lists them. A new command is one file
 * in this folder and one line here.
 */
import type { Command } from '../command.ts';
import { LEDGER_CLI_COMMANDS } from './ledger.ts';
import { sandboxRunCommand } from './sandbox-run.ts';
import { sandboxTestCommand } from './sandbox-test.ts';
import { denoCommand } from './deno.ts';
import { pluginsCheckCommand, pluginsInstallCommand, pluginsListCommand } from './plugins.ts';
import { demoCommand } from './demo.ts';
import { runtimeManifestCheckCommand } from './runtime-manifest.ts';
import { skillsListCommand } from './skills.ts';
import { workspacePrepareCommand } from './workspace.ts';
import { verifyCommand } from './verify.ts';
import { gateCommand } from './gate.ts';
import { evidenceSelectCommand, evidenceVerifyCommand } from './evidence.ts';
import { runCommand } from './run.ts';
import { statusCommand } from './status.ts';
import { PROPOSALS_CLI_COMMANDS } from './proposals.ts';
import { PERSISTENCE_CLI_COMMANDS } from './persistence.ts';
import { activityCommand } from './activity.ts';
import { replayCommand } from './replay.ts';

export const COMMANDS: readonly Command[] = [
  demoCommand,
  runCommand,
  statusCommand,
  sandboxRunCommand,
  sandboxTestCommand,
  pluginsListCommand,
  pluginsCheckCommand,
  pluginsInstallCommand,
  skillsListCommand,
  workspacePrepareCommand,
  runtimeManifestCheckCommand,
  verifyCommand,
  activityCommand,
  replayCommand,
  gateCommand,
  evidenceVerifyCommand,
  evidenceSelectCommand,
  ...LEDGER_CLI_COMMANDS,
  ...PROPOSALS_CLI_COMMANDS,
  ...PERSISTENCE_CLI_COMMANDS,
  denoCommand,
];
