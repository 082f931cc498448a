/**
 * Node's error shapes, for the shim's node: modules. A file-system failure is Node's
 * `ENOENT: no such file or directory, open 'x'` with `errno`, `code`, `syscall` and `path`,
 * made from the broker's answer (which carries the OS code, `ENOENT`); a refused permission is
 * left as Deno's own `NotCapable`, exactly as Deno's node:fs throws it. Argument errors carry
 * Node's `ERR_*` codes and messages.
 */
import { errors } from '../../deno/errors.ts';

export const modules = {};

/** libuv's errno and description of an OS error code (Linux numbers, as Node reports them). */
const UV: Record<string, [number, string]> = {
  E2BIG: [-7, 'argument list too long'],
  EACCES: [-13, 'permission denied'],
  EADDRINUSE: [-98, 'address already in use'],
  EAGAIN: [-11, 'resource temporarily unavailable'],
  EBADF: [-9, 'bad file descriptor'],
  EBUSY: [-16, 'resource busy or locked'],
  ECANCELED: [-125, 'operation canceled'],
  ECONNREFUSED: [-111, 'connection refused'],
  ECONNRESET: [-104, 'connection reset by peer'],
  EEXIST: [-17, 'file already exists'],
  EFAULT: [-14, 'bad address in system call argument'],
  EFBIG: [-27, 'file too large'],
  EINTR: [-4, 'interrupted system call'],
  EINVAL: [-22, 'invalid argument'],
  EIO: [-5, 'i/o error'],
  EISDIR: [-21, 'illegal operation on a directory'],
  ELOOP: [-40, 'too many symbolic links encountered'],
  EMFILE: [-24, 'too many open files'],
  EMLINK: [-31, 'too many links'],
  ENAMETOOLONG: [-36, 'name too long'],
  ENFILE: [-23, 'file table overflow'],
  ENODEV: [-19, 'no such device'],
  ENOENT: [-2, 'no such file or directory'],
  ENOMEM: [-12, 'not enough memory'],
  ENOSPC: [-28, 'no space left on device'],
  ENOSYS: [-38, 'function not implemented'],
  ENOTDIR: [-20, 'not a directory'],
  ENOTEMPTY: [-39, 'directory not empty'],
  ENOTSUP: [-95, 'operation not supported on socket'],
  ENXIO: [-6, 'no such device or address'],
  EPERM: [-1, 'operation not permitted'],
  EPIPE: [-32, 'broken pipe'],
  EROFS: [-30, 'read-only file system'],
  ESPIPE: [-29, 'invalid seek'],
  ESRCH: [-3, 'no such process'],
  ETIMEDOUT: [-110, 'connection timed out'],
  ETXTBSY: [-26, 'text file is busy'],
  EXDEV: [-18, 'cross-device link not permitted'],
};

/** Deno's error classes that stand for one OS code, for an answer that did not carry the code. */
const CLASS_CODES: Record<string, string> = {
  NotFound: 'ENOENT',
  AlreadyExists: 'EEXIST',
  PermissionDenied: 'EACCES',
  IsADirectory: 'EISDIR',
  NotADirectory: 'ENOTDIR',
  BadResource: 'EBADF',
  FilesystemLoop: 'ELOOP',
  Busy: 'EBUSY',
  Interrupted: 'EINTR',
  BrokenPipe: 'EPIPE',
  TimedOut: 'ETIMEDOUT',
  ConnectionRefused: 'ECONNREFUSED',
};

export function uvErrno(code: string): number {
  return UV[code]?.[0] ?? -4094;
}

export function uvDescription(code: string): string {
  return UV[code]?.[1] ?? 'unknown error';
}

export interface UvContext {
  code: string;
  syscall: string;
  path?: string;
  dest?: string;
}

/** Node's system error: `ENOENT: no such file or directory, open 'x'` with its fields. */
export function uvException(ctx: UvContext): Error {
  let message = `${ctx.code}: ${uvDescription(ctx.code)}, ${ctx.syscall}`;
  if (ctx.path !== undefined) message += ` '${ctx.path}'`;
  if (ctx.dest !== undefined) message += ` -> '${ctx.dest}'`;
  const error = new Error(message) as Error & Record<string, unknown>;
  error.errno = uvErrno(ctx.code);
  error.code = ctx.code;
  error.syscall = ctx.syscall;
  if (ctx.path !== undefined) error.path = ctx.path;
  if (ctx.dest !== undefined) error.dest = ctx.dest;
  return error;
}

/** The OS code of an error the Deno layer threw, or undefined when it is not an OS error. */
export function osCodeOf(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && /^E[A-Z0-9]+$/.test(code)) return code;
  return CLASS_CODES[error.name];
}

/**
 * A Deno-layer failure as Node reports it: an OS error becomes Node's system error for this
 * syscall and path; a refused permission (`NotCapable`) and everything else pass unchanged.
 */
