/**
 * `runtimectl`: the composition root's entry. The kernel's CLI skeleton (cli/command-line.ts)
 * runs the verbs the features provide, as cli/commands.ts lists them. The list is loaded
 * only when a command needs it, so `--version` loads none of the features' code (in the
 * precompiled CLI each part is its own chunk).
 */
import type { CliIo } from '../features/command/command.ts';
import { runCommandLine, topLevelHelp as kernelHelp } from './command-line.ts';

const commands = async () => (await import('./commands.ts')).COMMANDS;

export function main(argv: string[], io?: CliIo): Promise<number> {
  return runCommandLine(commands, argv, io);
}

export async function topLevelHelp(): Promise<string> {
  return kernelHelp(await commands());
}
