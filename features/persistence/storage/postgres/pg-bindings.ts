/**
 * `storage.postgres`: a plugin's statements on a shared Postgres database, for one persona.
 * The connection (and its password) is the kernel's (pg-bridge.ts); the plugin names neither
 * the database, the persona nor a role: the session does. Every plugin statement runs on a
 * connection logged in as the persona's own role (pg-roles.ts), with the extended protocol
 * (one statement per query), in a transaction of its own; a read-only session's transactions
 * are READ ONLY. That role may touch only the plugins' tables in schema runtimectl, and
 * row-level security (on `session_user`, pg-schema.ts) admits only the persona's rows: what a
 * statement says is not checked, what it may reach is decided by privilege.
 *
 *   query    one statement, its rows
 *   batch    several in one transaction, each with an optional expected row count (a change
 *            decided on what was read commits only if nothing changed since: { conflict })
 *   migrate  the plugin's versioned migrations, run as the plugin component's own role, which
 *            may create tables in schema runtimectl only (pg-schema.ts migrateComponent)
 *
 * The chain goes through the events ops below, by reference, as for the other backends
 * (event-bindings.ts): the kernel writes each batch, on its own connection, in one transaction
 * that also renews the persona's lease and checks that the stored chain ends where this
 * writer's does.
 */
import { DenoOpError } from '../../../../kernel/broker/deno-error.ts';
import { Batch } from '../../../../kernel/events/batch.ts';
import { checkEventRows, type StoredEventRow } from '../rows.ts';
import { kernelError } from '../../../../kernel/errors.ts';
import { noSession, storageOp } from '../binding-kit.ts';
import { registerPlacementReader } from '../event-placement.ts';
import { openRows, sealedAtOpen } from '../event-bindings.ts';
import type { ScanStart } from '../../../../kernel/events/scan.ts';
import type { EventPlacement, StorageSession } from '../storage-session.ts';
import type { PgBridge, Statement } from './pg-bridge.ts';
import { takeLease, type Lease } from './pg-lease.ts';
import { migrateComponent, type Migration } from './pg-schema.ts';
import { repairLogin } from './pg-roles.ts';
// The placement's history (sealed segments, index, checkpoint) registers itself for postgres placements.
import './pg-history.ts';

type PgPlacement = Extract<EventPlacement, { kind: 'postgres' }>;

function pg(session: StorageSession) {
  const target = session.postgres;
  if (target === undefined) throw noSession('storage.postgres', `Requires a postgres session: persona ${session.personaId} is not kept in Postgres`);
  return target;
}

function params(o: Record<string, unknown>, key = 'params'): unknown[] {
  const value = o[key] ?? [];
  if (!Array.isArray(value)) throw new DenoOpError('TypeError', `"${key}" must be an array`);
  value.forEach((v, i) => {
    const ok = v === null || typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v)) || (Array.isArray(v) && v.every((x) => x === null || typeof x === 'string' || typeof x === 'number'));
    if (!ok) throw new DenoOpError('TypeError', `${key}[${i}] must be a string, a finite number, a boolean, null or a list of strings and numbers`);
  });
  return value;
}

function sqlArg(o: Record<string, unknown>): string {
  if (typeof o.sql !== 'string') throw new DenoOpError('TypeError', '"sql" must be a string');
  return o.sql;
}

/** The persona's login the plugin's statements run as (opened with the session, pg-schema.ts personaLogin). */
function loginOf(session: StorageSession): string {
  const login = pg(session).login;
  if (login === undefined) throw noSession('storage.postgres', `Requires a postgres session: persona ${session.personaId} has no database login`);
  return login;
}

/**
 * A plugin's transaction on its persona's login. What the database refuses (a privilege, a
 * policy, a syntax error) is the plugin's error, with its SQLSTATE; a write refused because the
 * backend was opened read-only is RTC_ERR_PERSISTENCE_READONLY, as on the file backends; a
 * database that cannot be reached is the kernel's (RTC_ERR_PERSISTENCE_UNREACHABLE).
 */