export function toNodeError(error: unknown, syscall: string, path?: string, dest?: string): unknown {
  if (error instanceof (errors.NotCapable as unknown as typeof Error)) return error;
  const code = osCodeOf(error);
  if (code === undefined) return error;
  return uvException({ code, syscall, ...(path === undefined ? {} : { path }), ...(dest === undefined ? {} : { dest }) });
}

/** Runs `fn`, rethrowing a Deno-layer failure as Node's error for `syscall`. */
export function withNodeErrors<T>(syscall: string, path: string | undefined, fn: () => T, dest?: string): T {
  try {
    return fn();
  } catch (error) {
    throw toNodeError(error, syscall, path, dest);
  }
}

// ---- Node's ERR_* errors ---------------------------------------------------------------

type ErrorClass = new (message?: string) => Error;

/**
 * An error with Node's `code`, shaped as Deno 2.9's node: errors are: own enumerable `code`,
 * `name` and a `toString` giving `name [code]: message`; the stack's first line stays
 * `name: message`.
 */
export function nodeError(Base: ErrorClass, code: string, message: string): Error {
  const error = new Base(message) as Error & { code: string };
  const own = (key: string, value: unknown) => Object.defineProperty(error, key, { value, writable: true, configurable: true, enumerable: true });
  own('code', code);
  own('name', error.name);
  own(
    'toString',
    // an anonymous function, as Deno's
    [function (this: { name?: unknown; code?: unknown; message?: unknown }) {
      return `${String(this.name)} [${String(this.code)}]: ${String(this.message)}`;
    }][0],
  );
  return error;
}

/** How Node's messages show a received value: `Received type number (1)`, `Received an instance of Object`. */
export function describeReceived(value: unknown): string {
  if (value === null || value === undefined) return ` Received ${String(value)}`;
  if (typeof value === 'function') return ` Received function ${(value as { name?: string }).name || '<anonymous>'}`;
  if (typeof value === 'object') {
    const ctor = (value as { constructor?: { name?: string } }).constructor;
    if (ctor?.name) return ` Received an instance of ${ctor.name}`;
    return ' Received [object Object]';
  }
  let shown = typeof value === 'string' ? `'${value.length > 28 ? `${value.slice(0, 25)}...` : value}'` : String(value);
  if (typeof value === 'bigint') shown += 'n';
  return ` Received type ${typeof value} (${shown})`;
}

export function invalidArgType(name: string, expected: string, actual: unknown): Error {
  const what = name.includes('.') ? 'property' : 'argument';
  return nodeError(TypeError, 'ERR_INVALID_ARG_TYPE', `The "${name}" ${what} must be ${expected}.${describeReceived(actual)}`);
}

export function invalidArgValue(name: string, value: unknown, reason = 'is invalid'): Error {
  let shown: string;
  try {
    shown = typeof value === 'string' ? `'${value}'` : JSON.stringify(value) ?? String(value);
  } catch {
    shown = String(value);
  }
  const what = name.includes('.') ? 'property' : 'argument';
  return nodeError(TypeError, 'ERR_INVALID_ARG_VALUE', `The ${what} '${name}' ${reason}. Received ${shown}`);
}

export function outOfRange(name: string, range: string, value: unknown): Error {
  return nodeError(RangeError, 'ERR_OUT_OF_RANGE', `The value of "${name}" is out of range. It must be ${range}. Received ${typeof value === 'number' ? String(value).replace(/\B(?=(\d{3})+(?!\d))/g, '_') : String(value)}`);
}

export function missingArgs(...names: string[]): Error {
  const list = names.map((n) => `"${n}"`);
  const joined = list.length <= 2 ? list.join(' and ') : `${list.slice(0, -1).join(', ')}, and ${list.at(-1)}`;
  return nodeError(TypeError, 'ERR_MISSING_ARGS', `The ${joined} argument${names.length > 1 ? 's' : ''} must be specified`);
}

export function validateString(value: unknown, name: string): asserts value is string {
  if (typeof value !== 'string') throw invalidArgType(name, 'of type string', value);
}

export function validateFunction(value: unknown, name: string): asserts value is (...args: unknown[]) => unknown {
  if (typeof value !== 'function') throw invalidArgType(name, 'of type function', value);
}

export function validateNumber(value: unknown, name: string): asserts value is number {
  if (typeof value !== 'number') throw invalidArgType(name, 'of type number', value);
}

export function validateInteger(value: unknown, name: string, min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER): asserts value is number {
  if (typeof value !== 'number') throw invalidArgType(name, 'of type number', value);
  if (!Number.isInteger(value)) throw outOfRange(name, 'an integer', value);
  if (value < min || value > max) throw outOfRange(name, `>= ${min} && <= ${max}`, value);
}

export function validateObject(value: unknown, name: string): asserts value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw invalidArgType(name, 'of type object', value);
}

export function notImplemented(what: string): Error {
  return nodeError(Error, 'ERR_NOT_IMPLEMENTED', `Not implemented: ${what}`);
}
