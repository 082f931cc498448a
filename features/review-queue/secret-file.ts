/**
 * Secret files the kernel writes (an operator's private key) and reads back.
 *
 * A secret is never readable by anyone else, not even for a moment: it is created with its
 * final mode (0600, which the umask can only narrow) in a folder made 0700, written to a temp
 * name opened O_EXCL|O_NOFOLLOW (so no planted file or link is written through), synced, and
 * linked to its name, which fails when the name exists (so an existing secret is never
 * replaced, and two writers cannot both win). Writing first and narrowing afterwards (write,
 * then chmod) leaves a window in which the secret is world-readable; this never does.
 *
 * A folder others may write to is refused: whoever can write there can swap the secret for
 * their own. On read, a secret must be a regular file (not a link), owned by this user, with
 * no group or other permission bits.
 */
import { randomBytes } from 'node:crypto';
import { constants, linkSync, lstatSync, mkdirSync, openSync, unlinkSync, type Stats } from 'node:fs';
import path from 'node:path';
import { kernelError, type ErrorCode } from '../../kernel/errors.ts';
import { syncDirectory, writeAllSyncClose } from '../../kernel/storage/durable-files.ts';

function modeOf(st: Stats): string {
  return (st.mode & 0o777).toString(8).padStart(3, '0');
}

function ownedByMe(st: Stats): boolean {
  const uid = process.getuid?.();
  return uid === undefined || st.uid === uid;
}

/** The folder a secret lives in: created 0700 when missing; refused when a link, not a folder, or writable by others. */
export function secretFolder(dir: string, code: ErrorCode): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = lstatSync(dir);
  if (st.isSymbolicLink() || !st.isDirectory()) throw kernelError(code, `${dir}: is not a folder (a link or a file stands there); a secret is kept only in a real folder`, { details: { file: dir } });
  if (!ownedByMe(st)) throw kernelError(code, `${dir}: belongs to uid ${st.uid}, not this user; a secret is kept only in a folder of your own`, { details: { file: dir } });
  if ((st.mode & 0o022) !== 0) {
    throw kernelError(code, `${dir}: others may write in this folder (mode ${modeOf(st)}), so they could replace a secret kept there; run "chmod go-w ${dir}"`, { details: { file: dir } });
  }
}

/**
 * Creates `file` holding `data`, mode 0600, in one step (see above). Refused with `code` when
 * the file exists (nothing is replaced) or its folder is not one only this user can change.
 */
export function createSecretFile(file: string, data: string | Buffer, code: ErrorCode): void {
  const dir = path.dirname(file);
  secretFolder(dir, code);
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    writeAllSyncClose(fd, bytes);
    try {
      linkSync(tmp, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw kernelError(code, `${file}: already exists; a secret is never replaced (remove it first to make a new one)`, { details: { file } });
      throw error;
    }
  } finally {
    unlinkSync(tmp);
  }
  syncDirectory(dir);
}

/**
 * Refuses a secret file others could read or that is not this user's own regular file (one
 * line with `code`, saying how to fix it). Call before reading the secret.
 */
export function checkSecretFile(file: string, code: ErrorCode, what = 'the secret'): void {
  const st = lstatSync(file);
  if (st.isSymbolicLink() || !st.isFile()) throw kernelError(code, `${file}: ${what} is not a regular file (a link or something else stands there); refused`, { details: { file } });
  if (!ownedByMe(st)) throw kernelError(code, `${file}: ${what} belongs to uid ${st.uid}, not this user; refused`, { details: { file } });
  if ((st.mode & 0o077) !== 0) throw kernelError(code, `${file}: ${what} is readable by others (mode ${modeOf(st)}); run "chmod 600 ${file}"`, { details: { file } });
}
