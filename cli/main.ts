/**
 * `runtimectl`: the composition root's entry. The kernel's CLI skeleton (kernel/cli/main.ts)
 * runs the verbs the features provide, as cli/commands.ts lists them.
 */
import type { CliIo } from '../kernel/cli/command.ts';
import { runCommandLine, topLevelHelp as kernelHelp } from '../kernel/cli/main.ts';
import { COMMANDS } from './commands.ts';

export function main(argv: string[], io?: CliIo): Promise<number> {
  return runCommandLine(COMMANDS, argv, io);
}

export function topLevelHelp(): string {
  return kernelHelp(COMMANDS);
}
