/**
 * The CLI skeleton: finds the subcommand among the ones a composition registers (cli/ at the
 * repository root lists the features' verbs), handles `--help` and `--version`, and turns
 * every KernelError caused by input into one line on stderr with a non-zero status. A stack
 * trace is printed only for a fault in the kernel itself.
 */
import { isKernelError } from '../kernel/errors.ts';
import { fsReason } from '../features/persistence/state/state-dir.ts';
import { didYouMean } from '../features/profiles/suggest.ts';
import { assertNodeFlags } from '../sandboxes/isolate/node-flags.ts';
import { KERNEL_VERSION } from '../kernel/version.ts';
import type { CliIo, Command } from '../features/command/command.ts';
import { invokedAs, setProgramVerbs, withProgram } from '../features/command/program.ts';

function findCommand(commands: readonly Command[], argv: readonly string[]): { command: Command; rest: string[] } | undefined {
  let best: Command | undefined;
  for (const command of commands) {
    const matches = command.path.every((word, i) => argv[i] === word);
    if (matches && (!best || command.path.length > best.path.length)) best = command;
  }
  return best ? { command: best, rest: argv.slice(best.path.length) } : undefined;
}

/** The verbs of a command group (`plugins` → list, check), empty for a plain command. */
function verbsOf(commands: readonly Command[], group: string): Command[] {
  return commands.filter((c) => c.path.length === 2 && c.path[0] === group);
}

/** A group's help: its own usage when it has a group command, else made from its verbs. */
function groupHelp(commands: readonly Command[], group: string): string {
  const own = commands.find((c) => c.path.length === 1 && c.path[0] === group);
  if (own) return `${own.usage.trimEnd()}\n`;
  const verbs = verbsOf(commands, group);
  const width = Math.max(...verbs.map((c) => c.path[1]!.length));
  return [`Usage: runtimectl ${group} <command> [options]`, '', 'Commands:', ...verbs.map((c) => `  ${c.path[1]!.padEnd(width)}  ${c.summary}`), '', 'Every command takes --help.', ''].join('\n');
}

/**
 * A group named without a verb prints its help (exit 2, like runtimectl alone); a verb it does
 * not have is a usage error with "did you mean". Undefined when argv names a command to run.
 */
function groupAnswer(commands: readonly Command[], argv: readonly string[], io: CliIo): number | undefined {
  const group = argv[0]!;
  const verbs = verbsOf(commands, group);
  if (verbs.length === 0) return undefined;
  const verb = argv[1];
  if (verb !== undefined && verbs.some((c) => c.path[1] === verb)) return undefined;
  if (verb === undefined || verb.startsWith('-')) {
    const help = verb === '--help' || verb === '-h';
    // A group that is also a command taking flags (`archive --persona ID`, beside `archive restore`) runs it.
    if (!help && verb !== undefined && commands.some((c) => c.path.length === 1 && c.path[0] === group && c.takesFlags)) return undefined;
    io.stdout(groupHelp(commands, group));
    return help ? 0 : 2;
  }
  const names = verbs.map((c) => c.path[1]!);
  io.stderr(`runtimectl: RTC_ERR_CLI_USAGE: unknown ${group} command "${verb}"${didYouMean(verb, names)}; one of ${names.join(', ')}; see "runtimectl ${group} --help"\n`);
  return 2;
}

/** The errnos that describe the files a command was pointed at, not a fault of the kernel. */
const FS_ERRNOS = new Set(['ENOENT', 'ENOTDIR', 'EACCES', 'EPERM', 'EEXIST', 'EISDIR', 'EROFS', 'ENOSPC', 'ELOOP', 'ENAMETOOLONG', 'EMFILE', 'ENFILE', 'EDQUOT', 'EBUSY', 'ETXTBSY', 'EXDEV']);

/**
 * A file-system error that reached the top (a folder where a file belongs, a file that went
 * away, a full disk) as one line naming the path, instead of an internal error's stack.
 */
