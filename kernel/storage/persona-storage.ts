/**
 * The storage handles the kernel gives a persistence backend, one per binding its manifest
 * declares: `storage.files` → PersonaFiles, `storage.sqlite` → PersonaSqlite. Each is scoped
 * to one persona directory: every relative path goes through the ledger's path guard
 * (lexically inside, then through realpath, so a planted symbolic link cannot aim it at
 * another persona's or the host's files), and anything else is refused with
 * RTC_ERR_PERSISTENCE_PATH_ESCAPE.
 *
 * Each handle also carries the ledger in its own format (files → the jsonl-fs ledger,
 * sqlite → the sqlite ledger), so a backend can only open a ledger its binding covers.
 *
 * These are host objects handed to host code (see backend.ts): they make the declared
 * storage the easy and audited path, they do not contain a backend that chose to bypass them.
 */
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { isKernelError, kernelError } from '../errors.ts';
import { resolveInsidePersona } from './persona-path.ts';
import { appendFileDurably, replaceFileDurably, replaceFileDurablyAsync, type ReplaceOptions } from './durable-files.ts';

export { appendFileDurably, replaceFileDurably, replaceFileDurablyAsync, type ReplaceOptions } from './durable-files.ts';
import type { LedgerAccess } from '../contracts/persistence.ts';
import { ledgerAccess } from '../../features/persistence/ledger-access.ts';

/** `storage.files`: durable file operations inside one persona directory. */
export interface PersonaFiles {
  readonly personaDir: string;
  /** The real absolute path of `relative`, refused when it would leave the persona directory. */
  resolve(relative: string): string;
  exists(relative: string): boolean;
  /** Size in bytes, 0 when the file does not exist. */
  size(relative: string): number;
  /** The file's text, or undefined when it does not exist. */
  readText(relative: string): string | undefined;
  /** Appends and syncs before returning; a new file's directory entry is synced too. */
  appendDurably(relative: string, data: string | Buffer): void;
  /**
   * Replaces the file whole: temp file, fsync, rename, directory fsync (old or new, never half).
   * `directorySync: 'when-new'` is for a file rewritten every cycle (see replaceFileDurably).
   */
  replaceDurably(relative: string, data: string | Buffer, options?: ReplaceOptions): void;
  /** replaceDurably done in Node's thread pool: the file is replaced when the promise resolves. */
  replaceDurablyAsync(relative: string, data: string | Buffer, options?: ReplaceOptions): Promise<void>;
  /** The persona's ledger in the jsonl-fs format. */
  readonly ledger: LedgerAccess;
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
  /** The persona's ledger in the sqlite format. */
  readonly ledger: LedgerAccess;
}

/** resolveInsidePersona with this module's error code. */
export function guardPath(personaDir: string, relative: string): string {
  return resolveInsidePersona(personaDir, relative, { code: 'RTC_ERR_PERSISTENCE_PATH_ESCAPE', what: 'persistence path' });
}

function isFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

export function personaFiles(personaDir: string, personaId: string, readonly: boolean): PersonaFiles {
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
    readText(relative) {
      const file = resolve(relative);
      return isFile(file) ? readFileSync(file, 'utf8') : undefined;
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
    ledger: ledgerAccess(personaDir, personaId, 'jsonl-fs', readonly),
  };
}

export function personaSqlite(personaDir: string, personaId: string, readonly: boolean): PersonaSqlite {
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
    ledger: ledgerAccess(personaDir, personaId, 'sqlite', readonly),
  };
}
