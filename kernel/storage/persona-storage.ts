/**
 * The storage handles the kernel gives a persistence backend, one per binding its manifest
 * declares: `storage.files` → PersonaFiles, `storage.sqlite` → PersonaSqlite. Each is scoped
 * to one persona directory: every relative path goes through the ledger's path guard
 * (lexically inside, then through realpath, so a planted symbolic link cannot aim it at
 * another persona's or the host's files), and anything else is refused with
 * RTC_ERR_PERSISTENCE_PATH_ESCAPE.
 *
 * (features/persistence adds to each handle the ledger in its own format: files → the jsonl-fs
 * ledger, sqlite → the sqlite ledger, so a backend can only open a ledger its binding covers.)
 *
 * These are host objects handed to host code (see backend.ts): they make the declared
 * storage the easy and audited path, they do not contain a backend that chose to bypass them.
 */
import { close, existsSync, fsync, mkdirSync, open, openSync, rename, renameSync, statSync, write, constants } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { kernelError } from '../errors.ts';
import { syncDirectory, writeAllSyncClose } from '../events/repair.ts';
import { resolveInside } from './path-guard.ts';
import { openRegular, READ_CAPS, readTextCapped } from './safe-read.ts';

/** `storage.files`: durable file operations inside one persona directory. */
export interface PersonaFiles {
  readonly personaDir: string;
  /** The real absolute path of `relative`, refused when it would leave the persona directory. */
  resolve(relative: string): string;
  exists(relative: string): boolean;
  /** Size in bytes, 0 when the file does not exist. */
  size(relative: string): number;
  /**
   * The file's text, or undefined when it does not exist; refused (RTC_ERR_FS_ACCESS) when it
   * is not a regular file or is over `maxBytes` (default READ_CAPS.longTerm).
   */
  readText(relative: string, maxBytes?: number): string | undefined;
  /** Appends and syncs before returning; a new file's directory entry is synced too. */
  appendDurably(relative: string, data: string | Buffer): void;
  /**
   * Replaces the file whole: temp file, fsync, rename, directory fsync (old or new, never half).
   * `directorySync: 'when-new'` is for a file rewritten every cycle (see replaceFileDurably).
   */
  replaceDurably(relative: string, data: string | Buffer, options?: ReplaceOptions): void;
  /** replaceDurably done in Node's thread pool: the file is replaced when the promise resolves. */
  replaceDurablyAsync(relative: string, data: string | Buffer, options?: ReplaceOptions): Promise<void>;
}

export interface OpenDatabaseOptions {
  /** Open without writing: a missing database gives undefined instead of being created. */
  readonly?: boolean;
}

/** `storage.sqlite`: sqlite databases inside one persona directory, WAL with synchronous=FULL. */
export interface PersonaSqlite {
  readonly personaDir: string;
  resolve(relative: string): string;
  /**
   * Opens a database. Writable handles get `journal_mode=WAL` and `synchronous=FULL`, so a
   * committed transaction survives kill -9 and power loss, and a 5 s busy timeout.
   */
  open(relative: string, options?: OpenDatabaseOptions): Database.Database | undefined;
}

const PERSISTENCE_VOICE = { code: 'RTC_ERR_PERSISTENCE_PATH_ESCAPE', what: 'persistence path' } as const;

/** The path guard with the persistence error code. */
export function guardPath(personaDir: string, relative: string): string {
  return resolveInside(PERSISTENCE_VOICE, personaDir, relative);
}

function isFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

export function appendFileDurably(file: string, data: string | Buffer): void {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  const dir = path.dirname(file);
  const created = !existsSync(file);
  mkdirSync(dir, { recursive: true });
  const fd = openRegular(file, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT, 0o644)!;
  writeAllSyncClose(fd, bytes);
  if (created) syncDirectory(dir);
}

export interface ReplaceOptions {
  /**
   * 'always' (the default) fsyncs the directory after the rename, so the new version survives
   * a power loss. 'when-new' skips it when the file already existed: for state rewritten every
   * cycle (brain.json) where the previous complete version after a power loss is acceptable.
   */
  directorySync?: 'always' | 'when-new';
}

/** The steps both replacements share: the bytes, the folder (created if missing), the temp file's name. */
function replacement(file: string, data: string | Buffer): { bytes: Buffer; dir: string; tmp: string } {
  const dir = path.dirname(file);
  // The folder almost always exists (brain.json, every cycle): a stat, not a mkdir and a stat.
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true });
  return { bytes: typeof data === 'string' ? Buffer.from(data, 'utf8') : data, dir, tmp: `${file}.${process.pid}.tmp` };
}

