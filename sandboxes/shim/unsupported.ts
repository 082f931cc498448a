/**
 * APIs outside the sandbox's subset, where Deno itself has no error for them: a one-line
 * `Deno.errors.NotSupported` whose message starts with RTC_ERR_UNSUPPORTED, names the API
 * and points at the README's table, instead of a bare "undefined is not a function".
 */
import { errors } from './deno/errors.ts';

export const SURFACE_TABLE = 'README.md, "What the sandbox supports"';

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
