/**
 * APIs outside the sandbox's subset, where Deno itself has no error for them: a one-line
 * `Deno.errors.NotSupported` whose message starts with RTC_ERR_UNSUPPORTED, names the API
 * and points at docs/sandbox.md's table, instead of a bare "undefined is not a function".
 *
 * An API Deno gates behind a permission (`Deno.connect` is `net`, `Deno.dlopen` is `ffi`,
 * `Deno.kill` is `run`) is still an attempt of that permission when the sandbox does not
 * implement it: its stub (`gatedFunction`) reports what it attempted to the broker, which
 * audits it and answers as Deno answers without the grant (NotCapable), else NotSupported
 * (kernel/broker/attempts.ts). Nothing a script tries of that kind escapes the audit.
 */
import { errors } from './deno/errors.ts';
import { callSync } from './host.ts';

export const SURFACE_TABLE = 'docs/sandbox.md, "What the sandbox supports"';

export function unsupportedError(api: string, hint = ''): Error {
  const error = new errors.NotSupported!(`RTC_ERR_UNSUPPORTED: ${api} is not supported in the sandbox${hint ? ` (${hint})` : ''}; see ${SURFACE_TABLE}`);
  Object.defineProperty(error, 'code', { value: 'RTC_ERR_UNSUPPORTED', writable: true, configurable: true, enumerable: true });
  return error;
}

/** A function (or constructor) that throws the unsupported error when called. */
export function unsupportedFunction(api: string, hint = ''): (...args: unknown[]) => never {
  const stub = function (): never {
    throw unsupportedError(api, hint);
  };
  Object.defineProperty(stub, 'name', { value: api.split('.').pop()! });
  return stub;
}

/** Defines stubs on `target` for each name it lacks (`owner` names them in the message). */
export function defineUnsupported(target: object, owner: string, names: readonly string[], hint = ''): void {
  for (const name of names) {
    if (Object.prototype.hasOwnProperty.call(target, name)) continue;
    Object.defineProperty(target, name, { value: unsupportedFunction(owner ? `${owner}.${name}` : name, hint), writable: true, configurable: true, enumerable: owner === 'Deno' });
  }
}

/** What a gated API attempts: a permission kind and, when the arguments say, its value. */
export interface ShimAttempt {
  kind: 'read' | 'write' | 'net' | 'env' | 'run' | 'sys' | 'ffi' | 'import';
  value?: string;
}

/**
 * Reports a call the shim answers itself before the broker sees it (a piped stdin
 * `output()` cannot take, a request the descriptor check refuses): the op it would have been
 * and its arguments, so the broker audits what it attempted (`attempt.unanswered`).
 */
export function reportUnanswered(op: string, args: Record<string, unknown>): void {
  try {
    callSync('attempt.unanswered', { op, args, why: 'before-check' });
  } catch {
    // The report needs no answer; an unbound host (the shim's own tests) has no audit.
  }
}

/** Throws what the broker answers for an attempt of a gated API it does not implement (NotCapable, else NotSupported). */
function refuseGated(api: string, kind: ShimAttempt['kind'], read: () => ShimAttempt[], hint: string): never {
  const attempts: ShimAttempt[] = [];
  try {
    // A hostile argument (a getter that throws, a toString that loops to the limit) leaves the
    // whole kind; an index loop, so a script that poisons Array.prototype cannot empty the list.
    const read_ = read();
    for (let i = 0; i < read_.length; i++) {
      const a = read_[i]!;
      attempts[attempts.length] = a.value === undefined ? { kind: a.kind } : { kind: a.kind, value: String(a.value) };
    }
  } catch {
    attempts.length = 0;
  }
  // `kind` goes on its own: whatever the list became, the broker audits at least the whole kind.
  callSync('attempt.unsupported', { api, kind, attempts, ...(hint ? { hint } : {}) });
  throw unsupportedError(api, hint);
}

/**
 * A stub for an API Deno gates behind `kind` (`read` reads what it attempts from the call's
 * arguments): its call reaches the broker as that attempt. `async` APIs answer with a
 * rejected promise, as Deno's do.
 */
export function gatedFunction(api: string, kind: ShimAttempt['kind'], read: (...args: unknown[]) => ShimAttempt[], options: { async?: boolean; hint?: string } = {}): (...args: unknown[]) => never {
  const hint = options.hint ?? '';
  const stub = options.async
    ? function (...args: unknown[]): never {
        try {
          refuseGated(api, kind, () => read(...args), hint);
        } catch (error) {
          return Promise.reject(error) as never;
        }
      }
    : function (...args: unknown[]): never {
        refuseGated(api, kind, () => read(...args), hint);
      };
  Object.defineProperty(stub, 'name', { value: api.split('.').pop()! });
  return stub;
}