function answerOf(session: StorageSession, statements: Statement[]) {
  const target = pg(session);
  const run = () => target.bridge.txSync({ statements, login: loginOf(session), ...(session.readonly ? { readOnly: true } : {}) });
  try {
    try {
      return run();
    } catch (error) {
      // The login's password no longer works (a statement may change its own role's password): a new one, once.
      if ((error as { details?: { sqlstate?: string } }).details?.sqlstate !== '28P01') throw error;
      repairLogin(target.bridge, loginOf(session));
      return run();
    }
  } catch (error) {
    const sqlstate = (error as { details?: { sqlstate?: string } }).details?.sqlstate;
    // 25006 read_only_sql_transaction: a write in the read-only transaction of a read-only open is that refusal, not a plugin fault
    if (sqlstate === '25006' && session.readonly) readonlyRefusal(session, 'run a statement that writes');
    if ((error as { code?: string }).code === 'RTC_ERR_PERSISTENCE_CORRUPT' && sqlstate) {
      throw new DenoOpError('Error', `postgres: ${sqlstate}: ${(error as Error).message.replace(/^.*?the database answered \S+ /, '')}`, sqlstate);
    }
    throw error;
  }
}

function plain(rows: Record<string, unknown>[]): Record<string, unknown>[] {
  for (const row of rows) {
    for (const [k, v] of Object.entries(row)) {
      if (v instanceof Date) row[k] = v.toISOString();
      else if (Buffer.isBuffer(v)) row[k] = { base64: v.toString('base64') };
    }
  }
  return rows;
}

export const pgQuery = storageOp({
  name: 'storage.postgres.query',
  binding: 'storage.postgres',
  mode: 'sync',
  parse: (o) => ({ sql: sqlArg(o), params: params(o) }),
  run(session, a) {
    const answer = answerOf(session, [{ sql: a.sql, params: a.params }]);
    if (!('results' in answer)) throw kernelError('RTC_ERR_PERSISTENCE_CORRUPT', 'a query without expectations conflicted', { internal: true });
    return { rows: plain(answer.results[0]!.rows), rowCount: answer.results[0]!.rowCount };
  },
});

export const pgBatch = storageOp({
  name: 'storage.postgres.batch',
  binding: 'storage.postgres',
  mode: 'sync',
  parse(o) {
    const list = o.statements;
    if (!Array.isArray(list) || list.length === 0 || list.length > 10_000) throw new DenoOpError('TypeError', '"statements" must be a list of 1 to 10000 {sql, params}');
    return {
      statements: list.map((item, i) => {
        if (item === null || typeof item !== 'object') throw new DenoOpError('TypeError', `statements[${i}] must be {sql, params}`);
        const s = item as Record<string, unknown>;
        const expect = s.expect_rows;
        if (expect !== undefined && (typeof expect !== 'number' || !Number.isSafeInteger(expect) || expect < 0)) throw new DenoOpError('TypeError', `statements[${i}].expect_rows must be an integer ≥ 0`);
        return { sql: sqlArg(s), params: params(s), ...(expect === undefined ? {} : { expect: { rowCount: expect as number } }) };
      }),
    };
  },
  run(session, a) {
    const answer = answerOf(session, a.statements);
    if (!('results' in answer)) return { conflict: answer.conflict };
    return { results: answer.results.map((r) => ({ rows: plain(r.rows), rowCount: r.rowCount })) };
  },
});

export const pgMigrate = storageOp({
  name: 'storage.postgres.migrate',
  binding: 'storage.postgres',
  mode: 'sync',
  parse(o) {
    const list = o.migrations;
    if (!Array.isArray(list) || list.length === 0) throw new DenoOpError('TypeError', '"migrations" must be a list of {version, statements}');
    const migrations: Migration[] = list.map((m, i) => {
      const x = m as { version?: unknown; statements?: unknown };
      if (typeof x.version !== 'number' || !Number.isSafeInteger(x.version) || x.version < 1) throw new DenoOpError('TypeError', `migrations[${i}].version must be a positive integer`);
      if (!Array.isArray(x.statements) || x.statements.some((s) => typeof s !== 'string')) throw new DenoOpError('TypeError', `migrations[${i}].statements must be a list of SQL texts`);
      return { version: x.version, statements: x.statements as string[] };
    });
    return { migrations };
  },
  run(session, a, ctx) {
    try {
      return migrateComponent(pg(session).bridge, ctx.subject, a.migrations, session.readonly);
    } catch (error) {
      // The database refused a statement of the plugin's, or the catalog check did: the plugin's migration is refused, nothing of it stays.
      const sqlstate = (error as { details?: { sqlstate?: string } }).details?.sqlstate;
      if ((error as { code?: string }).code === 'RTC_ERR_PERSISTENCE_CORRUPT' && sqlstate) {
        throw kernelError('RTC_ERR_PERSISTENCE_STATEMENT', `postgres migration of ${ctx.subject} refused: ${sqlstate}: ${(error as Error).message.replace(/^.*?the database answered \S+ /, '')}; nothing of it was kept`, { details: { sqlstate } });
      }
      throw error;
    }
  },
});

