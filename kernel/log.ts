/**
 * The kernel's own structured logs (pino), with redaction that reaches every depth.
 *
 * pino's `redact` option takes paths whose `*` matches one level only, so a token three
 * levels down, or in an array, would get through. Instead every object logged is passed
 * through redact() before pino serializes it: the merged log object (formatters.log), the
 * bindings of the logger and of every child, and string arguments (hooks.logMethod, which
 * also scrubs the message pino would take from a logged Error).
 *
 * Secrets should still go in objects, not in format strings: a string is scrubbed only of
 * what looks like a secret (`Bearer ...`, `sk-...`, `password=...`), a key names one for sure.
 */
import { pino, type DestinationStream, type Level, type Logger } from 'pino';
import { redact, redactRecord, scrubString } from './redact/index.ts';

export interface KernelLoggerOptions {
  /** Logger name, e.g. `kernel` or a persona id. */
  name?: string;
  level?: Level | 'silent';
  /** Append to this file instead of writing to stderr. */
  file?: string;
  /**
   * Write synchronously (default true): a line logged just before a crash is not lost.
   * Pass false for hot paths, and call `logger.flush()` before exit.
   */
  sync?: boolean;
  /** Fields on every line. Redacted like everything else. */
  bindings?: Record<string, unknown>;
}

export function createKernelLogger(options: KernelLoggerOptions = {}): Logger {
  const destination: DestinationStream = pino.destination({
    dest: options.file ?? 2,
    sync: options.sync ?? true,
    mkdir: options.file !== undefined,
    append: true,
  });
  const logger = pino(
    {
      name: options.name,
      level: options.level ?? 'info',
      // No pid or hostname: kernel logs should not carry host identity any more than events do.
      base: options.bindings ? redactRecord(options.bindings) : null,
      formatters: {
        log: (object) => redactRecord(object),
      },
      // formatters.log has already turned a logged Error into plain, redacted data with its
      // real type name; pino's own err serializer would rename that type to "Object".
      serializers: { err: (value: unknown) => value },
      hooks: {
        logMethod(args, method) {
          method.apply(this, scrubArguments(args) as Parameters<typeof method>);
        },
      },
    },
    destination,
  );
  redactChildBindings(logger);
  return logger;
}

/**
 * Strings are scrubbed. A logged Error (first, or as `{err}`) gets an explicit, scrubbed
 * message, because pino would otherwise copy `error.message` into `msg` on its own, past
 * formatters.log.
 */
function scrubArguments(args: unknown[]): unknown[] {
  const out = args.map((arg) => (typeof arg === 'string' ? scrubString(arg) : arg));
  const first = out[0];
  if (typeof out[1] === 'string' || first === null || typeof first !== 'object') return out;
  const error = first instanceof Error ? first : (first as { err?: unknown }).err;
  const message = (error as { message?: unknown } | undefined)?.message;
  if (typeof message === 'string' && (first instanceof Error || (first as { msg?: unknown }).msg === undefined)) {
    out.splice(1, 0, scrubString(message));
  }
  return out;
}

/**
 * pino writes a child's bindings without passing them through formatters.log, so child()
 * redacts them first. Children are created from their parent's prototype chain, so this
 * one override covers grandchildren too.
 */
function redactChildBindings(logger: Logger): void {
  const child = logger.child;
  logger.child = function redactedChild(this: Logger, bindings, childOptions) {
    return child.call(this, redact(bindings) as typeof bindings, childOptions);
  } as typeof logger.child;
}
