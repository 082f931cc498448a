// The worker thread that holds a kernel's Postgres connections (pg.Pool) for one database.
// Plain JavaScript: it runs without the TypeScript loader. See pg-bridge.ts for the protocol.
//
// Each request is one transaction: BEGIN; the persona setting row-level security reads
// (`runtimectl.persona`, local to the transaction) when one is given; the statements, each
// optionally with an expectation (a row count, or the first column of the first row) that,
// when not met, rolls the whole transaction back and answers { conflict }; COMMIT. Nothing is
// answered as done before COMMIT returns.
import { parentPort, workerData } from 'node:worker_threads';
import pg from 'pg';

const { connectionString, max, syncPort, signal } = workerData;
const flag = new Int32Array(signal);
const pool = new pg.Pool({ connectionString, max, connectionTimeoutMillis: workerData.connectTimeoutMs, idleTimeoutMillis: 30_000, statement_timeout: workerData.statementTimeoutMs });
// An idle connection the server closed (a restart, pg_terminate_backend) is dropped by the pool.
pool.on('error', () => undefined);
// A checked-out client whose connection is cut emits 'error' too (besides failing its query):
// unheard, that would end this thread and every persona's connection with it.
const heard = new WeakSet();
function hear(client) {
  if (heard.has(client)) return;
  heard.add(client);
  client.on('error', () => undefined);
}

function describe(error) {
  return { code: typeof error?.code === 'string' ? error.code : undefined, message: String(error?.message ?? error).split('\n')[0], severity: error?.severity };
}

function expectationMet(expect, result) {
  if (expect === undefined || expect === null) return true;
  if (typeof expect.rowCount === 'number' && result.rowCount !== expect.rowCount) return false;
  if ('firstValue' in expect) {
    const row = result.rows[0];
    const value = row === undefined ? null : Object.values(row)[0];
    if (String(value) !== String(expect.firstValue)) return false;
  }
  return true;
}

async function transaction(request) {
  let client;
  try {
    client = await pool.connect();
    hear(client);
  } catch (error) {
    return { error: describe(error) };
  }
  let broken = false;
  try {
    await client.query(request.readOnly ? 'BEGIN READ ONLY' : 'BEGIN');
    if (typeof request.persona === 'string') await client.query("SELECT set_config('runtimectl.persona', $1, true)", [request.persona]);
    const results = [];
    for (let i = 0; i < request.statements.length; i++) {
      const st = request.statements[i];
      const result = await client.query(st.sql, st.params ?? []);
      if (!expectationMet(st.expect, result)) {
        await client.query('ROLLBACK');
        const row = result.rows[0];
        return { conflict: i, rowCount: result.rowCount, value: row === undefined ? null : Object.values(row)[0] };
      }
      results.push({ rows: result.rows, rowCount: result.rowCount });
    }
    await client.query('COMMIT');
    return { results };
  } catch (error) {
    // A lost connection cannot roll back: the transaction died with it, never committed.
    try {
      await client.query('ROLLBACK');
    } catch {
      broken = true;
    }
    return { error: describe(error) };
  } finally {
    client.release(broken);
  }
}

async function answer(request) {
  if (request.op === 'end') {
    await pool.end().catch(() => undefined);
    return { ended: true };
  }
  return transaction(request);
}

// The writer leases this kernel holds here, renewed from this thread: a main thread busy with
// hundreds of personas (or blocked in a long synchronous stretch) never lets them lapse. One
// statement renews them all; a lease whose row is gone or another's is reported lost.
const leases = new Map();
let beatTimer;
let beatPeriod = 0;
let beating = false;
const RENEW_ALL = `UPDATE runtimectl.leases l SET heartbeat_at = now(), expires_at = now() + make_interval(secs => u.ttl)
  FROM unnest($1::text[], $2::text[], $3::float8[]) AS u(persona, holder, ttl)
  WHERE l.persona = u.persona AND l.holder = u.holder RETURNING l.holder`;

async function beat() {
  if (beating || leases.size === 0) return;
  beating = true;
  const list = [...leases.values()];
  try {
    const result = await transaction({ statements: [{ sql: RENEW_ALL, params: [list.map((l) => l.persona), list.map((l) => l.holder), list.map((l) => l.ttl)] }] });
    if (!result.results) return;
    const renewed = new Set(result.results[0].rows.map((r) => String(r.holder)));
    const lost = list.filter((l) => !renewed.has(l.holder) && leases.has(l.holder)).map((l) => l.holder);
    for (const holder of lost) leases.delete(holder);
    if (lost.length > 0) parentPort.postMessage({ op: 'lease-lost', holders: lost });
  } finally {
    beating = false;
  }
}

function holdLease(request) {
  leases.set(request.holder, { persona: request.persona, holder: request.holder, ttl: request.ttl });
  const period = Math.max(500, Math.floor((request.ttl * 1000) / 3));
  if (beatTimer === undefined || period < beatPeriod) {
    if (beatTimer !== undefined) clearInterval(beatTimer);
    beatPeriod = period;
    beatTimer = setInterval(() => void beat(), period);
  }
}

function dropLease(request) {
  leases.delete(request.holder);
  if (leases.size === 0 && beatTimer !== undefined) {
    clearInterval(beatTimer);
    beatTimer = undefined;
  }
}

parentPort.on('message', async (request) => {
  if (request.op === 'lease-hold') return holdLease(request);
  if (request.op === 'lease-drop') return dropLease(request);
  const result = await answer(request);
  parentPort.postMessage({ id: request.id, ...result });
});

syncPort.on('message', async (request) => {
  const result = await answer(request);
  syncPort.postMessage({ id: request.id, ...result });
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
});
