/**
 * One writer per persona: an exclusive, cross-process lock held for the life of the runtime
 * that writes the persona's state (its event log, brain, traces). Two kernels on one persona
 * would both append "the next" event and fork the hash chain (issue 12); with this lock the
 * second is refused at start, naming the holder's pid and start time.
 *
 * The lock must vanish with its process, also on `kill -9`, or a crashed kernel would lock
 * its persona out for good (and a pid file checked for liveness races against pid reuse and
 * means nothing across PID namespaces, e.g. two containers sharing a volume). Node 20 has
 * no flock/fcntl of its own, but SQLite's unix VFS takes POSIX fcntl locks, and the kernel
 * releases those when the process dies. So the default lock is `<persona>/writer.lock`, a
 * tiny SQLite database opened in `locking_mode=EXCLUSIVE` with one write done: from then on
 * the connection holds the file's EXCLUSIVE lock until it is closed or its process ends.
 * Another connection, in this process (SQLite tracks fcntl locks per inode across its
 * connections) or any other, gets SQLITE_BUSY at once (busy timeout 0) and is refused.
 *
 * Who holds it cannot be read from the locked database, so the holder writes its record
 * beside it (`writer.lock.json`: pid, start time from /proc/<pid>/stat, host, purpose). The
 * refusal quotes that record and says whether that process is still the one running; the
 * record is only information, the fcntl lock alone decides.
 *
 * A backend can bring its own lock (a Postgres lease, later): `PersistenceBackend.acquireWriterLock`.
 * Backends without one (jsonl-fs, sqlite: both keep their state in the persona folder) get
 * this file lock; `lockPersonaWriter` picks.
 */
import Database from 'better-sqlite3';
import path from 'node:path';
import { kernelError } from '../../../kernel/errors.ts';
import type { AcquireWriterLock, WriterHolder, WriterLock } from '../../../kernel/contracts/persistence.ts';
import { replaceFileDurably } from './persona-storage.ts';
import { holderIsRunning, readWriterHolder, selfHolder, WRITER_HOLDER_FILE } from './writer-holder.ts';

export const WRITER_LOCK_FILE = 'writer.lock';
export type { AcquireWriterLock, WriterHolder, WriterLock } from '../../../kernel/contracts/persistence.ts';
// the holder's record, re-exported for the lock's users (writer-holder.ts reads it without the SQLite driver)
export { holderIsRunning, processStartTicks, readWriterHolder, selfHolder, WRITER_HOLDER_FILE } from './writer-holder.ts';

/** How long a refused writer waits for the holder to record itself, so it can be named. */
const HOLDER_RECORD_WAIT_MS = 3000;

/**
 * The holder's record, waiting briefly when it is absent or names a dead process: the lock is
 * taken a moment before the record is written, so a writer refused in that moment (two kernels
 * started together on a loaded machine) would otherwise name nobody. Only the message waits;
 * the refusal itself was already decided by the lock.
 */
function awaitHolder(personaDir: string): WriterHolder | undefined {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  const deadline = Date.now() + HOLDER_RECORD_WAIT_MS;
  let holder = readWriterHolder(personaDir);
  while ((holder === undefined || !holderIsRunning(holder)) && Date.now() < deadline) {
    Atomics.wait(pause, 0, 0, 50);
    holder = readWriterHolder(personaDir);
  }
  return holder;
}

/** The one-line refusal for a lock someone else holds. */
function lockedError(personaId: string, personaDir: string, purpose: string): Error {
  const holder = awaitHolder(personaDir);
  const file = path.join(personaDir, WRITER_LOCK_FILE);
  let who: string;
  if (holder === undefined) who = 'another process (it has not recorded itself yet)';
  else if (holderIsRunning(holder)) who = `pid ${holder.pid} (started ${holder.started_at}, ${holder.purpose || 'writer'} since ${holder.since}${holder.host ? ` on ${holder.host}` : ''})`;
  else who = `another process (the last record names pid ${holder.pid}, started ${holder.started_at}, which is not running: a new holder is starting)`;
  return kernelError('RTC_ERR_PERSONA_LOCKED', `persona ${personaId} already has a writer: ${who} holds ${file}; ${purpose} refused (one writer per persona: stop that process first; a killed one releases the lock as it dies)`, {
    details: { persona: personaId, file, holder: holder ?? null },
  });
}

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED';
}

/**
 * Takes `<personaDir>/writer.lock` for this process, or throws RTC_ERR_PERSONA_LOCKED naming
 * the holder. Never waits: a second writer is refused at once.
 */
export function acquireFileWriterLock(personaDir: string, personaId: string, purpose: string): WriterLock {
  const file = path.join(personaDir, WRITER_LOCK_FILE);
  let db: Database.Database;
  try {
    db = new Database(file, { timeout: 0 });
  } catch (error) {
    throw kernelError('RTC_ERR_STATE_DIR', `${file}: cannot open the persona's writer lock (${(error as Error).message.split('\n')[0]})`, { cause: error });
  }
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    // No rollback journal on disk: the database holds one row nobody needs to recover.
    db.pragma('journal_mode = MEMORY');
    db.exec('BEGIN EXCLUSIVE');
    db.exec('CREATE TABLE IF NOT EXISTS holder (k INTEGER PRIMARY KEY CHECK (k = 1), pid INTEGER NOT NULL, since TEXT NOT NULL)');
    const holder = selfHolder(purpose);
    db.prepare('INSERT OR REPLACE INTO holder (k, pid, since) VALUES (1, ?, ?)').run(holder.pid, holder.since);
    // The commit keeps the EXCLUSIVE lock: in exclusive locking mode it is held until close.
    db.exec('COMMIT');
    replaceFileDurably(path.join(personaDir, WRITER_HOLDER_FILE), `${JSON.stringify(holder, null, 2)}\n`);
    let released = false;
    return {
      holder,
      release() {
        if (released) return;
        released = true;
        db.close();
      },
    };
  } catch (error) {
    db.close();
    if (isBusy(error)) throw lockedError(personaId, personaDir, purpose);
    const code = (error as { code?: unknown }).code;
    if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') {
      throw kernelError('RTC_ERR_STATE_DIR', `${file}: is not a writer lock (not a SQLite file); nothing was started. Move it aside if no runtimectl wrote it`, { cause: error });
    }
    throw error;
  }
}

/**
 * The persona's writer lock: the backend's own (`acquireWriterLock`, e.g. a database lease)
 * when it provides one, else the file lock in the persona folder.
 */
export async function lockPersonaWriter(backend: { personaDir: string; personaId: string; acquireWriterLock?: AcquireWriterLock }, purpose: string): Promise<WriterLock> {
  if (backend.acquireWriterLock) return backend.acquireWriterLock(purpose);
  return acquireFileWriterLock(backend.personaDir, backend.personaId, purpose);
}
