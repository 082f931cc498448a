/**
 * An error the broker sends back into the isolate, where the shim rethrows it as the class
 * Deno would throw (`Deno.errors.NotCapable`, `Deno.errors.NotFound`, `TypeError`, ...).
 * Host-side code throws these for anything a script may legitimately catch; everything
 * else is a KernelError and ends the call.
 */
import { isKernelError } from '../errors.ts';
export type DenoErrorClass =
  | 'NotCapable'
  | 'NotFound'
  | 'PermissionDenied'
  | 'AlreadyExists'
  | 'IsADirectory'
  | 'NotADirectory'
  | 'InvalidData'
  | 'TimedOut'
  | 'Interrupted'
  | 'BadResource'
  | 'Busy'
  | 'ConnectionRefused'
  | 'NotSupported'
  | 'FilesystemLoop'
  | 'WouldBlock'
  | 'TypeError'
  | 'RangeError'
  | 'Error';

export class DenoOpError extends Error {
  readonly denoClass: DenoErrorClass;
  /** Node's errno code when the error came from the OS, e.g. `ENOENT`. */
  readonly osCode: string | undefined;

  constructor(denoClass: DenoErrorClass, message: string, osCode?: string) {
    super(message);
    // A NotCapable must say what it refused, so the broker can audit it: see refusal.ts.
    if (denoClass === 'NotCapable' && new.target === DenoOpError) throw new TypeError('a NotCapable is raised as a Refusal (kernel/broker/refusal.ts)');
    this.name = denoClass;
    this.denoClass = denoClass;
    this.osCode = osCode;
  }
}

/**
 * A host failure behind an op (a binding's implementation, a storage backend) as the Error the
 * plugin sees: a DenoOpError as it is; a kernel error as an `Error` whose code is data (the
 * error's `code`, as Deno's OS codes are), never inside the message; anything else by its
 * message, with its own string code if it has one. One rule for the bindings' `forward`
 * (kernel/broker/bindings.ts, which the persona's and a gate run's binding ops use) and the storage bindings (features/persistence/storage/binding-kit.ts).
 */
export function asDenoOpError(error: unknown): DenoOpError {
  if (error instanceof DenoOpError) return error;
  if (isKernelError(error)) return new DenoOpError('Error', error.message, error.code);
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return new DenoOpError('Error', error instanceof Error ? error.message : String(error), typeof code === 'string' ? code : undefined);
}

const ERRNO_TO_DENO: Record<string, [DenoErrorClass, number]> = {
  ENOENT: ['NotFound', 2],
  EACCES: ['PermissionDenied', 13],
  EPERM: ['PermissionDenied', 1],
  EEXIST: ['AlreadyExists', 17],
  EISDIR: ['IsADirectory', 21],
  ENOTDIR: ['NotADirectory', 20],
  // Deno has no DirectoryNotEmpty class: a plain Error carrying code ENOTEMPTY.
  ENOTEMPTY: ['Error', 39],
  ELOOP: ['FilesystemLoop', 40],
  EBUSY: ['Busy', 16],
  ECONNREFUSED: ['ConnectionRefused', 111],
  // Deno raises EINVAL (readLink of a file, a seek before the start) as a TypeError.
  EINVAL: ['TypeError', 22],
  EAGAIN: ['WouldBlock', 11],
  EBADF: ['BadResource', 9],
  EXDEV: ['Error', 18],
  ENOSPC: ['Error', 28],
  EROFS: ['Error', 30],
  EMLINK: ['Error', 31],
};

const ERRNO_TEXT: Record<string, string> = {
  ENOENT: 'No such file or directory',
  EACCES: 'Permission denied',
  EPERM: 'Operation not permitted',
  EEXIST: 'File exists',
  EISDIR: 'Is a directory',
  ENOTDIR: 'Not a directory',
  ENOTEMPTY: 'Directory not empty',
  ELOOP: 'Too many levels of symbolic links',
  EBUSY: 'Device or resource busy',
  ECONNREFUSED: 'Connection refused',
  EINVAL: 'Invalid argument',
  EAGAIN: 'Resource temporarily unavailable',
  EBADF: 'Bad file descriptor',
  EXDEV: 'Invalid cross-device link',
  ENOSPC: 'No space left on device',
  EROFS: 'Read-only file system',
  EMLINK: 'Too many links',
};

/**
 * Turns a Node fs error into the error Deno raises for the same OS failure, with Deno's
 * message shape: `No such file or directory (os error 2): readfile '/x'`.
 */
export function fromNodeError(error: unknown, syscall: string, path: string): DenoOpError {
  if (error instanceof DenoOpError) return error;
  const code = (error as NodeJS.ErrnoException | undefined)?.code ?? 'EIO';
  const mapped = ERRNO_TO_DENO[code];
  const text = ERRNO_TEXT[code] ?? (error instanceof Error ? error.message : String(error));
  const errno = mapped?.[1] ?? (error as NodeJS.ErrnoException | undefined)?.errno ?? 5;
  // Deno (2.9) names the path as the script wrote it, ENOTDIR included.
  const suffix = `: ${syscall} '${path}'`;
  return new DenoOpError(mapped?.[0] ?? 'Error', `${text} (os error ${Math.abs(errno)})${suffix}`, code);
}
