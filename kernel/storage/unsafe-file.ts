/**
 * What the careful file helpers refuse (kernel/storage/safe-read.ts's capped read, and
 * sandboxes/fs-safety/safe-open.ts and no-follow.ts on top of it): one error class the broker
 * turns into Deno's errors and the kernel into one-line refusals.
 */
import type { Stats } from 'node:fs';

/** `link` and `hard-link`: a link where sandboxes/fs-safety/no-follow.ts follows none (its `path` is the part that is a link). */
export type UnsafeFileReason = 'not-regular' | 'too-large' | 'changed' | 'link' | 'hard-link';

/** A file refused by these helpers; `kind` says what it was (`FIFO`, `socket`, `character device`...). */
export class UnsafeFileError extends Error {
  readonly reason: UnsafeFileReason;
  readonly path: string;
  readonly kind: string;
  readonly size: number | undefined;

  constructor(reason: UnsafeFileReason, path: string, kind: string, message: string, size?: number) {
    super(message);
    this.name = 'UnsafeFileError';
    this.reason = reason;
    this.path = path;
    this.kind = kind;
    this.size = size;
  }
}

export function fileKind(s: Stats): string {
  if (s.isFile()) return 'regular file';
  if (s.isDirectory()) return 'directory';
  if (s.isFIFO()) return 'FIFO';
  if (s.isSocket()) return 'socket';
  if (s.isCharacterDevice()) return 'character device';
  if (s.isBlockDevice()) return 'block device';
  if (s.isSymbolicLink()) return 'symbolic link';
  return 'special file';
}

