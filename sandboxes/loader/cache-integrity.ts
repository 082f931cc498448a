/**
 * What makes the build cache trustworthy: a secret key of this installation's, kept in the
 * cache folder as `integrity.key` (32 random bytes, mode 0600, made on first use), with
 * which the kernel seals what it writes there (HMAC-SHA256) and checks what it loads. A
 * file planted in the cache (a bundle, an index record, a V8 code cache) carries no valid
 * seal, because nobody but the kernel can compute one: it is ignored and rebuilt, never run.
 * A digest beside the data would prove nothing (whoever writes the data writes the digest).
 *
 * What is assumed (docs/threat-model.md): only the kernel's OS user can read the key; no
 * sandboxed op reaches it (the broker refuses the key by path and by inode, and writes under
 * the cache, whatever the grant); a subprocess a script is allowed to run is that user.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { closeSync, linkSync, mkdirSync, openSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import path from 'node:path';

const KEY_FILE = 'integrity.key';
const KEY_BYTES = 32;

export interface CacheKeyFile {
  path: string;
  dev: number;
  ino: number;
}

const keys = new Map<string, { key: Buffer; file: CacheKeyFile }>();

/** The key at `file` if it is one this user alone can have written and read. */
function trusted(file: string): { key: Buffer; file: CacheKeyFile } | undefined {
  const st = statSync(file, { throwIfNoEntry: false });
  if (!st || !st.isFile() || (st.mode & 0o077) !== 0 || (typeof process.getuid === 'function' && st.uid !== process.getuid())) return undefined;
  const key = readFileSync(file);
  return key.length === KEY_BYTES ? { key, file: { path: file, dev: st.dev, ino: st.ino } } : undefined;
}

function makeKey(file: string): void {
  const tmp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}`;
  const fd = openSync(tmp, 'wx', 0o600);
  try {
    writeSync(fd, randomBytes(KEY_BYTES));
  } finally {
    closeSync(fd);
  }
  try {
    // A link fails if another kernel made its key first: then that key is the one.
    linkSync(tmp, file);
  } catch {
    // What is there is not a trusted key (else we would not be here): replace it.
    if (!trusted(file)) renameSync(tmp, file);
  } finally {
    rmSync(tmp, { force: true });
  }
}

function keyOf(cacheDir: string): { key: Buffer; file: CacheKeyFile } {
  const known = keys.get(cacheDir);
  if (known) return known;
  mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
  const file = path.join(realpathSync(cacheDir), KEY_FILE);
  let found = trusted(file);
  if (!found) {
    makeKey(file);
    found = trusted(file);
    if (!found) throw new Error(`the build cache key ${file} could not be made private to this user`);
  }
  keys.set(cacheDir, found);
  return found;
}

/** The seal of `parts` under the cache's key, for `purpose` (so one kind of seal never stands for another). */
export function seal(cacheDir: string, purpose: string, ...parts: (string | Uint8Array)[]): Buffer {
  const mac = createHmac('sha256', keyOf(cacheDir).key);
  mac.update(purpose);
  const length = Buffer.alloc(8);
  for (const part of parts) {
    const bytes = typeof part === 'string' ? Buffer.from(part, 'utf8') : part;
    length.writeBigUInt64BE(BigInt(bytes.length));
    mac.update(length);
    mac.update(bytes);
  }
  return mac.digest();
}

export const SEAL_BYTES = 32;

export function sealMatches(expected: Buffer, given: Uint8Array): boolean {
  return given.length === expected.length && timingSafeEqual(expected, given);
}

/** The key file, as the broker refuses it: by path and by inode. */
export function cacheKeyFile(cacheDir: string): CacheKeyFile {
  return keyOf(cacheDir).file;
}
