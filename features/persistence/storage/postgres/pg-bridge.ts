/**
 * The kernel's connection to one Postgres database: a worker thread holding a `pg` pool
 * (pg-worker.mjs), reached two ways.
 *
 *   tx()      asynchronous: the main thread goes on (event appends: each group-commit batch is
 *             one transaction, acknowledged when its COMMIT returns)
 *   txSync()  synchronous: the main thread waits on a shared flag for the answer
 *             (Atomics.wait, then receiveMessageOnPort), for the backend calls the kernel makes
 *             synchronously (brain.json, proposals, the ledger's rows). Bounded by a timeout.
 *
 * One bridge per database (DSN) per process. The DSN, password included, stays here: the
 * plugin never sees it; messages name the database as `postgres://user@host:port/db`. The
 * kernel's statements run on the DSN's role; a plugin's only on the login role the kernel
 * made for it (TxRequest.login, pg-roles.ts), on a connection of that role's own.
 */
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import { kernelError, type KernelError } from '../../../../kernel/errors.ts';

export interface Statement {
  sql: string;
  params?: unknown[];
  /** rolls the transaction back (answer: conflict) unless met */
  expect?: { rowCount?: number; firstValue?: unknown };
}

export interface TxRequest {
  statements: Statement[];
  /**
   * the login role the statements run as (a plugin's: pg-roles.ts), on that role's own
   * connection with the extended protocol; without it, the kernel's own connection
   */
  login?: string;
  readOnly?: boolean;
}

export interface TxResult {
  rows: Record<string, unknown>[];
  rowCount: number;
}

export type TxAnswer = { results: TxResult[] } | { conflict: number; rowCount: number; value: unknown };

interface WorkerAnswer {
  id: number;
  results?: TxResult[];
  conflict?: number;
  rowCount?: number;
  value?: unknown;
  error?: { code?: string; message: string };
}

export interface BridgeOptions {
  /** connections in the pool (default 8) */
  max?: number;
  /** a synchronous call waits this long at most (default 60 s) */
  syncTimeoutMs?: number;
  connectTimeoutMs?: number;
  statementTimeoutMs?: number;
}

/** `postgres://user@host:port/db` (no password, no query): what messages may show. */
export function describeDsn(dsn: string): string {
  try {
    const url = new URL(dsn);
    const host = url.hostname === '' ? (url.searchParams.get('host') ?? 'localhost') : url.hostname;
    return `postgres://${url.username ? `${decodeURIComponent(url.username)}@` : ''}${host}${url.port ? `:${url.port}` : ''}${url.pathname}`;
  } catch {
    return 'postgres://(a DSN that is not a URL)';
  }
}

/** SQLSTATE and socket codes that mean "the database is not there or will not let us in". */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOENT', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'EAI_AGAIN', 'ENOTFOUND', 'ECONNRESET', '57P01', '57P02', '57P03', '08000', '08001', '08003', '08004', '08006', '3D000']);
const CREDENTIALS = new Set(['28P01', '28000']);

/** A database failure as the one-line error the caller adds its persona to. */
export function databaseError(where: string, error: { code?: string; message: string }): KernelError {
  const code = error.code ?? '';
  const message = error.message;
  if (CREDENTIALS.has(code)) {
    return kernelError('RTC_ERR_PERSISTENCE_UNREACHABLE', `${where}: the database refused the login (${message}); fix the user or password in the DSN (RUNTIMECTL_POSTGRES_DSN)`, { details: { sqlstate: code } });
  }
  if (code === '3D000') {
    return kernelError('RTC_ERR_PERSISTENCE_UNREACHABLE', `${where}: ${message}; create the database or fix its name in the DSN`, { details: { sqlstate: code } });
  }
  if (code === '57P01' || code === '57P02' || code === 'ECONNRESET' || /terminating connection|Connection terminated unexpectedly/i.test(message)) {
    return kernelError('RTC_ERR_PERSISTENCE_UNREACHABLE', `${where}: the connection was lost mid-transaction (${message}); what it carried was not committed and not acknowledged; check the database, then restart the persona`, {
      details: { sqlstate: code },
    });
  }
  // A server's answer with a SQLSTATE of another class is not about reaching it, whatever its words ("function dblink_connect does not exist").
  const answered = /^[0-9A-Z]{5}$/.test(code) && !code.startsWith('08');
  if (UNREACHABLE.has(code) || (!answered && /connection terminated|connect|timeout exceeded|Connection terminated/i.test(message))) {
    return kernelError('RTC_ERR_PERSISTENCE_UNREACHABLE', `${where}: cannot reach the database (${code ? `${code}: ` : ''}${message}); start it, or fix the host and port in the DSN; nothing was acknowledged that is not committed`, {
      details: { sqlstate: code },
    });
  }
  return kernelError('RTC_ERR_PERSISTENCE_CORRUPT', `${where}: the database answered ${code ? `${code} ` : ''}${message}`, { details: { sqlstate: code } });
}