// ---- events --------------------------------------------------------------------------------

const PAGE = 5000;

function* pageRows(bridge: PgBridge, persona: string): Generator<StoredEventRow> {
  let after = 0;
  for (;;) {
    const page = bridge.querySync('SELECT seq, v, type, payload, prev, hash, at FROM runtimectl_kernel.events WHERE persona = $1 AND seq > $2 ORDER BY seq LIMIT $3', [persona, after, PAGE]).rows;
    for (const row of page) yield { ...row, seq: Number(row.seq) } as StoredEventRow;
    if (page.length < PAGE) return;
    after = Number(page.at(-1)!.seq);
  }
}

function tableExists(bridge: PgBridge): boolean {
  return bridge.querySync("SELECT to_regclass('runtimectl_kernel.events') IS NOT NULL AS present").rows[0]?.present === true;
}

function placementWhere(p: PgPlacement): string {
  return `${p.bridge.where}#events(${p.persona})`;
}

export function* checkedRows(p: PgPlacement, start?: ScanStart) {
  if (!tableExists(p.bridge)) return;
  yield* checkEventRows(pageRows(p.bridge, p.persona), placementWhere(p), start);
}

registerPlacementReader('postgres', {
  *read(p) {
    for (const item of checkedRows(p as PgPlacement)) {
      if (item.kind === 'event') yield item.event;
      else {
        const q = item.problem;
        throw kernelError(q.code as 'RTC_ERR_EVENTS_CHAIN', `${q.file}${q.seq === undefined ? '' : ` (seq ${q.seq})`}: ${q.what}`, { details: { ...q } });
      }
    }
  },
  isEmpty(p) {
    const q = p as PgPlacement;
    return !tableExists(q.bridge) || q.bridge.querySync('SELECT 1 FROM runtimectl_kernel.events WHERE persona = $1 LIMIT 1', [q.persona]).rowCount === 0;
  },
});

function placementOf(session: StorageSession): PgPlacement {
  return { kind: 'postgres', persona: session.personaId, bridge: pg(session).bridge };
}

function readonlyRefusal(session: StorageSession, what: string): never {
  throw new DenoOpError('Error', `cannot ${what} for persona ${session.personaId}: the persistence backend was opened read-only`, 'RTC_ERR_PERSISTENCE_READONLY');
}

/** The session's lease, taken now when it has none. */
export function sessionLease(session: StorageSession, purpose: string): Lease {
  const target = pg(session);
  if (target.lease === undefined || !target.lease.held) {
    const lease = takeLease(target.bridge, session.personaId, purpose, target.leaseSeconds);
    target.lease = lease;
    session.closers.push(() => lease.release());
  }
  return target.lease;
}

function insertStatement(persona: string, batch: Batch): Statement {
  const rows = batch.rows;
  return {
    sql: `INSERT INTO runtimectl_kernel.events (persona, seq, v, type, payload, prev, hash, at)
          SELECT $1, u.seq, 1, u.type, u.payload, u.prev, u.hash, u.at
          FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[]) AS u(seq, type, payload, prev, hash, at)`,
    params: [persona, rows.map((r) => r.seq), rows.map((r) => r.type), rows.map((r) => r.payloadJson), rows.map((r) => r.prev), rows.map((r) => r.hash), rows.map((r) => r.at)],
  };
}

export const pgEventsOpen = storageOp({
  name: 'storage.postgres.events.open',
  binding: 'storage.postgres',
  mode: 'sync',
  parse: () => ({}),
  run(session) {
    if (session.readonly) readonlyRefusal(session, 'open the events for appends');
    if (session.opened) throw new DenoOpError('Error', `the events of persona ${session.personaId} are already open`, 'RTC_ERR_PERSISTENCE_BACKEND');
    const placement = placementOf(session);
    session.pin(placement);
    // The lease first: a second kernel is refused before it reads or writes anything.
    const lease = sessionLease(session, 'run');
    const head = openRows(checkedRows(placement), placementWhere(placement), session.openOptions.onEvent);
    const { lastSeq } = head;
    const sealed = sealedAtOpen(session, placement, head.segment, placementWhere(placement));
    placement.bridge.querySync(
      'INSERT INTO runtimectl_kernel.personas (persona, backend) VALUES ($1, $2) ON CONFLICT (persona) DO UPDATE SET last_seen = now()',
      [session.personaId, 'postgres'],
    );
    session.opened = { placement, ...head, sealed, ...(lease.tookOverFrom ? { tookOverFrom: lease.tookOverFrom } : {}) };
    return { last_seq: lastSeq, repaired: false };
  },
});

