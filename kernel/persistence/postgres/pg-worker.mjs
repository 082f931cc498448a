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

parentPort.on('message', async (request) => {
  const result = await answer(request);
  parentPort.postMessage({ id: request.id, ...result });
});

syncPort.on('message', async (request) => {
  const result = await answer(request);
  syncPort.postMessage({ id: request.id, ...result });
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
});
