/**
 * features/history-segments's storage operations on a sqlite placement's database (the sqlite backend's
 * persistence.db): sealed segments are rows of `event_segments` (gzip bytes, or a stub once
 * archived), the index is `event_index`, the rollups `event_rollups`, the checkpoint a row of
 * `history_documents`. These tables are the kernel's, like `events`: created and written only
 * here and by the seal (placement-history.ts), never by a plugin's statement (the SQL guard
 * refuses their names). Each write is its own committed transaction (WAL, synchronous=FULL);
 * the seal itself is one transaction.
 */
import type Database from 'better-sqlite3';
import { kernelError } from '../../../kernel/errors.ts';
import type { ArchivedStub, HistoryDocument, HistoryStorage, SealedListing } from '../../../kernel/contracts/history-storage.ts';

/** The kernel's history tables in a sqlite placement. */
export const HISTORY_TABLES = ['event_segments', 'event_index', 'event_rollups', 'history_documents'] as const;

export const HISTORY_TABLES_SQL = `
CREATE TABLE IF NOT EXISTS event_segments (segment INTEGER PRIMARY KEY, data BLOB, stub TEXT);
CREATE TABLE IF NOT EXISTS event_index (segment INTEGER PRIMARY KEY, line TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS event_rollups (segment INTEGER PRIMARY KEY, line TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS history_documents (name TEXT PRIMARY KEY, content TEXT NOT NULL);
`;

/** True when the database has the history tables (one never sealed, or read-only before its first writer, does not). */
export function hasHistoryTables(db: Database.Database): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'event_segments'").get() !== undefined;
}

/** What the storage needs of the backend's database handles. */
export interface HistoryDb {
  /** runs `fn` on a read-only handle; `empty` when there is no database (or no history tables yet) */
  read<T>(fn: (db: Database.Database) => T, empty: T): T;
  /** the writable handle, with the history tables there */
  writer(what: string): Database.Database;
  readonly readonly: boolean;
}