/**
 * Whether the directory is fsynced after the rename (asked before it). The directory fsync
 * makes the rename itself durable. With 'when-new' over an existing entry it is skipped (one
 * fsync less per cycle): the rename is complete in the OS when it returns, so a kill -9 of
 * this process finds the new file; only a power or OS crash can lose a rename not yet written
 * back, and then the entry still names the old, complete file (the new bytes were fsynced
 * before the rename), never half of one.
 */
function syncsDirectory(file: string, options: ReplaceOptions): boolean {
  return options.directorySync !== 'when-new' || !existsSync(file);
}

export function replaceFileDurably(file: string, data: string | Buffer, options: ReplaceOptions = {}): void {
  const { bytes, dir, tmp } = replacement(file, data);
  writeAllSyncClose(openSync(tmp, 'w', 0o644), bytes);
  const syncDir = syncsDirectory(file, options);
  renameSync(tmp, file);
  if (syncDir) syncDirectory(dir);
}

/** A node:fs callback as a promise. */
function settle<T>(start: (done: (error: NodeJS.ErrnoException | null, value?: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => start((error, value) => (error ? reject(error) : resolve(value as T))));
}

/**
 * replaceFileDurably with the open, write, fsync, close and rename in Node's thread pool, so
 * a persona's fsync does not hold the main thread (and the other personas' cycles). The
 * callback-style node:fs functions are used, not fs/promises, so the bench's cycle census,
 * which wraps node:fs, sees these parts too.
 */
export async function replaceFileDurablyAsync(file: string, data: string | Buffer, options: ReplaceOptions = {}): Promise<void> {
  const { bytes, dir, tmp } = replacement(file, data);
  const fd = await settle<number>((done) => open(tmp, 'w', 0o644, done));
  try {
    let written = 0;
    while (written < bytes.length) {
      const from = written;
      written += await settle<number>((done) => write(fd, bytes, from, bytes.length - from, null, done));
    }
    await settle((done) => fsync(fd, done));
  } finally {
    await settle((done) => close(fd, done));
  }
  const syncDir = syncsDirectory(file, options);
  await settle((done) => rename(tmp, file, done));
  if (syncDir) syncDirectory(dir);
}

export function personaFiles(personaDir: string, readonly: boolean): PersonaFiles {
  const resolve = (relative: string) => guardPath(personaDir, relative);
  const refuseWrite = (relative: string) => {
    if (readonly) throw kernelError('RTC_ERR_PERSISTENCE_READONLY', `${relative}: the persistence backend was opened read-only`, { details: { file: relative } });
  };
  return {
    personaDir,
    resolve,
    exists: (relative) => isFile(resolve(relative)),
    size(relative) {
      try {
        const stat = statSync(resolve(relative));
        return stat.isFile() ? stat.size : 0;
      } catch {
        return 0;
      }
    },
    readText(relative, maxBytes = READ_CAPS.longTerm) {
      // Capped, non-blocking, regular files only: a FIFO or /dev/zero here is one line, not a hang.
      return readTextCapped(resolve(relative), { maxBytes, shown: relative });
    },
    appendDurably(relative, data) {
      refuseWrite(relative);
      appendFileDurably(resolve(relative), data);
    },
    replaceDurably(relative, data, options) {
      refuseWrite(relative);
      replaceFileDurably(resolve(relative), data, options);
    },
    async replaceDurablyAsync(relative, data, options) {
      refuseWrite(relative);
      await replaceFileDurablyAsync(resolve(relative), data, options);
    },
  };
}

export function personaSqlite(personaDir: string, readonly: boolean): PersonaSqlite {
  const resolve = (relative: string) => guardPath(personaDir, relative);
  return {
    personaDir,
    resolve,
    open(relative, options = {}) {
      const file = resolve(relative);
      const ro = readonly || options.readonly === true;
      if (ro && !isFile(file)) return undefined;
      if (!ro) mkdirSync(path.dirname(file), { recursive: true });
      let db: Database.Database;
      try {
        db = new Database(file, { readonly: ro, fileMustExist: ro });
      } catch (error) {
        throw kernelError('RTC_ERR_PERSISTENCE_CORRUPT', `${relative}: cannot be opened as a sqlite database (${(error as Error).message.split('\n')[0]}); the file was left untouched`, {
          details: { file: relative },
          cause: error,
        });
      }
      try {
        db.pragma('busy_timeout = 5000');
        if (!ro) {
          db.pragma('journal_mode = WAL');
          db.pragma('synchronous = FULL');
        }
      } catch (error) {
        db.close();
        throw kernelError('RTC_ERR_PERSISTENCE_CORRUPT', `${relative}: not a usable sqlite database (${(error as Error).message.split('\n')[0]}); the file was left untouched`, {
          details: { file: relative },
          cause: error,
        });
      }
      return db;
    },
  };
}
