/**
 * The history of a postgres placement (features/history-segments), in the kernel's tables of the shared
 * database, keyed by persona like the events: `event_segments` (a sealed segment's gzip, or
 * its stub once archived), `event_index`, `event_rollups` and `history_documents` (the
 * checkpoint). A segment is what it is on the other backends: the gzip of the exact JSONL
 * lines of its events, so an export round trip keeps every segment's digest.
 *
 * The seal is one transaction: this kernel still holds the persona's lease, the stored chain
 * ends where this writer's does, the segment, its index and rollup lines are inserted, the
 * open rows deleted and the next segment's header inserted as the only one. It commits whole
 * or not at all. Bytes cross the connection worker as base64 text (decode/encode in SQL).
 */
import { kernelError } from '../../../../kernel/errors.ts';
import { canonicalJson } from '../../../../kernel/events/canonical.ts';
import type { ArchivedStub, HistoryDocument, HistoryStorage, SealedListing } from '../../../../kernel/contracts/history-storage.ts';
import { checkOpenRows, openBytesOfRows, registerPlacementHistory } from '../placement-history.ts';
import type { EventPlacement, StorageSession } from '../storage-session.ts';
import { checkedRows, sessionLease } from './pg-bindings.ts';
import type { PgBridge, Statement } from './pg-bridge.ts';

type PgPlacement = Extract<EventPlacement, { kind: 'postgres' }>;

function historyTablesExist(bridge: PgBridge): boolean {
  return bridge.querySync("SELECT to_regclass('runtimectl_kernel.event_segments') IS NOT NULL AS present").rows[0]?.present === true;
}

