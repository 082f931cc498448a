/**
 * Proposed file contents (profile and plugin changes), stored by sha256 under
 * `review/blobs/<hex>` so the log carries a digest, not the file. A blob is written to a
 * temporary name, synced, then renamed into place: a reader never sees half a blob, and
 * storing the same content twice is a no-op.
 */
import { existsSync, mkdirSync, openSync, readFileSync, renameSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { kernelError } from '../errors.ts';
import { syncDirectory, writeAllSyncClose } from '../events/repair.ts';
import { BLOBS_RELATIVE } from './paths.ts';
import { sha256Digest } from './session.ts';

/** `review/blobs/<hex>` for a digest: relative to the persona directory. */
export function blobRelativePath(digest: string): string {
  return `${BLOBS_RELATIVE}/${digest.slice('sha256:'.length)}`;
}

export function storeBlob(personaDir: string, bytes: Buffer): { digest: string; relative: string } {
  const digest = sha256Digest(bytes);
  const relative = blobRelativePath(digest);
  const target = path.join(personaDir, relative);
  if (existsSync(target) && sha256Digest(readFileSync(target)) === digest) return { digest, relative };
  const dir = path.dirname(target);
  mkdirSync(dir, { recursive: true });
  const temporary = path.join(dir, `.tmp-${randomBytes(6).toString('hex')}`);
  const fd = openSync(temporary, 'wx', 0o644);
  writeAllSyncClose(fd, bytes);
  renameSync(temporary, target);
  syncDirectory(dir);
  return { digest, relative };
}

/** The blob's bytes, checked against its digest. */
export function readBlob(personaDir: string, digest: string): Buffer {
  const relative = blobRelativePath(digest);
  let bytes: Buffer;
  try {
    bytes = readFileSync(path.join(personaDir, relative));
  } catch (error) {
    throw kernelError('RTC_ERR_REVIEW_BLOB', `${relative}: the content of a proposed change is missing (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`, {
      details: { blob: relative, digest },
    });
  }
  const actual = sha256Digest(bytes);
  if (actual !== digest) {
    throw kernelError('RTC_ERR_REVIEW_BLOB', `${relative}: the stored content has digest ${actual}, not ${digest}; it was changed after it was proposed`, {
      details: { blob: relative, digest, actual },
    });
  }
  return bytes;
}