function appendStatements(session: StorageSession, lease: Lease, batch: Batch, firstSeq: number): Statement[] {
  return [
    // This kernel still holds the lease (and renews it): else nothing of the batch commits.
    lease.renewStatement(),
    // The stored chain ends where this writer's does: else another writer appended.
    { sql: 'SELECT COALESCE(max(seq), 0) FROM runtimectl_kernel.events WHERE persona = $1', params: [session.personaId], expect: { firstValue: firstSeq - 1 } },
    insertStatement(session.personaId, batch),
  ];
}

function conflictError(session: StorageSession, lease: Lease, index: number, value: unknown, firstSeq: number): Error {
  if (index === 0) {
    return kernelError('RTC_ERR_PERSONA_LOCKED', `persona ${session.personaId}: this kernel no longer holds its lease (it expired while the kernel was stalled, and another may have taken over); events ${firstSeq}.. were not written; restart the persona`, {
      details: { persona: session.personaId, holder: lease.holder },
    });
  }
  return kernelError('RTC_ERR_EVENTS_WRITE', `persona ${session.personaId}: the stored chain ends at seq ${String(value)}, not ${firstSeq - 1}: another writer appended; events ${firstSeq}.. were not written`, {
    details: { persona: session.personaId },
  });
}

export const pgEventsAppend = storageOp({
  name: 'storage.postgres.events.append',
  binding: 'storage.postgres',
  mode: 'async',
  parse: (o) => ({ batch: o.batch }),
  async run(session, a) {
    if (session.opened?.placement.kind !== 'postgres') throw new DenoOpError('Error', `the events of persona ${session.personaId} were not opened for appends`, 'RTC_ERR_PERSISTENCE_BACKEND');
    const handed = session.take(a.batch);
    const lease = pg(session).lease!;
    let answer;
    try {
      answer = await pg(session).bridge.tx({ statements: appendStatements(session, lease, handed.batch, handed.firstSeq) });
    } catch (error) {
      throw kernelError((error as { code?: 'RTC_ERR_PERSISTENCE_UNREACHABLE' }).code ?? 'RTC_ERR_PERSISTENCE_UNREACHABLE', `persona ${session.personaId}: ${(error as Error).message}`, { details: { persona: session.personaId } });
    }
    if (!('results' in answer)) throw conflictError(session, lease, answer.conflict, answer.value, handed.firstSeq);
    session.markStored(a.batch as number);
    return { stored: handed.batch.size };
  },
});

export const pgEventsRead = storageOp({
  name: 'storage.postgres.events.read',
  binding: 'storage.postgres',
  mode: 'sync',
  parse: (o) => ({ handle: o.handle }),
  run(session, a) {
    session.bindRead(a.handle, placementOf(session));
    return null;
  },
});

export const pgEventsImport = storageOp({
  name: 'storage.postgres.events.import',
  binding: 'storage.postgres',
  mode: 'async',
  parse: (o) => ({ batch: o.batch }),
  async run(session, a) {
    if (session.readonly) readonlyRefusal(session, 'import events');
    if (session.opened) throw new DenoOpError('Error', `events can only be imported into a store that is not open for appends`, 'RTC_ERR_PERSISTENCE_BACKEND');
    session.pin(placementOf(session));
    const lease = sessionLease(session, 'export');
    const handed = session.take(a.batch);
    const answer = await pg(session).bridge.tx({ statements: appendStatements(session, lease, handed.batch, handed.firstSeq) });
    if (!('results' in answer)) {
      if (answer.conflict === 1 && handed.firstSeq === 1) {
        throw kernelError('RTC_ERR_PERSISTENCE_EXPORT', `persona ${session.personaId} already holds events in ${pg(session).bridge.where}; an import goes only into an empty store`, { details: { persona: session.personaId } });
      }
      throw conflictError(session, lease, answer.conflict, answer.value, handed.firstSeq);
    }
    pg(session).bridge.querySync('INSERT INTO runtimectl_kernel.personas (persona, backend) VALUES ($1, $2) ON CONFLICT (persona) DO UPDATE SET last_seen = now()', [session.personaId, 'postgres']);
    session.markStored(a.batch as number);
    return { stored: handed.batch.size };
  },
});

export const POSTGRES_BINDING_OPS = [pgQuery, pgBatch, pgMigrate, pgEventsOpen, pgEventsAppend, pgEventsRead, pgEventsImport];