export function pgHistoryStorage(bridge: PgBridge, persona: string, readonly: boolean): HistoryStorage {
  const label = `${bridge.where}#history(${persona})`;
  const segmentName = (index: number) => `${bridge.where}#event_segments(${persona})/${index}`;
  // A database a kernel before history wrote (or never sealed, read-only) has no history tables: nothing sealed.
  let present: boolean | undefined;
  const rows = (sql: string, params: unknown[]): Record<string, unknown>[] => {
    present ??= historyTablesExist(bridge);
    return present ? bridge.querySync(sql, [persona, ...params]).rows : [];
  };
  const write = (what: string, statements: Statement[]): void => {
    if (readonly) throw kernelError('RTC_ERR_PERSISTENCE_READONLY', `cannot ${what}: the persistence backend was opened read-only`);
    const answer = bridge.txSync({ statements });
    if (!('results' in answer)) throw kernelError('RTC_ERR_HISTORY_SEGMENT', `${label}: could not ${what} (the stored history changed meanwhile); nothing was changed`);
    present = true;
  };
  return {
    label,
    segmentsLabel: `${bridge.where}#event_segments(${persona})`,
    segmentLabel: segmentName,
    indexLabel: `${bridge.where}#event_index(${persona})`,
    rollupsLabel: `${bridge.where}#event_rollups(${persona})`,
    documentLabel: (name) => `${bridge.where}#history_documents(${persona})/${name}`,
    writable: !readonly,
    list(): SealedListing {
      const found = rows('SELECT segment, length(data) AS bytes, stub FROM runtimectl_kernel.event_segments WHERE persona = $1 ORDER BY segment', []);
      return {
        segments: found.map((r) => {
          const index = Number(r.segment);
          const name = segmentName(index);
          if (r.bytes === null) {
            let stub: ArchivedStub;
            try {
              stub = JSON.parse(String(r.stub ?? '')) as ArchivedStub;
            } catch {
              throw kernelError('RTC_ERR_HISTORY_SEGMENT', `${name}: an archived segment whose stub is not valid JSON; nothing was changed`, { details: { file: name } });
            }
            return { index, name, gzBytes: 0, identity: '', archived: stub };
          }
          // A row has no inode or ctime: incremental verify relies on recorded digests here.
          return { index, name, gzBytes: Number(r.bytes), identity: '' };
        }),
        strays: [],
      };
    },
    readSealed(index) {
      const row = rows("SELECT encode(data, 'base64') AS data, stub FROM runtimectl_kernel.event_segments WHERE persona = $1 AND segment = $2", [index])[0];
      if (!row || row.data === null) {
        const archived = row !== undefined && row.stub !== null;
        throw kernelError(archived ? 'RTC_ERR_HISTORY_ARCHIVED' : 'RTC_ERR_HISTORY_SEGMENT', `${segmentName(index)}: ${archived ? 'the segment is archived (restore it with "runtimectl archive restore")' : `sealed segment ${index} is missing`}`, {
          details: { file: segmentName(index), segment: index },
        });
      }
      return Buffer.from(String(row.data), 'base64');
    },
    writeSealed(index, gz) {
      const existing = rows("SELECT encode(data, 'base64') AS data FROM runtimectl_kernel.event_segments WHERE persona = $1 AND segment = $2", [index])[0];
      if (existing) {
        if (existing.data !== null && Buffer.from(String(existing.data), 'base64').equals(gz)) return;
        throw kernelError('RTC_ERR_HISTORY_SEGMENT', `${segmentName(index)}: a different sealed segment ${index} is already stored; a sealed segment is never replaced (nothing was changed)`, { details: { file: segmentName(index) } });
      }
      write('seal a segment', [{ sql: "INSERT INTO runtimectl_kernel.event_segments (persona, segment, data, stub) VALUES ($1, $2, decode($3, 'base64'), NULL)", params: [persona, index, gz.toString('base64')] }]);
    },
    readIndex: () => rows('SELECT line FROM runtimectl_kernel.event_index WHERE persona = $1 ORDER BY segment', []).map((r) => String(r.line)),
    appendIndex(line) {
      write('append to the segment index', [
        { sql: 'INSERT INTO runtimectl_kernel.event_index (persona, segment, line) SELECT $1, COALESCE(MAX(segment), 0) + 1, $2 FROM runtimectl_kernel.event_index WHERE persona = $1', params: [persona, line] },
      ]);
    },
    readRollups: (fromSegment) => rows('SELECT line FROM runtimectl_kernel.event_rollups WHERE persona = $1 AND segment >= $2 ORDER BY segment', [fromSegment]).map((r) => String(r.line)),
    appendRollup(line) {
      const segment = (JSON.parse(line) as { segment: number }).segment;
      write('append a rollup', [{ sql: 'INSERT INTO runtimectl_kernel.event_rollups (persona, segment, line) VALUES ($1, $2, $3) ON CONFLICT (persona, segment) DO UPDATE SET line = excluded.line', params: [persona, segment, line] }]);
    },
    readDocument: (name: HistoryDocument) => {
      const row = rows('SELECT content FROM runtimectl_kernel.history_documents WHERE persona = $1 AND name = $2', [name])[0];
      return row === undefined ? undefined : String(row.content);
    },
    writeDocument(name, text) {
      write(`write the ${name}`, [{ sql: 'INSERT INTO runtimectl_kernel.history_documents (persona, name, content) VALUES ($1, $2, $3) ON CONFLICT (persona, name) DO UPDATE SET content = excluded.content', params: [persona, name, text] }]);
    },
    setAside(name, why) {
      const row = rows('SELECT content FROM runtimectl_kernel.history_documents WHERE persona = $1 AND name = $2', [name])[0];
      if (!row) return undefined;
      const taken = new Set(rows('SELECT name FROM runtimectl_kernel.history_documents WHERE persona = $1', []).map((r) => String(r.name)));
      let target = `${name}.${why}`;
      for (let n = 2; taken.has(target); n++) target = `${name}.${why}.${n}`;
      write(`set the ${name} aside`, [
        { sql: 'INSERT INTO runtimectl_kernel.history_documents (persona, name, content) VALUES ($1, $2, $3)', params: [persona, target, String(row.content)] },
        { sql: 'DELETE FROM runtimectl_kernel.history_documents WHERE persona = $1 AND name = $2', params: [persona, name], expect: { rowCount: 1 } },
      ]);
      return `${bridge.where}#history_documents(${persona})/${target}`;
    },
    archive(index, stub) {
      write('archive a segment', [{ sql: 'UPDATE runtimectl_kernel.event_segments SET data = NULL, stub = $3 WHERE persona = $1 AND segment = $2', params: [persona, index, JSON.stringify(stub)], expect: { rowCount: 1 } }]);
    },
    restore(index, gz) {
      write('restore a segment', [{ sql: "UPDATE runtimectl_kernel.event_segments SET data = decode($3, 'base64'), stub = NULL WHERE persona = $1 AND segment = $2", params: [persona, index, gz.toString('base64')], expect: { rowCount: 1 } }]);
    },
  };
}

