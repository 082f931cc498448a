/**
 * One writer per persona across machines: a lease row in `runtimectl_kernel.leases` with a heartbeat.
 *
 *   take     one statement: insert the row, or take it over when it has expired (or is
 *            already ours); the database's clock decides, so machines' clocks do not matter.
 *            Refused otherwise, naming the holder (host, pid, start, last heartbeat, expiry).
 *   renew    every ttl/3 from the connection worker's own thread (pg-worker.mjs), one
 *            statement for every lease this process holds in the database: a main thread
 *            busy with hundreds of personas never lets them lapse (per-lease renewals on the
 *            main thread did, in the fleet simulation), and in every event
 *            append's own transaction (an append commits only while this kernel still holds
 *            the lease: a kernel that lost it, paused past its expiry, appends nothing after
 *            another took over)
 *   release  at close; a SIGKILLed holder's lease simply expires after its ttl
 *
 * A takeover returns the previous holder, which the new writer records in its chain after it
 * has verified the stored events (the reconciliation: nothing of the old writer is dropped
 * and the chain continues from what was committed). The row is the lease; the chain's own
 * (persona, seq) primary key is the backstop: two appends of one seq can never both commit.
 */
import os from 'node:os';
import { randomBytes } from 'node:crypto';
import { kernelError } from '../../../../kernel/errors.ts';
import type { PgBridge, Statement } from './pg-bridge.ts';

export const DEFAULT_LEASE_SECONDS = 15;

export interface LeaseHolder {
  host: string;
  pid: number;
  started_at: string;
  purpose: string;
}

export interface Lease {
  readonly persona: string;
  readonly holder: string;
  readonly info: LeaseHolder;
  readonly ttlSeconds: number;
  /** the holder before this one, when this lease took over an expired one */
  readonly tookOverFrom: LeaseHolder | undefined;
  /** false once a renewal found the row gone or another's (this kernel then appends nothing) */
  readonly held: boolean;
  /** the statement an append's transaction runs first: it renews, and must touch exactly one row */
  renewStatement(): Statement;
  release(): Promise<void>;
}

function describeHolder(info: string): string {
  try {
    const h = JSON.parse(info) as LeaseHolder;
    return `kernel pid ${h.pid} on ${h.host} (started ${h.started_at}, ${h.purpose})`;
  } catch {
    return 'another kernel';
  }
}

/** Takes persona's lease or throws RTC_ERR_PERSONA_LOCKED naming the holder. */
export function takeLease(bridge: PgBridge, persona: string, purpose: string, ttlSeconds = DEFAULT_LEASE_SECONDS): Lease {
  const holder = `${os.hostname()}:${process.pid}:${randomBytes(6).toString('hex')}`;
  const info: LeaseHolder = { host: os.hostname(), pid: process.pid, started_at: new Date(Date.now() - process.uptime() * 1000).toISOString(), purpose };
  const taken = bridge.querySync(
    `INSERT INTO runtimectl_kernel.leases (persona, holder, info, acquired_at, heartbeat_at, expires_at)
     VALUES ($1, $2, $3, now(), now(), now() + make_interval(secs => $4))
     ON CONFLICT (persona) DO UPDATE SET holder = excluded.holder, info = excluded.info, acquired_at = now(), heartbeat_at = now(),
       expires_at = excluded.expires_at, previous = runtimectl_kernel.leases.info
     WHERE runtimectl_kernel.leases.expires_at <= now()
     RETURNING previous`,
    [persona, holder, JSON.stringify(info), ttlSeconds],
  );
  if (taken.rowCount !== 1) {
    const row = bridge.querySync('SELECT info, heartbeat_at, expires_at, now() AS now FROM runtimectl_kernel.leases WHERE persona = $1', [persona]).rows[0];
    const who = row ? describeHolder(String(row.info)) : 'another kernel';
    const until = row ? ` (heartbeat ${new Date(String(row.heartbeat_at)).toISOString()}, expires ${new Date(String(row.expires_at)).toISOString()} unless renewed)` : '';
    throw kernelError(
      'RTC_ERR_PERSONA_LOCKED',
      `persona ${persona} already has a writer: ${who} holds its lease in ${bridge.where}${until}; stop that kernel first, or wait for a crashed one's lease to expire (${ttlSeconds} s)`,
      { details: { persona, holder: row ? String(row.info) : null } },
    );
  }
  const previous = taken.rows[0]?.previous;
  let tookOverFrom: LeaseHolder | undefined;
  if (typeof previous === 'string') {
    try {
      tookOverFrom = JSON.parse(previous) as LeaseHolder;
    } catch {
      tookOverFrom = { host: '?', pid: 0, started_at: '?', purpose: '?' };
    }
  }
  let held = true;
  let released = false;
  const renewSql = `UPDATE runtimectl_kernel.leases SET heartbeat_at = now(), expires_at = now() + make_interval(secs => $3) WHERE persona = $1 AND holder = $2`;
  bridge.holdLease({ persona, holder, ttlSeconds }, () => (held = false));
  return {
    persona,
    holder,
    info,
    ttlSeconds,
    tookOverFrom,
    get held() {
      return held;
    },
    renewStatement: () => ({ sql: renewSql, params: [persona, holder, ttlSeconds], expect: { rowCount: 1 } }),
    async release() {
      if (released) return;
      released = true;
      bridge.dropLease(holder);
      await bridge.tx({ statements: [{ sql: 'DELETE FROM runtimectl_kernel.leases WHERE persona = $1 AND holder = $2', params: [persona, holder] }] }).catch(() => undefined);
    },
  };
}