export function sqliteHistoryStorage(db: HistoryDb, personaId: string, dbFile: string): HistoryStorage {
  const label = `${personaId}/${dbFile}`;
  const segmentName = (index: number) => `${label}#event_segments/${index}`;
  const read = <T>(fn: (handle: Database.Database) => T, empty: T): T => db.read((handle) => (hasHistoryTables(handle) ? fn(handle) : empty), empty);
  const write = (what: string, fn: (handle: Database.Database) => void) => {
    const handle = db.writer(what);
    handle.transaction(() => fn(handle)).immediate();
  };
  return {
    label,
    segmentsLabel: `${label}#event_segments`,
    segmentLabel: segmentName,
    indexLabel: `${label}#event_index`,
    rollupsLabel: `${label}#event_rollups`,
    documentLabel: (name) => `${label}#history_documents/${name}`,
    writable: !db.readonly,
    list(): SealedListing {
      const rows = read((h) => h.prepare('SELECT segment, length(data) AS bytes, stub FROM event_segments ORDER BY segment').all() as { segment: number; bytes: number | null; stub: string | null }[], []);
      return {
        segments: rows.map((r) => {
          const name = segmentName(r.segment);
          if (r.bytes === null) {
            let stub: ArchivedStub;
            try {
              stub = JSON.parse(r.stub ?? '') as ArchivedStub;
            } catch {
              throw kernelError('RTC_ERR_HISTORY_SEGMENT', `${name}: an archived segment whose stub is not valid JSON; nothing was changed`, { details: { file: name } });
            }
            return { index: r.segment, name, gzBytes: 0, identity: '', archived: stub };
          }
          // A row's bytes have no inode or ctime: incremental verify relies on recorded digests here.
          return { index: r.segment, name, gzBytes: r.bytes, identity: '' };
        }),
        strays: [],
      };
    },
    readSealed(index) {
      const row = read((h) => h.prepare('SELECT data, stub FROM event_segments WHERE segment = ?').get(index) as { data: Buffer | null; stub: string | null } | undefined, undefined);
      if (!row || row.data === null) {
        const archived = row !== undefined && row.stub !== null;
        throw kernelError(archived ? 'RTC_ERR_HISTORY_ARCHIVED' : 'RTC_ERR_HISTORY_SEGMENT', `${segmentName(index)}: ${archived ? 'the segment is archived (restore it with "runtimectl archive restore")' : `sealed segment ${index} is missing`}`, {
          details: { file: segmentName(index), segment: index },
        });
      }
      return row.data;
    },
    writeSealed(index, gz) {
      write('seal a segment', (h) => {
        const existing = h.prepare('SELECT data FROM event_segments WHERE segment = ?').get(index) as { data: Buffer | null } | undefined;
        if (existing) {
          if (existing.data !== null && Buffer.compare(existing.data, gz) === 0) return;
          throw kernelError('RTC_ERR_HISTORY_SEGMENT', `${segmentName(index)}: a different sealed segment ${index} is already stored; a sealed segment is never replaced (nothing was changed)`, { details: { file: segmentName(index) } });
        }
        h.prepare('INSERT INTO event_segments (segment, data, stub) VALUES (?, ?, NULL)').run(index, gz);
      });
    },
    readIndex: () => read((h) => (h.prepare('SELECT line FROM event_index ORDER BY segment').all() as { line: string }[]).map((r) => r.line), [] as string[]),
    appendIndex(line) {
      write('append to the segment index', (h) => {
        const next = (h.prepare('SELECT COALESCE(MAX(segment), 0) + 1 AS n FROM event_index').get() as { n: number }).n;
        h.prepare('INSERT INTO event_index (segment, line) VALUES (?, ?)').run(next, line);
      });
    },
    readRollups: (fromSegment) => read((h) => (h.prepare('SELECT line FROM event_rollups WHERE segment >= ? ORDER BY segment').all(fromSegment) as { line: string }[]).map((r) => r.line), [] as string[]),
    appendRollup(line) {
      write('append a rollup', (h) => {
        const segment = (JSON.parse(line) as { segment: number }).segment;
        h.prepare('INSERT OR REPLACE INTO event_rollups (segment, line) VALUES (?, ?)').run(segment, line);
      });
    },
    readDocument: (name: HistoryDocument) => read((h) => (h.prepare('SELECT content FROM history_documents WHERE name = ?').get(name) as { content: string } | undefined)?.content, undefined as string | undefined),
    writeDocument(name, text) {
      write(`write the ${name}`, (h) => h.prepare('INSERT OR REPLACE INTO history_documents (name, content) VALUES (?, ?)').run(name, text));
    },
    setAside(name, why) {
      let aside: string | undefined;
      write(`set the ${name} aside`, (h) => {
        const row = h.prepare('SELECT content FROM history_documents WHERE name = ?').get(name) as { content: string } | undefined;
        if (!row) return;
        for (let n = 1; ; n++) {
          const target = `${name}.${why}${n === 1 ? '' : `.${n}`}`;
          if (h.prepare('SELECT 1 FROM history_documents WHERE name = ?').get(target)) continue;
          h.prepare('INSERT INTO history_documents (name, content) VALUES (?, ?)').run(target, row.content);
          h.prepare('DELETE FROM history_documents WHERE name = ?').run(name);
          aside = `${label}#history_documents/${target}`;
          return;
        }
      });
      return aside;
    },
    archive(index, stub) {
      write('archive a segment', (h) => h.prepare('UPDATE event_segments SET data = NULL, stub = ? WHERE segment = ?').run(JSON.stringify(stub), index));
    },
    restore(index, gz) {
      write('restore a segment', (h) => h.prepare('UPDATE event_segments SET data = ?, stub = NULL WHERE segment = ?').run(gz, index));
    },
  };
}
