/**
 * The CLI skeleton: finds the subcommand among the ones a composition registers (cli/ at the
 * repository root lists the features' verbs), handles `--help` and `--version`, and turns
 * every KernelError caused by input into one line on stderr with a non-zero status. A stack
 * trace is printed only for a fault in the kernel itself.
 */
import { isKernelError } from '../errors.ts';
import { assertNodeFlags } from '../node-flags.ts';
import { KERNEL_VERSION } from '../version.ts';
import type { CliIo, Command } from './command.ts';

function findCommand(commands: readonly Command[], argv: readonly string[]): { command: Command; rest: string[] } | undefined {
  let best: Command | undefined;
  for (const command of commands) {
    const matches = command.path.every((word, i) => argv[i] === word);
    if (matches && (!best || command.path.length > best.path.length)) best = command;
  }
  return best ? { command: best, rest: argv.slice(best.path.length) } : undefined;
}

export function topLevelHelp(commands: readonly Command[]): string {
  const width = Math.max(...commands.map((c) => c.path.join(' ').length));
  const lines = commands.map((c) => `  ${c.path.join(' ').padEnd(width)}  ${c.summary}`);
  return [
    `runtimectl ${KERNEL_VERSION}: a plugin kernel for forever-running agents`,
    '',
    'Usage: runtimectl <command> [options]',
    '',
    'Commands:',
    ...lines,
    '',
    'Every command takes --help. Global: --help, --version.',
    '',
  ].join('\n');
}

function defaultIo(): CliIo {
  return {
    stdout: (text) => void process.stdout.write(text),
    stderr: (text) => void process.stderr.write(text),
    cwd: process.cwd(),
    env: process.env,
  };
}

/**
 * Runs one command line against `commands` (or a loader of them: `--version` then loads
 * none of the features' code); returns the exit status.
 */
export async function runCommandLine(list: readonly Command[] | (() => Promise<readonly Command[]>), argv: string[], io: CliIo = defaultIo()): Promise<number> {
  if (argv[0] === '--version' || argv[0] === '-V') {
    io.stdout(`runtimectl ${KERNEL_VERSION}\n`);
    return 0;
  }
  const commands = typeof list === 'function' ? await list() : list;
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
    io.stdout(topLevelHelp(commands));
    return argv.length === 0 ? 2 : 0;
  }
  const found = findCommand(commands, argv);
  if (!found) {
    io.stderr(`runtimectl: RTC_ERR_CLI_USAGE: unknown command "${argv.filter((a) => !a.startsWith('-')).slice(0, 2).join(' ')}"; see "runtimectl --help"\n`);
    return 2;
  }
  const { command, rest } = found;
  // `--help` belongs to runtimectl only before a script's own arguments (sandbox run FILE --help).
  const helpIndex = rest.findIndex((a) => a === '--help' || a === '-h');
  const firstPositional = rest.findIndex((a) => !a.startsWith('-'));
  if (helpIndex !== -1 && (firstPositional === -1 || helpIndex < firstPositional || !command.path.includes('sandbox'))) {
    io.stdout(`${command.usage.trimEnd()}\n`);
    return 0;
  }
  try {
    assertNodeFlags();
    return await command.run(rest, io);
  } catch (error) {
    if (isKernelError(error) && !error.internal) {
      io.stderr(`runtimectl: ${error.toLine()}\n`);
      return error.code === 'RTC_ERR_CLI_USAGE' ? 2 : 1;
    }
    io.stderr(`runtimectl: internal error (a bug in the kernel; please report it): ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    return 70;
  }
}
