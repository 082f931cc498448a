/**
 * The open file's side of a seal, the file sink's own: the open segment is replaced by one
 * holding only the next segment's header (temp file, fsync, rename), and a temp file a crash
 * left before its rename is kept aside at the next open.
 */
import { close, constants, existsSync, openSync, renameSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { replaceFileDurably, syncDirectory } from '../storage/durable-files.ts';

const closeAsync = promisify(close);

/** The temp name a seal writes the next open file under before renaming it into place. */
export function sealTempName(file: string): string {
  return `${file}.seal-tmp`;
}

/**
 * A seal's last step: the open file is replaced by `bytes` (the new segment's header): temp
 * file, fsync, rename, directory fsync; the old descriptor is closed and a new one opened
 * for appends with `flags` added (O_DSYNC).
 */
export async function replaceOpenFile(file: string, oldFd: number, bytes: Buffer, flags: number): Promise<number> {
  replaceFileDurably(file, bytes, { tmp: sealTempName(file) });
  await closeAsync(oldFd).catch(() => undefined);
  return openSync(file, constants.O_WRONLY | constants.O_APPEND | flags, 0o644);
}

/**
 * A temp file a seal left (a crash before its rename): it holds only a header never
 * acknowledged. It is kept aside as evidence, never deleted; returns its new name.
 */
export function setAsideSealTemp(file: string): string | undefined {
  const tmp = sealTempName(file);
  if (!existsSync(tmp)) return undefined;
  for (let n = 1; ; n++) {
    const target = `${file}.seal-partial${n === 1 ? '' : `-${n}`}`;
    if (existsSync(target)) continue;
    renameSync(tmp, target);
    syncDirectory(path.dirname(file));
    return path.basename(target);
  }
}
