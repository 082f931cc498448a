/**
 * The shape of one CLI subcommand, and the argument parsing every subcommand shares.
 * Flags are parsed with node:util parseArgs in strict mode, so an unknown flag is a
 * one-line usage error naming the flag, never a silent default.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { kernelError } from '../../kernel/errors.ts';
import { didYouMean } from '../profiles/suggest.ts';
import { withProgram } from './program.ts';

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /**
   * How the user runs runtimectl (`runtimectl`, `npx runtimectl`, `bin/runtimectl.js`;
   * features/command/program.ts): what hints print in its place. Absent: `runtimectl`.
   */
  program?: string;
}

/** A line for the user with every `runtimectl <verb>` hint in it written the way the user runs runtimectl. */
export function hint(io: Pick<CliIo, 'program'>, text: string): string {
  return withProgram(text, io.program);
}

export interface Command {
  /** Words after `runtimectl`, e.g. `['plugins', 'list']`. */
  path: readonly string[];
  summary: string;
  /** Full usage text printed by `--help`. */
  usage: string;
  /** Returns the exit status. Throws KernelError for user errors. */
  run(argv: string[], io: CliIo): Promise<number>;
  /**
   * A one-word command that is also a group (`archive` beside `archive restore`) and takes
   * flags of its own: `archive --persona ID` runs it instead of printing the group's help.
   */
  takesFlags?: boolean;
  /**
   * The command's stderr carries a program's own bytes (a script's stderr under `sandbox
   * run`): written as they are. Otherwise stderr is the CLI's diagnostics, and every
   * `runtimectl <verb>` hint in it is written the way the user runs runtimectl.
   */
  rawStderr?: boolean;
}

export type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * What went wrong with a flag, in the kernel's words (not Node's parser text), with "did you
 * mean" when one known flag is close: `--cycle` for `--cycles`.
 */
function flagProblem(error: unknown, argv: readonly string[], options: Options): string {
  const code = (error as { code?: string }).code;
  const message = error instanceof Error ? error.message : String(error);
  const quoted = /'([^']+)'/.exec(message)?.[1] ?? '';
  const flag = quoted.split(' ')[0] ?? quoted;
  const known = Object.keys(options).map((name) => `--${name}`);
  switch (code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown option ${flag}${didYouMean(flag.split('=')[0]!, known)}`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE': {
      const name = flag.replace(/^-+/, '');
      const option = options[name] ?? Object.values(options).find((o) => o.short === name);
      if (option?.type === 'boolean') return `${flag} takes no value (it is a switch)`;
      // Node's parser reads `--every -1` as a flag with no value, then a flag `-1`
      const next = argv[argv.indexOf(flag) + 1];
      if (/ambiguous/.test(message) && next?.startsWith('-')) return `${flag} ${next}: a value that starts with "-" is written ${flag}=${next}`;
      return `${flag} needs a value`;
    }
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `unexpected argument "${quoted || argv.find((a) => !a.startsWith('-'))}" (this command takes options only)`;
    default:
      return message.split('\n')[0] ?? message;
  }
}

/** parseArgs with the kernel's error for unknown or malformed flags. */
export function parseFlags<T extends Options>(argv: string[], options: T, commandName: string, allowPositionals = true) {
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals });
  } catch (error) {
    throw kernelError('RTC_ERR_CLI_USAGE', `${flagProblem(error, argv, options)}; see "runtimectl ${commandName} --help"`);
  }
}

/** Writes a value as the one JSON document a `--json` command prints. */
export function printJson(io: CliIo, value: unknown): void {
  io.stdout(`${JSON.stringify(value, null, 2)}\n`);
}