export class PgBridge {
  readonly where: string;
  readonly #worker: Worker;
  readonly #sync: MessagePort;
  readonly #flag: Int32Array;
  readonly #pending = new Map<number, { resolve: (a: WorkerAnswer) => void }>();
  /** the leases the worker renews, by holder: called when a renewal finds one lost */
  readonly #leaseLost = new Map<string, () => void>();
  readonly #syncTimeoutMs: number;
  #next = 1;
  #closed = false;
  #ended = false;
  #online: Promise<void>;

  constructor(dsn: string, options: BridgeOptions = {}) {
    this.where = describeDsn(dsn);
    const channel = new MessageChannel();
    const signal = new SharedArrayBuffer(4);
    this.#flag = new Int32Array(signal);
    this.#sync = channel.port1;
    this.#sync.unref();
    this.#syncTimeoutMs = options.syncTimeoutMs ?? 60_000;
    this.#worker = new Worker(new URL('./pg-worker.mjs', import.meta.url), {
      workerData: {
        connectionString: dsn,
        max: options.max ?? 8,
        syncPort: channel.port2,
        signal,
        connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
        statementTimeoutMs: options.statementTimeoutMs ?? 60_000,
      },
      transferList: [channel.port2],
      // The kernel's flags (--no-node-snapshot, the TypeScript loader) are not the worker's business.
      execArgv: [],
    });
    this.#worker.unref();
    this.#worker.on('message', (answer: WorkerAnswer | { op: 'lease-lost'; holders: string[] }) => {
      if ('op' in answer) {
        for (const holder of answer.holders) this.#leaseLost.get(holder)?.();
        return;
      }
      const waiting = this.#pending.get(answer.id);
      this.#pending.delete(answer.id);
      waiting?.resolve(answer);
    });
    // The worker's start may need this thread (module loading): no synchronous wait before it is online.
    this.#online = new Promise<void>((resolve) => {
      this.#worker.once('online', () => resolve());
      this.#worker.once('error', () => resolve());
      this.#worker.once('exit', () => resolve());
    });
    this.#worker.on('error', (error) => this.#failAll(error));
    this.#worker.on('exit', () => {
      // Later calls fail at once rather than wait on a thread that is gone; bridgeFor makes a new one.
      this.#ended = true;
      this.#failAll(new Error('the database worker ended'));
    });
  }

  #failAll(error: Error): void {
    for (const [id, waiting] of this.#pending) {
      this.#pending.delete(id);
      waiting.resolve({ id, error: { code: 'ECONNRESET', message: error.message } });
    }
  }

  #settle(answer: WorkerAnswer): TxAnswer {
    if (answer.error) throw databaseError(this.where, answer.error);
    if (answer.conflict !== undefined) return { conflict: answer.conflict, rowCount: answer.rowCount ?? 0, value: answer.value ?? null };
    return { results: answer.results ?? [] };
  }

  /**
   * Has the worker renew a writer lease every ttl/3, from its own thread (pg-worker.mjs), with
   * every other lease of this process in one statement; `lost` runs when a renewal finds the
   * row gone or another's.
   */
  holdLease(lease: { persona: string; holder: string; ttlSeconds: number }, lost: () => void): void {
    this.#leaseLost.set(lease.holder, lost);
    this.#worker.postMessage({ op: 'lease-hold', persona: lease.persona, holder: lease.holder, ttl: lease.ttlSeconds });
  }

  dropLease(holder: string): void {
    this.#leaseLost.delete(holder);
    if (!this.#ended) this.#worker.postMessage({ op: 'lease-drop', holder });
  }

  /** Resolves once the worker runs (openBackend awaits it before any synchronous call). */
  ready(): Promise<void> {
    return this.#online;
  }

  /** False once closed or once its worker thread ended (bridgeFor then makes a new bridge). */
  get usable(): boolean {
    return !this.#closed && !this.#ended;
  }

  #refuseUnusable(): void {
    if (this.#closed) throw kernelError('RTC_ERR_PERSISTENCE_UNREACHABLE', `${this.where}: the connection was closed`);
    if (this.#ended) throw kernelError('RTC_ERR_PERSISTENCE_UNREACHABLE', `${this.where}: the connection worker ended; nothing in flight was acknowledged; reopen the persona's backend`);
  }

  /** One transaction, without holding the main thread. */
  async tx(request: TxRequest): Promise<TxAnswer> {
    this.#refuseUnusable();
    const id = this.#next++;
    this.#worker.ref();
    try {
      const answer = await new Promise<WorkerAnswer>((resolve) => {
        this.#pending.set(id, { resolve });
        this.#worker.postMessage({ id, op: 'tx', ...request });
      });
      return this.#settle(answer);
    } finally {
      if (this.#pending.size === 0) this.#worker.unref();
    }
  }

  /** One transaction, the main thread waiting for it (at most the sync timeout). */
  txSync(request: TxRequest): TxAnswer {
    this.#refuseUnusable();
    const message = this.#syncRoundTrip({ op: 'tx', ...request });
    if (message === undefined) throw kernelError('RTC_ERR_PERSISTENCE_UNREACHABLE', `${this.where}: no answer from the database within ${this.#syncTimeoutMs / 1000} s; check that it is up and not locked`);
    return this.#settle(message);
  }

  /**
   * Tells the worker a login role's password (pg-roles.ts), before any statement runs as it: a
   * synchronous round trip, so whichever channel the next statement takes finds it known.
   */
  registerLogin(login: { role: string; password: string }): void {
    this.#refuseUnusable();
    if (this.#syncRoundTrip({ op: 'login', role: login.role, password: login.password }) === undefined) {
      throw kernelError('RTC_ERR_PERSISTENCE_UNREACHABLE', `${this.where}: the connection worker did not answer within ${this.#syncTimeoutMs / 1000} s`);
    }
  }

  /**
   * Posts a request on the sync channel and blocks until its own answer arrives (undefined
   * past the sync timeout). A wake is not an answer: the worker sets the flag and then
   * notifies, and a notify that comes late (the worker preempted between the two, after the
   * previous answer was already read) wakes the next wait with nothing to read; and an answer
   * to an earlier request that timed out is not this one's. Either way it waits on.
   */
  #syncRoundTrip(request: Record<string, unknown>): WorkerAnswer | undefined {
    const id = this.#next++;
    Atomics.store(this.#flag, 0, 0);
    this.#sync.postMessage({ id, ...request });
    const deadline = performance.now() + this.#syncTimeoutMs;
    let answer: WorkerAnswer | undefined;
    for (;;) {
      const message = receiveMessageOnPort(this.#sync)?.message as WorkerAnswer | undefined;
      if (message?.id === id) {
        answer = message;
        break;
      }
      if (message !== undefined) continue; // a late answer to an earlier request
      const left = deadline - performance.now();
      if (left <= 0) break;
      Atomics.wait(this.#flag, 0, 0, left);
      Atomics.store(this.#flag, 0, 0);
    }
    // An idle bridge must never keep the kernel from exiting (an unref made before the worker
    // was online does not hold: it is repeated after each call).
    this.#sync.unref();
    if (this.#pending.size === 0) this.#worker.unref();
    return answer;
  }

  /** The database's role prefix (pg-roles.ts), once the kernel's schema was checked. */
  rolePrefix: string | undefined;

  /** txSync's results, a conflict being a bug of the caller's. */
  querySync(sql: string, params: unknown[] = []): TxResult {
    const answer = this.txSync({ statements: [{ sql, params }] });
    if (!('results' in answer)) throw kernelError('RTC_ERR_PERSISTENCE_CORRUPT', `${this.where}: a statement without expectations reported a conflict`, { internal: true });
    return answer.results[0]!;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#ended) return;
    this.#worker.ref();
    await new Promise<void>((resolve) => {
      const id = this.#next++;
      this.#pending.set(id, { resolve: () => resolve() });
      this.#worker.postMessage({ id, op: 'end' });
    });
    await this.#worker.terminate();
  }
}

const bridges = new Map<string, PgBridge>();

/** The process's bridge to `dsn` (made on first use). */
export function bridgeFor(dsn: string, options?: BridgeOptions): PgBridge {
  let bridge = bridges.get(dsn);
  if (bridge === undefined || !bridge.usable) {
    bridge = new PgBridge(dsn, options);
    bridges.set(dsn, bridge);
  }
  return bridge;
}

/** Closes every bridge of this process (tests, a kernel shutting down). */
export async function closeBridges(): Promise<void> {
  const all = [...bridges.values()];
  bridges.clear();
  await Promise.all(all.map((b) => b.close()));
}