function fsErrorLine(error: unknown): string | undefined {
  const e = error as NodeJS.ErrnoException;
  if (!(error instanceof Error) || typeof e.code !== 'string' || !FS_ERRNOS.has(e.code) || typeof e.path !== 'string') return undefined;
  const target = (error as { dest?: unknown }).dest;
  const dest = typeof target === 'string' ? ` -> ${target}` : '';
  return `RTC_ERR_FS_ACCESS: ${e.path}${dest}: ${fsReason(e)} (${e.syscall ?? 'fs'})`;
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

export function defaultIo(): CliIo {
  // A reader that stops early (`runtimectl verify | head`) closes the pipe: the rest of the
  // output has nowhere to go, which is no error of the command's.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
    });
  }
  return {
    stdout: (text) => void process.stdout.write(text),
    stderr: (text) => void process.stderr.write(text),
    cwd: process.cwd(),
    env: process.env,
    program: invokedAs({ script: process.argv[1], env: process.env, cwd: process.cwd() }),
  };
}

/**
 * Runs one command line against `commands` (or a loader of them: `--version` then loads
 * none of the features' code); returns the exit status.
 */
export async function runCommandLine(list: readonly Command[] | (() => Promise<readonly Command[]>), argv: string[], given: CliIo = defaultIo()): Promise<number> {
  if (argv[0] === '--version' || argv[0] === '-V') {
    given.stdout(`runtimectl ${KERNEL_VERSION}\n`);
    return 0;
  }
  const commands = typeof list === 'function' ? await list() : list;
  setProgramVerbs(commands.map((c) => c.path[0]!));
  // What the skeleton itself prints (help, usage, error lines) names runtimectl the way the user runs it.
  const io: CliIo = { ...given, stdout: (text) => given.stdout(withProgram(text, given.program)), stderr: (text) => given.stderr(withProgram(text, given.program)) };
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
    io.stdout(topLevelHelp(commands));
    return argv.length === 0 ? 2 : 0;
  }
  const grouped = groupAnswer(commands, argv, io);
  if (grouped !== undefined) return grouped;
  const found = findCommand(commands, argv);
  if (!found) {
    const words = [...new Set(commands.map((c) => c.path[0]!))];
    io.stderr(`runtimectl: RTC_ERR_CLI_USAGE: unknown command "${argv.filter((a) => !a.startsWith('-')).slice(0, 2).join(' ')}"${didYouMean(argv[0]!, words)}; see "runtimectl --help"\n`);
    return 2;
  }
  const { command, rest } = found;
  // `--help` belongs to runtimectl only before a script's own arguments (sandbox run FILE --help).
  const helpIndex = rest.findIndex((a) => a === '--help' || a === '-h');
  const firstPositional = rest.findIndex((a) => !a.startsWith('-'));
  // `runtimectl deno ...` is a deno command line: only `runtimectl deno --help` is ours.
  const ours = command.path[0] === 'deno' ? helpIndex === 0 : helpIndex !== -1 && (firstPositional === -1 || helpIndex < firstPositional || !command.path.includes('sandbox'));
  if (ours) {
    io.stdout(`${command.usage.trimEnd()}\n`);
    return 0;
  }
  try {
    assertNodeFlags();
    // stdout may be data (a script's output, JSON, manifests): a command words its hints there
    // with hint(). stderr is diagnostics, rewritten like the skeleton's own lines, unless the
    // command passes a program's own stderr through (sandbox run, deno, mcp serve).
    return await command.run(rest, command.rawStderr ? given : { ...given, stderr: io.stderr });
  } catch (error) {
    return reportError(error, given);
  }
}

/**
 * An error that ended a command, as one line on stderr: a KernelError caused by input (status 2
 * for usage, else 1), a file-system error naming its path (1); anything else is a fault of the
 * kernel, with its stack (70).
 */
export function reportError(error: unknown, given: CliIo): number {
  const stderr = (text: string) => given.stderr(withProgram(text, given.program));
  if (isKernelError(error) && !error.internal) {
    stderr(`runtimectl: ${error.toLine()}\n`);
    return error.code === 'RTC_ERR_CLI_USAGE' ? 2 : 1;
  }
  const fs = fsErrorLine(error);
  if (fs !== undefined) {
    stderr(`runtimectl: ${fs}\n`);
    return 1;
  }
  stderr(`runtimectl: internal error (a bug in the kernel; please report it): ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  return 70;
}