registerPlacementHistory('postgres', (session: StorageSession, placement: EventPlacement) => {
  const p = placement as PgPlacement;
  const { bridge, persona } = p;
  const history = pgHistoryStorage(bridge, persona, session.readonly);
  return {
    history,
    openBytes: () => openBytesOfRows(checkedRows(p)),
    checkOpen: (start) => {
      const items = [...checkedRows(p, start)];
      return checkOpenRows(items, items.length > 0, start);
    },
    async seal(request) {
      const { prepared, header } = request;
      const r = header.row;
      const lease = sessionLease(session, 'run');
      const statements: Statement[] = [
        lease.renewStatement(),
        { sql: 'SELECT COALESCE(max(seq), 0) FROM runtimectl_kernel.events WHERE persona = $1', params: [persona], expect: { firstValue: prepared.sealed.last_seq } },
        { sql: "INSERT INTO runtimectl_kernel.event_segments (persona, segment, data, stub) VALUES ($1, $2, decode($3, 'base64'), NULL)", params: [persona, prepared.sealed.segment, prepared.gz.toString('base64')] },
        { sql: 'INSERT INTO runtimectl_kernel.event_index (persona, segment, line) VALUES ($1, $2, $3)', params: [persona, prepared.sealed.segment, JSON.stringify(prepared.entry)] },
        ...(prepared.rollupLine ? [{ sql: 'INSERT INTO runtimectl_kernel.event_rollups (persona, segment, line) VALUES ($1, $2, $3)', params: [persona, prepared.sealed.segment, prepared.rollupLine] }] : []),
        { sql: 'DELETE FROM runtimectl_kernel.events WHERE persona = $1 AND seq <= $2', params: [persona, prepared.sealed.last_seq] },
        { sql: 'INSERT INTO runtimectl_kernel.events (persona, seq, v, type, payload, prev, hash, at) VALUES ($1, $2, 1, $3, $4, $5, $6, $7)', params: [persona, r.seq, r.type, r.payloadJson, r.prev, r.hash, r.at] },
      ];
      let answer;
      try {
        answer = await bridge.tx({ statements });
      } catch (error) {
        throw kernelError('RTC_ERR_EVENTS_WRITE', `persona ${persona}: sealing segment ${prepared.sealed.segment} failed (${(error as Error).message}); nothing was changed`, { cause: error });
      }
      if (!('results' in answer)) {
        const why = answer.conflict === 0 ? 'this kernel no longer holds the lease' : `the stored chain ends at seq ${String(answer.value)}, not ${prepared.sealed.last_seq}: another writer appended`;
        throw kernelError('RTC_ERR_EVENTS_WRITE', `persona ${persona}: sealing segment ${prepared.sealed.segment} failed (${why}); nothing was changed`);
      }
    },
    replaceOpen(event) {
      if (session.readonly) throw kernelError('RTC_ERR_PERSISTENCE_READONLY', 'cannot import events: the persistence backend was opened read-only');
      const answer = bridge.txSync({
        statements: [
          { sql: 'DELETE FROM runtimectl_kernel.events WHERE persona = $1', params: [persona] },
          { sql: 'INSERT INTO runtimectl_kernel.events (persona, seq, v, type, payload, prev, hash, at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)', params: [persona, event.seq, event.v, event.type, canonicalJson(event.payload), event.prev, event.hash, event.at] },
        ],
      });
      if (!('results' in answer)) throw kernelError('RTC_ERR_PERSISTENCE_EXPORT', `persona ${persona}: the open segment could not be replaced by its header; nothing was changed`);
    },
  };
});
