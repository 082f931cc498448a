/**
 * The composition root's list of verbs: every subcommand, in the order `runtimectl --help`
 * lists them, each defined beside its feature (features/<name>/cli.ts). A new command is one file
 * in its feature and one line here.
 */
import type { Command } from '../features/command/command.ts';
import { LEDGER_CLI_COMMANDS } from '../features/ledger/cli.ts';
import { sandboxRunCommand } from '../features/sandbox-run/cli.ts';
import { sandboxTestCommand } from '../features/sandbox-run/test-cli.ts';
import { denoCommand } from '../features/sandbox-run/deno-cli.ts';
import { pluginsCheckCommand, pluginsInstallCommand, pluginsListCommand, pluginsNewCommand } from '../features/plugins/cli.ts';
import { demoCommand } from '../features/sandbox-run/demo-cli.ts';
import { runtimeManifestCheckCommand } from '../features/runtime-manifest/cli.ts';
import { skillsListCommand } from '../features/skills/cli.ts';
import { skillsInstallCommand } from '../features/gate/install-cli.ts';
import { workspacePrepareCommand } from '../features/workspace/cli.ts';
import { verifyCommand } from '../features/verify/cli.ts';
import { gateCommand } from '../features/gate/cli.ts';
import { evidenceSelectCommand, evidenceVerifyCommand } from '../features/gate/evidence-cli.ts';
import { runCommand } from '../features/science-loop/cli.ts';
import { statusCommand } from '../features/status/cli.ts';
import { PROPOSALS_CLI_COMMANDS } from '../features/review/cli.ts';
import { persistenceCommands } from '../features/persistence/cli.ts';
import { rollupOf } from '../features/history/rollup.ts';
import { ledgerPart } from '../features/ledger/backend-part.ts';
import { activityCommand } from '../features/activity/cli.ts';
import { replayCommand } from '../features/replay/cli.ts';
import { HISTORY_CLI_COMMANDS } from '../features/history/cli.ts';
import { fleetRenderCommand } from '../features/fleet/cli.ts';
import { mcpCommands } from '../features/mcp/cli.ts';
import { openLoopKernel } from '../features/science-loop/preset.ts';
import { EVENTS_CLI_COMMANDS } from '../features/events/cli.ts';
import { OPERATOR_CLI_COMMANDS } from '../features/review/operator-cli.ts';
import { serveCommand } from '../features/console/cli.ts';
import { logsCommand } from '../features/logs/cli.ts';
import { INBOX_CLI_COMMANDS } from '../features/inbox/cli.ts';
import { withDsnFlag } from '../features/persistence/dsn.ts';

/**
 * Commands that open a persona's state: each takes --dsn for personas kept in Postgres
 * (features/persistence/dsn.ts), the same way. `run` takes it itself (its workers need it);
 * these parse their own --dsn and get the same context.
 */
const PARSE_THEIR_OWN_DSN = new Set(['status', 'activity', 'verify', 'persistence export', 'persistence status']);
const OPEN_PERSONA_STATE = new Set(['verify', 'logs', 'serve', 'replay', 'gate', 'tools', 'mcp', 'inbox', 'proposals', 'ledger', 'events', 'archive']);

function dsnAware(command: Command): Command {
  const name = command.path.join(' ');
  if (PARSE_THEIR_OWN_DSN.has(name)) return withDsnFlag(command, { parsesItself: true });
  return OPEN_PERSONA_STATE.has(command.path[0]!) ? withDsnFlag(command) : command;
}

const LISTED: readonly Command[] = [
  demoCommand,
  runCommand,
  statusCommand,
  sandboxRunCommand,
  sandboxTestCommand,
  pluginsListCommand,
  pluginsCheckCommand,
  pluginsNewCommand,
  pluginsInstallCommand,
  skillsListCommand,
  skillsInstallCommand,
  workspacePrepareCommand,
  runtimeManifestCheckCommand,
  verifyCommand,
  activityCommand,
  logsCommand,
  serveCommand,
  replayCommand,
  ...HISTORY_CLI_COMMANDS,
  ...EVENTS_CLI_COMMANDS,
  gateCommand,
  evidenceVerifyCommand,
  evidenceSelectCommand,
  ...LEDGER_CLI_COMMANDS,
  ...PROPOSALS_CLI_COMMANDS,
  ...OPERATOR_CLI_COMMANDS,
  ...persistenceCommands({ rollup: rollupOf, parts: [ledgerPart] }),
  fleetRenderCommand,
  ...mcpCommands({ openKernel: openLoopKernel }),
  ...INBOX_CLI_COMMANDS,
  denoCommand,
];

export const COMMANDS: readonly Command[] = LISTED.map(dsnAware);
