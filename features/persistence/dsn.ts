/**
 * Which Postgres database a command opens for personas kept in `persistence.postgres`, said the
 * same way by every command that opens a persona's state:
 *
 *   1. `--dsn DSN` on the command line;
 *   2. for `run` (and what opens a persona from its profile: tools, mcp serve), the profile's
 *      `persistence: {plugin: persistence.postgres, dsn_env: VAR}` (or `dsn:` without a password);
 *   3. `RUNTIMECTL_POSTGRES_DSN` in the environment.
 *
 * Commands that read a persona's state without its profile (status, logs, verify, replay,
 * proposals, ...) take `--dsn` through `withDsnFlag` (cli/commands.ts wraps them): the value,
 * or the variable, is this command's context (an AsyncLocalStorage scope, so two commands run
 * in one process never see each other's), and `openBackend` finds it there. A persona whose
 * database is named nowhere is refused with one line that names only the ways the running
 * command really has.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { kernelError, type KernelError } from '../../kernel/errors.ts';
import type { CliIo, Command } from '../command/command.ts';

export const DSN_ENV = 'RUNTIMECTL_POSTGRES_DSN';

/** The database a running command names, and the ways it has to name one. */
export interface DsnContext {
  /** the command's --dsn, else its environment's RUNTIMECTL_POSTGRES_DSN */
  dsn?: string;
  /** the command takes --dsn */
  flag: boolean;
  /** the personas it opens come with their profiles (run): a profile may name its database */
  profile?: boolean;
}

const scope = new AsyncLocalStorage<DsnContext>();

/** Runs `fn` with `context` as the database of every backend it opens (unless told another). */
export function withDsnContext<T>(context: DsnContext, fn: () => T): T {
  return scope.run(context, fn);
}

/** The running command's database, if it names one. */
export function contextDsn(): string | undefined {
  return scope.getStore()?.dsn;
}

/** A non-empty value, or undefined (an empty variable is unset). */
export function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

/** The refusal for a persona kept in Postgres when no database is named, naming the ways this command has. */
export function missingDsnError(personaId: string): KernelError {
  const context = scope.getStore();
  const ways = [
    ...(context?.flag ? ['pass --dsn DSN'] : []),
    `set ${DSN_ENV}`,
    ...(context?.profile ? ['or name it in the profile (persistence: {plugin: persistence.postgres, dsn_env: VAR})'] : []),
  ];
  const said = ways.length === 1 ? ways[0]! : ways.length === 2 ? `${ways[0]} or ${ways[1]!.replace(/^or /, '')}` : `${ways.slice(0, -1).join(', ')}, ${ways.at(-1)}`;
  return kernelError('RTC_ERR_PERSISTENCE_CONFIG', `persona ${personaId} keeps its state in Postgres, but no database is named: ${said}`, { details: { persona: personaId } });
}

export const DSN_USAGE = `Database (personas kept in persistence.postgres):
  --dsn DSN             the Postgres database (default: $${DSN_ENV})`;

/**
 * Takes `--dsn DSN` (or `--dsn=DSN`) out of a command line, up to a `--`; undefined when it is
 * not there. Given twice, or without a value, is a usage error.
 */
export function takeDsnFlag(argv: readonly string[], command: string): { argv: string[]; dsn?: string } {
  const rest: string[] = [];
  let dsn: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      rest.push(...argv.slice(i));
      break;
    }
    let value: string | undefined;
    if (arg === '--dsn') {
      value = argv[i + 1];
      if (value === undefined || value.startsWith('--')) throw kernelError('RTC_ERR_CLI_USAGE', `--dsn needs a value (a postgres:// DSN); see "runtimectl ${command} --help"`);
      i += 1;
    } else if (arg.startsWith('--dsn=')) value = arg.slice('--dsn='.length);
    else {
      rest.push(arg);
      continue;
    }
    if (nonEmpty(value) === undefined) throw kernelError('RTC_ERR_CLI_USAGE', `--dsn needs a value (a postgres:// DSN); see "runtimectl ${command} --help"`);
    if (dsn !== undefined) throw kernelError('RTC_ERR_CLI_USAGE', `--dsn is given twice; see "runtimectl ${command} --help"`);
    dsn = value;
  }
  return { argv: rest, ...(dsn !== undefined ? { dsn } : {}) };
}

/**
 * `command` with `--dsn DSN`: taken off its command line and made the database of every
 * backend it opens (else the environment's RUNTIMECTL_POSTGRES_DSN, io.env). A command that
 * parses --dsn itself (`parsesItself`: status, activity, persistence) keeps it in its argv and
 * its usage; it gets the same context.
 */
export function withDsnFlag(command: Command, options: { parsesItself?: boolean } = {}): Command {
  const name = command.path.join(' ');
  return {
    ...command,
    usage: options.parsesItself ? command.usage : `${command.usage.trimEnd()}\n\n${DSN_USAGE}\n`,
    run(argv: string[], io: CliIo) {
      const taken = takeDsnFlag(argv, name);
      const dsn = taken.dsn ?? nonEmpty(io.env[DSN_ENV]);
      return withDsnContext({ ...(dsn !== undefined ? { dsn } : {}), flag: true }, () => command.run(options.parsesItself ? argv : taken.argv, io));
    },
  };
}
