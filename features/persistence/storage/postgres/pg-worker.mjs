// The worker thread that holds a kernel's Postgres connections (pg.Pool) for one database.
// Plain JavaScript: it runs without the TypeScript loader. See pg-bridge.ts for the protocol.
//
// Two kinds of connection, never mixed:
//   - the kernel's pool, logged in as the DSN's role (search_path pinned to pg_catalog, so no
//     object another role made can stand in for a catalog one): the kernel's own statements;
//   - one small pool per login role the kernel made (pg-roles.ts: a persona's role, a plugin
//     component's migration role): every statement a plugin sends runs there, with the
//     extended protocol (one statement per query), never on the kernel's connection.
//
// Each request is one transaction: BEGIN; the statements, each optionally with an expectation
// (a row count, or the first column of the first row) that, when not met, rolls the whole
// transaction back and answers { conflict }; COMMIT. Nothing is answered as done before COMMIT
// returns. A plugin statement still running after the statement timeout is cancelled (a
// plugin may SET statement_timeout on its own connection; the cancel does not ask it).
import { parentPort, workerData } from 'node:worker_threads';
import pg from 'pg';
import parseDsn from 'pg-connection-string';

const { connectionString, max, syncPort, signal } = workerData;
const flag = new Int32Array(signal);
const statementTimeoutMs = workerData.statementTimeoutMs;
const pool = new pg.Pool({
  connectionString,
  max,
  connectionTimeoutMillis: workerData.connectTimeoutMs,
  idleTimeoutMillis: 30_000,
  statement_timeout: statementTimeoutMs,
  options: '-c search_path=pg_catalog',
});
// An idle connection the server closed (a restart, pg_terminate_backend) is dropped by the pool.
pool.on('error', () => undefined);

/** Login roles (role -> password) and their pools, made on first use; idle ones close after 10 s. */
const logins = new Map();
const loginPools = new Map();
const base = parseDsn(connectionString);

function loginConfig(role) {
  const password = logins.get(role);
  if (password === undefined) return undefined;
  return { ...base, user: role, password, connectionTimeoutMillis: workerData.connectTimeoutMs, statement_timeout: statementTimeoutMs, options: '-c search_path=runtimectl' };
}

function loginPool(role) {
  let p = loginPools.get(role);
  if (p === undefined) {
    const config = loginConfig(role);
    if (config === undefined) return undefined;
    p = new pg.Pool({ ...config, max: 2, idleTimeoutMillis: 10_000 });
    p.on('error', () => undefined);
    loginPools.set(role, p);
  }
  return p;
}
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

/** A plugin's statement on its login's connection: the extended protocol, cancelled past the statement timeout. */
async function pluginQuery(client, role, st) {
  const timer = setTimeout(() => {
    const query = client._activeQuery;
    if (query === null || query === undefined) return;
    try {
      new pg.Client(loginConfig(role)).cancel(client, query);
    } catch {
      // best effort: the connection is released as broken if the statement never ends
    }
  }, statementTimeoutMs);
  try {
    return await client.query({ text: st.sql, values: st.params ?? [], queryMode: 'extended' });
  } finally {
    clearTimeout(timer);
  }
}

async function transaction(request) {
  const source = request.login === undefined ? pool : loginPool(request.login);
  if (source === undefined) return { error: { code: '28000', message: `no login known for role ${request.login}` } };
  let client;
  try {
    client = await source.connect();
    hear(client);
  } catch (error) {
    return { error: describe(error) };
  }
  let broken = false;
  try {
    await client.query(request.readOnly ? 'BEGIN READ ONLY' : 'BEGIN');
    const results = [];
    for (let i = 0; i < request.statements.length; i++) {
      const st = request.statements[i];
      const result = request.login === undefined ? await client.query(st.sql, st.params ?? []) : await pluginQuery(client, request.login, st);
      // A plugin's statement may not end the transaction the binding began (COMMIT, ROLLBACK): what follows would run outside it.
      if (request.login !== undefined && client.getTransactionStatus() !== 'T') {
        const error = new Error(`statement ${i + 1} ended the binding's transaction (a batch is one transaction: no COMMIT, ROLLBACK or PREPARE TRANSACTION in it); the statements after it were not run`);
        error.code = '25000';
        throw error;
      }
      if (!expectationMet(st.expect, result)) {
        await client.query('ROLLBACK');
        const row = result.rows[0];
        return { conflict: i, rowCount: result.rowCount, value: row === undefined ? null : Object.values(row)[0] };
      }
      results.push({ rows: result.rows ?? [], rowCount: result.rowCount ?? 0 });
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
    // A plugin's connection goes back only when nothing of the plugin's session could linger
    // into the next transaction unnoticed: it is its own persona's anyway (one role a persona).
    client.release(broken);
  }
}

async function answer(request) {
  if (request.op === 'end') {
    await Promise.all([pool.end().catch(() => undefined), ...[...loginPools.values()].map((p) => p.end().catch(() => undefined))]);
    return { ended: true };
  }
  if (request.op === 'login') {
    // A new password for a role (a login the kernel made or repaired): its old pool is closed.
    if (logins.get(request.role) !== request.password) {
      logins.set(request.role, request.password);
      const old = loginPools.get(request.role);
      loginPools.delete(request.role);
      await old?.end().catch(() => undefined);
    }
    return { results: [] };
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
const RENEW_ALL = `UPDATE runtimectl_kernel.leases l SET heartbeat_at = now(), expires_at = now() + make_interval(secs => u.ttl)
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
