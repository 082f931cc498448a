/**
 * Step 5 of the cycle: bootstrap or inspect the persona's local task ledger, reported as the
 * cycle event's `ledger` field (where it is, whether it was created now, its backend, its
 * task counts by state).
 *
 * Opening the ledger for writing bootstraps it (folders, config.yaml, prompt.md), checks every
 * path against symbolic-link escapes, parses config.yaml, takes the write lock and replays the
 * whole record log: milliseconds, the largest CPU item of an idle cycle. An idle cycle changes
 * none of those files, so each inspection also notes the identity of every file and folder
 * the open looked at (lstat: device, inode, mode, size, mtime, ctime); while none of them
 * changed, the next cycle reports the same inspection without opening anything.
 *
 * Why that is safe: a `jsonl-fs` ledger is append-only, so every committed change (by this
 * process or by `runtimectl ledger ...` in another) grows the file; a torn write a crashed
 * writer left grows it too (and is repaired by the next full open, as before); a folder or
 * file removed, recreated or swapped for a symbolic link changes its lstat. The identity is
 * read before the open, so a change racing with the open is seen by the next cycle. The
 * sqlite ledger commits into its WAL, which can be rewritten in place at the same size within
 * one timestamp tick, so it is opened every cycle as before. Errors are never reused.
 */
import { lstatSync } from 'node:fs';
import path from 'node:path';
import { CONFIG_PATH, LAYOUT_DIRS, PROMPT_PATH } from '../ledger/config.ts';
import type { LedgerAccess } from '../ledger/access.ts';
import { errorLine } from './decide.ts';
import { relToState, type PersonaPaths } from '../persona-layout/layout.ts';

export interface LedgerInspection {
  path: string;
  bootstrap: string;
  backend?: string;
  tasks?: Record<string, number>;
  error?: string;
}

function countBy<T>(items: readonly T[], key: (item: T) => string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const item of items) out[key(item)] = (out[key(item)] ?? 0) + 1;
  return out;
}

/**
 * The lstat identity of the ledger's files and folders (a missing one included as such).
 * Folders count by identity only (device, inode, mode): the write lock a writable open takes
 * is a file created and removed in orchestra/, which moves that folder's mtime every time.
 */
function ledgerIdentity(personaDir: string, dbPath: string): string {
  const parts: string[] = [];
  for (const relative of LAYOUT_DIRS) {
    const st = lstatSync(path.join(personaDir, relative), { bigint: true, throwIfNoEntry: false });
    parts.push(st === undefined ? '-' : `${st.dev}:${st.ino}:${st.mode}`);
  }
  for (const relative of [CONFIG_PATH, PROMPT_PATH, dbPath]) {
    const st = lstatSync(path.join(personaDir, relative), { bigint: true, throwIfNoEntry: false });
    parts.push(st === undefined ? '-' : `${st.dev}:${st.ino}:${st.mode}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`);
  }
  return parts.join('|');
}

export class LedgerInspector {
  /** the database path (relative to the persona directory) the last successful open found */
  #dbPath: string | undefined;
  /** the last jsonl-fs inspection and the identity read just before its open */
  #cached: { identity: string; inspection: LedgerInspection } | undefined;

  constructor(
    private readonly paths: PersonaPaths,
    private readonly ledger: LedgerAccess,
  ) {}

  inspect(): LedgerInspection {
    // Read before the open, with the db path of the last open: a config.yaml naming another
    // path changes config.yaml's own identity, and the open below then sees the new path.
    const identity = this.#dbPath === undefined ? undefined : ledgerIdentity(this.paths.dir, this.#dbPath);
    if (this.#cached !== undefined && identity === this.#cached.identity) return structuredClone(this.#cached.inspection);
    this.#cached = undefined;
    const dbRel = relToState(this.paths, path.join(this.paths.orchestraDir, 'orchestra.db'));
    try {
      const opened = this.ledger.open();
      try {
        const inspection: LedgerInspection = {
          path: relToState(this.paths, path.join(this.paths.dir, opened.dbPath)),
          bootstrap: opened.bootstrap?.status ?? 'existing',
          backend: opened.store.backend,
          tasks: countBy(opened.store.listTasks(), (t) => t.state),
        };
        if (opened.store.backend === 'jsonl-fs' && identity !== undefined && opened.dbPath === this.#dbPath) {
          // The database exists from here on, so a reopen while nothing changes says 'existing'.
          this.#cached = { identity, inspection: { ...structuredClone(inspection), bootstrap: 'existing' } };
        }
        this.#dbPath = opened.dbPath;
        return inspection;
      } finally {
        opened.store.close();
      }
    } catch (error) {
      this.#dbPath = undefined;
      return { path: dbRel, bootstrap: 'failed', error: errorLine(error) };
    }
  }
}
