/**
 * Every subcommand, in the order `runtimectl --help` lists them. A new command is one file
 * in this folder and one line here.
 */
import type { Command } from '../command.ts';
import { LEDGER_CLI_COMMANDS } from './ledger.ts';
import { sandboxRunCommand } from './sandbox-run.ts';
import { pluginsCheckCommand, pluginsListCommand } from './plugins.ts';
import { demoCommand } from './demo.ts';
import { runtimeManifestCheckCommand } from './runtime-manifest.ts';
import { skillsListCommand } from './skills.ts';
import { workspacePrepareCommand } from './workspace.ts';
import { verifyCommand } from './verify.ts';
import { PROPOSALS_CLI_COMMANDS } from './proposals.ts';

export const COMMANDS: readonly Command[] = [
  demoCommand,
  sandboxRunCommand,
  pluginsListCommand,
  pluginsCheckCommand,
  skillsListCommand,
  workspacePrepareCommand,
  runtimeManifestCheckCommand,
  verifyCommand,
  ...LEDGER_CLI_COMMANDS,
  ...PROPOSALS_CLI_COMMANDS,
];
