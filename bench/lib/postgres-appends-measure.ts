/**
 * measurePostgresAppends: durable appends per second through the persistence.postgres backend
 * (plugin in its isolate, each group-commit batch one transaction through the kernel's pg
 * pool in its worker thread, acknowledged when COMMIT returns), next to
 *
 *   - the floor: raw batched INSERTs of the same rows (same columns, same unnest statement)
 *     with the same client library (`pg`), one transaction per batch of `concurrency` rows,
 *     one after the other, on a plain table of the same database; nothing else per batch
 *     (no lease renewal, no chain-end check, no isolate, no worker thread);
 *   - the sqlite backend (persistence.sqlite, its isolate, synchronous=FULL), same producers;
 *
 * interleaved round by round (the order turns each round) after a discarded warm-up, against
 * a throwaway cluster with fsync on (test/support/postgres.ts). Ack latency is append() to its
 * promise resolving, for every append of the postgres rounds.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { openBackend } from '../../features/persistence/open.ts';
import { closeBridges } from '../../features/persistence/storage/postgres/pg-bridge.ts';
import { groupRound, percentile, round, samplePayload } from './event-appends-measure.ts';
import type { PersistenceBackend } from '../../kernel/contracts/persistence.ts';
import { startPostgres } from '../../test/support/postgres.ts';

export interface PostgresAppendsFigures {
  events: number;
  concurrency: number;
  rounds: number;
  postgres: { eventsPerSecond: number; p50AckMs: number; p99AckMs: number; maxAckMs: number };
  raw: { eventsPerSecond: number; batchSize: number; p50CommitMs: number; p99CommitMs: number };
  sqlite: { eventsPerSecond: number; p50AckMs: number; p99AckMs: number };
  /** postgres / raw */
  ratioToFloor: number;
  /** postgres / sqlite */
  ratioToSqlite: number;
}

export async function measurePostgresAppends(options: { events: number; dir: string; concurrency?: number; rounds?: number }): Promise<PostgresAppendsFigures> {
  const rounds = Math.max(1, Math.floor(options.rounds ?? 5));
  const perRound = Math.max(1, Math.floor(options.events / rounds));
  const events = perRound * rounds;
  const concurrency = Math.max(1, Math.min(options.concurrency ?? 256, perRound));
  mkdirSync(options.dir, { recursive: true });
  const scratch = mkdtempSync(path.join(options.dir, 'bench-pg-'));
  const server = await startPostgres();
  const raw = new pg.Client({ connectionString: server.dsn });
  let postgres: PersistenceBackend | undefined;
  let sqlite: PersistenceBackend | undefined;
  try {
    await raw.connect();
    await raw.query(`CREATE TABLE bench_raw (persona text NOT NULL, seq bigint NOT NULL, v integer NOT NULL, type text NOT NULL, payload text NOT NULL,
      prev text NOT NULL, hash text NOT NULL, at text NOT NULL, PRIMARY KEY (persona, seq))`);
    const dirOf = (name: string) => {
      const dir = path.join(scratch, name, 'bench');
      mkdirSync(dir, { recursive: true });
      return dir;
    };
    postgres = await openBackend(dirOf('pg'), 'postgres', { dsn: server.dsn });
    sqlite = await openBackend(dirOf('sqlite'), 'sqlite');
    const pgAcks: number[] = [];
    const sqliteAcks: number[] = [];
    const commits: number[] = [];
    let pgSeconds = 0;
    let sqliteSeconds = 0;
    let rawSeconds = 0;
    let rawSeq = 0;
    const warm = Math.min(perRound, 2 * concurrency);
    await groupRound(postgres.events, warm, concurrency, 0, []);
    await groupRound(sqlite.events, warm, concurrency, 0, []);
    await rawRound(raw, warm, concurrency, 0, []);
    rawSeq = warm;
    for (let r = 0; r < rounds; r++) {
      const first = (r + 1) * perRound;
      const variants: (() => Promise<void>)[] = [
        async () => void (pgSeconds += await groupRound(postgres!.events, perRound, concurrency, first, pgAcks)),
        async () => {
          rawSeconds += await rawRound(raw, perRound, concurrency, rawSeq, commits);
          rawSeq += perRound;
        },
        async () => void (sqliteSeconds += await groupRound(sqlite!.events, perRound, concurrency, first, sqliteAcks)),
      ];
      for (let i = 0; i < variants.length; i++) await variants[(i + r) % variants.length]!();
    }
    const pgRate = Math.round(events / pgSeconds);
    const rawRate = Math.round(events / rawSeconds);
    const sqliteRate = Math.round(events / sqliteSeconds);
    const pgSorted = Float64Array.from(pgAcks).sort();
    const sqSorted = Float64Array.from(sqliteAcks).sort();
    const commitSorted = Float64Array.from(commits).sort();
    return {
      events,
      concurrency,
      rounds,
      postgres: { eventsPerSecond: pgRate, p50AckMs: round(percentile(pgSorted, 0.5), 3), p99AckMs: round(percentile(pgSorted, 0.99), 3), maxAckMs: round(pgSorted[pgSorted.length - 1] ?? 0, 3) },
      raw: { eventsPerSecond: rawRate, batchSize: concurrency, p50CommitMs: round(percentile(commitSorted, 0.5), 3), p99CommitMs: round(percentile(commitSorted, 0.99), 3) },
      sqlite: { eventsPerSecond: sqliteRate, p50AckMs: round(percentile(sqSorted, 0.5), 3), p99AckMs: round(percentile(sqSorted, 0.99), 3) },
      ratioToFloor: round(pgRate / rawRate, 3),
      ratioToSqlite: round(pgRate / sqliteRate, 3),
    };
  } finally {
    await postgres?.close().catch(() => undefined);
    await sqlite?.close().catch(() => undefined);
    await raw.end().catch(() => undefined);
    await closeBridges();
    server.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}

const HEX = 'a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90';

/** `count` rows in transactions of `batch` rows (BEGIN, the unnest INSERT, COMMIT), one after the other. */
async function rawRound(client: pg.Client, count: number, batch: number, firstSeq: number, commits: number[]): Promise<number> {
  const start = process.hrtime.bigint();
  for (let done = 0; done < count; done += batch) {
    const n = Math.min(batch, count - done);
    const seqs: number[] = [];
    const types: string[] = [];
    const payloads: string[] = [];
    const prevs: string[] = [];
    const hashes: string[] = [];
    const ats: string[] = [];
    for (let i = 0; i < n; i++) {
      const seq = firstSeq + done + i + 1;
      seqs.push(seq);
      types.push('bench.cycle');
      payloads.push(JSON.stringify(samplePayload(seq)));
      prevs.push(`sha256:${HEX}`);
      hashes.push(`sha256:${HEX}`);
      ats.push(new Date().toISOString());
    }
    const t0 = process.hrtime.bigint();
    await client.query('BEGIN');
    await client.query(
      `INSERT INTO bench_raw (persona, seq, v, type, payload, prev, hash, at)
       SELECT $1, u.seq, 1, u.type, u.payload, u.prev, u.hash, u.at
       FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[]) AS u(seq, type, payload, prev, hash, at)`,
      ['bench', seqs, types, payloads, prevs, hashes, ats],
    );
    await client.query('COMMIT');
    commits.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return Number(process.hrtime.bigint() - start) / 1e9;
}
