/**
 * The shape of one CLI subcommand, and the argument parsing every subcommand shares.
 * Flags are parsed with node:util parseArgs in strict mode, so an unknown flag is a
 * one-line usage error naming the flag, never a silent default.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { kernelError } from '../errors.ts';

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  cwd: string;
  env: NodeJS.ProcessEnv;
}

export interface Command {
  /** Words after `runtimectl`, e.g. `['plugins', 'list']`. */
  path: readonly string[];
  summary: string;
  /** Full usage text printed by `--help`. */
  usage: string;
  /** Returns the exit status. Throws KernelError for user errors. */
  run(argv: string[], io: CliIo): Promise<number>;
}

export type Options = NonNullable<ParseArgsConfig['options']>;

/** parseArgs with the kernel's error for unknown or malformed flags. */
export function parseFlags<T extends Options>(argv: string[], options: T, commandName: string, allowPositionals = true) {
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals });
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw kernelError('RTC_ERR_CLI_USAGE', `${reason}; see "runtimectl ${commandName} --help"`);
  }
}

/** Writes a value as the one JSON document a `--json` command prints. */
export function printJson(io: CliIo, value: unknown): void {
  io.stdout(`${JSON.stringify(value, null, 2)}\n`);
}
