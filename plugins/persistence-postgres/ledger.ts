/**
 * The ledger's rows in Postgres: a change log per persona and ledger path (`ledger_changes`),
 * the same records the jsonl-fs format keeps a line each: seq 0 is the header, each commit
 * one row inserted only as the next seq after the version it was decided on (the primary key
 * refuses a second writer's, and the ledger plugin decides again).
 */
import { postgres, type Token } from '../persistence-shared/storage.ts';

export function ledgerLoad(s: Token, a: { db: string; since: number | null; repair: boolean; init: string }) {
  const since = a.since ?? -1;
  let rows = postgres.query<{ seq: string; record: string }>(s, 'SELECT seq, record FROM runtimectl.ledger_changes WHERE db = $1 AND seq > $2 ORDER BY seq', [a.db, since]).rows;
  const created = since < 0 && rows.length === 0;
  if (created) {
    if (!a.repair) return { missing: true };
    postgres.batch(s, [{ sql: 'INSERT INTO runtimectl.ledger_changes (persona, db, seq, record) VALUES (runtimectl_api.persona(), $1, 0, $2) ON CONFLICT DO NOTHING', params: [a.db, a.init.replace(/\n$/, '')] }]);
    rows = postgres.query<{ seq: string; record: string }>(s, 'SELECT seq, record FROM runtimectl.ledger_changes WHERE db = $1 AND seq > $2 ORDER BY seq', [a.db, since]).rows;
  }
  const version = rows.length === 0 ? since : Number(rows.at(-1)!.seq);
  return { log: true, version, from_start: since < 0, lines: rows.map((r) => r.record), torn: 0, created };
}

export function ledgerCommit(s: Token, a: { db: string; base: number; seq: number; change: string; ops: unknown[]; note?: string }) {
  const record = JSON.stringify({ seq: a.seq, change: a.change, ops: a.ops, ...(a.note === undefined ? {} : { note: a.note }) });
  const answer = postgres.batch(s, [
    { sql: 'INSERT INTO runtimectl.ledger_changes (persona, db, seq, record) VALUES (runtimectl_api.persona(), $1, $2, $3) ON CONFLICT DO NOTHING', params: [a.db, a.base + 1, record], expect_rows: 1 },
  ]);
  return 'conflict' in answer ? { ok: false } : { ok: true, version: a.base + 1 };
}
