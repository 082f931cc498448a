/**
 * A content-addressed folder: bytes stored under their sha256, so a record can carry a
 * digest instead of the bytes. A blob is written to a temporary name, synced, then renamed
 * into place: a reader never sees half a blob, and storing the same content twice is a
 * no-op. Reading checks the digest, so a changed or truncated blob is caught, not used.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, openSync, readFileSync, renameSync, statSync } from 'node:fs';
import path from 'node:path';
import { kernelError, type ErrorCode } from '../../kernel/errors.ts';
import { syncDirectory, writeAllSyncClose } from '../../kernel/storage/durable-files.ts';
import { readFileCapped } from '../../kernel/storage/safe-read.ts';
import type { ContentStore } from '../../kernel/contracts/trace-storage.ts';

/** The largest blob read back (a proposal's content, a trace text): far above any real one. */
export const BLOB_CAP = 256 * 1024 * 1024;

export function sha256Digest(bytes: Buffer | string): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

export type { ContentStore };

/**
 * `dir` holds the blobs; `base` is what `relative` paths and messages are relative to (the
 * persona folder); `code` and `what` name the error a missing blob raises.
 */
export function contentStore(dir: string, options: { base: string; code: ErrorCode; what: string }): ContentStore {
  const fileOf = (digest: string) => path.join(dir, digest.slice('sha256:'.length));
  const relativeOf = (digest: string) => path.relative(options.base, fileOf(digest)).split(path.sep).join('/');
  return {
    dir,
    put(bytes) {
      const digest = sha256Digest(bytes);
      const target = fileOf(digest);
      if (existsSync(target) && sha256Digest(readFileSync(target)) === digest) return { digest, relative: relativeOf(digest) };
      mkdirSync(dir, { recursive: true });
      const temporary = path.join(dir, `.tmp-${randomBytes(6).toString('hex')}`);
      writeAllSyncClose(openSync(temporary, 'wx', 0o644), typeof bytes === 'string' ? Buffer.from(bytes) : bytes);
      renameSync(temporary, target);
      syncDirectory(dir);
      return { digest, relative: relativeOf(digest) };
    },
    get(digest) {
      if (!/^sha256:[0-9a-f]{64}$/.test(digest)) {
        throw kernelError(options.code, `${options.what}: "${digest}" is not a sha256 digest`, { details: { digest } });
      }
      const relative = relativeOf(digest);
      let bytes: Buffer | undefined;
      try {
        // Capped, regular files only: a planted FIFO or device is refused, never waited on.
        bytes = readFileCapped(fileOf(digest), { maxBytes: BLOB_CAP, shown: relative });
      } catch (error) {
        throw kernelError(options.code, `${relative}: ${options.what} is unreadable (${(error as Error).message})`, { details: { blob: relative, digest } });
      }
      if (bytes === undefined) throw kernelError(options.code, `${relative}: ${options.what} is missing (ENOENT)`, { details: { blob: relative, digest } });
      const actual = sha256Digest(bytes);
      if (actual !== digest) {
        throw kernelError(options.code, `${relative}: ${options.what} has digest ${actual}, not ${digest}; it was changed after it was stored`, { details: { blob: relative, digest, actual } });
      }
      return bytes;
    },
    has(digest) {
      try {
        return statSync(fileOf(digest)).isFile();
      } catch {
        return false;
      }
    },
  };
}
