/**
 * `Deno.errors`: the classes a script can `instanceof`-check, rebuilt from the host's
 * answer. Names and messages are Deno's, so `e.name` and `e.message` match `deno run`.
 */
const CLASS_NAMES = [
  'NotCapable', 'NotFound', 'PermissionDenied', 'ConnectionRefused', 'ConnectionReset',
  'ConnectionAborted', 'NotConnected', 'AddrInUse', 'AddrNotAvailable', 'BrokenPipe',
  'AlreadyExists', 'InvalidData', 'TimedOut', 'Interrupted', 'WriteZero', 'WouldBlock',
  'UnexpectedEof', 'BadResource', 'Http', 'Busy', 'NotSupported', 'FilesystemLoop',
  'IsADirectory', 'NetworkUnreachable', 'NotADirectory',
] as const;

function defineErrorClass(name: string): ErrorConstructor {
  const cls = class extends Error {
    constructor(message?: string, options?: ErrorOptions) {
      super(message, options);
    }
  };
  Object.defineProperty(cls, 'name', { value: name });
  Object.defineProperty(cls.prototype, 'name', { value: name, writable: true, configurable: true, enumerable: false });
  return cls as unknown as ErrorConstructor;
}

export const errors: Record<string, ErrorConstructor> = Object.create(null);
for (const name of CLASS_NAMES) errors[name] = defineErrorClass(name);

/** The error a host answer names: a Deno class, or a standard one (TypeError, RangeError). */
export function makeError(className: string, message: string, code?: string): Error {
  const error = makeBareError(className, message);
  // The kernel's own refusal of an API outside the subset carries its code, as errors made in the shim do.
  if (!code && message.startsWith('RTC_ERR_UNSUPPORTED:')) code = 'RTC_ERR_UNSUPPORTED';
  // Deno sets the OS error code (`ENOENT`, ...) on file-system errors.
  if (code) Object.defineProperty(error, 'code', { value: code, writable: true, configurable: true, enumerable: true });
  return error;
}

function makeBareError(className: string, message: string): Error {
  // `DOMException:<name>`: a web API's error class (WebCrypto's OperationError, ...)
  if (className.startsWith('DOMException:')) {
    const DOMExceptionClass = (globalThis as unknown as { DOMException: new (m: string, n: string) => Error }).DOMException;
    return new DOMExceptionClass(message, className.slice('DOMException:'.length));
  }
  const DenoClass = errors[className];
  if (DenoClass) return new DenoClass(message);
  switch (className) {
    case 'TypeError':
      return new TypeError(message);
    case 'RangeError':
      return new RangeError(message);
    case 'SyntaxError':
      return new SyntaxError(message);
    case 'URIError':
      return new URIError(message);
    default:
      return new Error(message);
  }
}
